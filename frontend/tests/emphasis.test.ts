import { describe, expect, it } from 'vitest';
import { EditorSelection, EditorState } from '@codemirror/state';
import { ensureSyntaxTree, foldable } from '@codemirror/language';
import { makeState } from '../src/lib/cm';
import { toggleMarkup, toggleTask, type Markup } from '../src/lib/emphasis';

/** Applies an edit to text whose selection is marked [ … ] (or | for a cursor); gives the result marked the same way. */
function run(marked: string, f: (s: EditorState) => ReturnType<typeof toggleTask>): string {
  const cursor = marked.indexOf('|');
  let doc: string;
  let sel: EditorSelection;
  if (cursor >= 0) {
    doc = marked.replace('|', '');
    sel = EditorSelection.single(cursor);
  } else {
    const a = marked.indexOf('[');
    const b = marked.indexOf(']') - 1;
    doc = marked.replace('[', '').replace(']', '');
    sel = EditorSelection.single(a, b);
  }
  const state = EditorState.create({ doc, selection: sel });
  const spec = f(state);
  if (!spec) return 'null';
  const next = state.update(spec).state;
  const r = next.selection.main;
  const text = next.doc.toString();
  return r.empty ? text.slice(0, r.from) + '|' + text.slice(r.from) : text.slice(0, r.from) + '[' + text.slice(r.from, r.to) + ']' + text.slice(r.to);
}

const fmt = (marked: string, what: Markup) => run(marked, (s) => toggleMarkup(s, what));

describe('formatting keys', () => {
  it('wraps a selection and unwraps it again, Chinese as any text', () => {
    expect(fmt('命中率[很高]。', 'bold')).toBe('命中率**[很高]**。');
    expect(fmt('命中率**[很高]**。', 'bold')).toBe('命中率[很高]。');
    expect(fmt('命中率[**很高**]。', 'bold')).toBe('命中率[很高]。');
    expect(fmt('[重点]', 'highlight')).toBe('==[重点]==');
    expect(fmt('[旧的]', 'strike')).toBe('~~[旧的]~~');
    expect(fmt('run [make test]', 'code')).toBe('run `[make test]`');
  });

  it('italic is one star: inside bold it adds its own, and it never takes bold for italic', () => {
    expect(fmt('[字]', 'italic')).toBe('*[字]*');
    expect(fmt('*[字]*', 'italic')).toBe('[字]');
    expect(fmt('**[字]**', 'italic')).toBe('***[字]***');
    expect(fmt('[**字**]', 'italic')).toBe('*[**字**]*');
  });

  it('spaces at the edges of the selection stay outside', () => {
    expect(fmt('a[ 很高 ]b', 'bold')).toBe('a **[很高]** b');
    expect(fmt('a[   ]b', 'bold')).toBe('null');
  });

  it('with no selection: a pair with the cursor inside, and the empty pair taken away again', () => {
    expect(fmt('命中率|', 'bold')).toBe('命中率**|**');
    expect(fmt('命中率**|**', 'bold')).toBe('命中率|');
    expect(fmt('a|', 'italic')).toBe('a*|*');
  });

  it('Ctrl+Enter: a line becomes a task, a task is ticked, a ticked one unticked', () => {
    expect(run('买菜|', toggleTask)).toBe('- [ ] 买菜|');
    expect(run('- 买菜|', toggleTask)).toBe('- [ ] 买菜|');
    expect(run('  1. 买菜|', toggleTask)).toBe('  1. [ ] 买菜|');
    expect(run('> 买菜|', toggleTask)).toBe('> - [ ] 买菜|');
    expect(run('- [ ] 买|菜', toggleTask)).toBe('- [x] 买|菜');
    expect(run('- [x] 买菜|', toggleTask)).toBe('- [ ] 买菜|');
  });
});

describe('heading folds', () => {
  it('a heading folds its section, up to the next heading of its level or higher', () => {
    const doc = ['# 缓存设计', '引言', '## 实验', '第一次', '### 细节', '数据', '## 结论', '结语', '# 附录', '末'].join('\n');
    const state = makeState(doc, { change: () => {}, select: () => {} });
    ensureSyntaxTree(state, doc.length, 5000);
    const fold = (n: number) => {
      const l = state.doc.line(n);
      const r = foldable(state, l.from, l.to);
      return r ? state.sliceDoc(r.from, r.to) : null;
    };
    expect(fold(1)).toBe('\n引言\n## 实验\n第一次\n### 细节\n数据\n## 结论\n结语');
    expect(fold(3)).toBe('\n第一次\n### 细节\n数据');
    expect(fold(5)).toBe('\n数据');
    expect(fold(2)).toBeNull(); // a paragraph line
    expect(fold(9)).toBe('\n末');
  });
});
