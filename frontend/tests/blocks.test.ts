// Decorations drawn again only where an edit changed the note (lib/blocks.ts):
// the region an edit changes (its blocks, and the ones after it until the
// parse agrees again), and — over hundreds of random edits and cursor moves
// — live preview's inline marks, its tables, the tags, the unresolved
// links and the syntax highlighting come out exactly as drawing everything
// again would draw them.
import { describe, expect, it } from 'vitest';
import { HighlightStyle, syntaxTree } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { markdownLanguage } from '@codemirror/lang-markdown';
import { ChangeSet, EditorSelection, EditorState, RangeSet, type Extension, type TransactionSpec } from '@codemirror/state';
import { Decoration, type DecorationSet } from '@codemirror/view';
import { blocksOver, changedBlocks, clip, mergeSpans, redrawBlocks } from '../src/lib/blocks';
import { highlightMarks } from '../src/lib/cmhighlight';
import { linkResolver, tagMarks, unresolvedMarks } from '../src/lib/cmlinks';
import { liveDecorations, tables, updateLiveDecorations, updateTables } from '../src/lib/livepreview';

const NOTE = [
  '# 缓存设计', // 1
  '', // 2
  '命中率 **很高**，*斜体* ~~删除~~ 与 `code` 。#标签', // 3
  '见 [[实验记录]] 和 [[缓存设计|本文]] 以及 [官网](https://example.com)。', // 4
  '- [ ] 买菜', // 5
  '- [x] 做饭 [[清单]]', // 6
  '- 普通一项', // 7
  '  1. 第一', // 8
  '', // 9
  '| 名称 | 值 |', // 10
  '| --- | --- |', // 11
  '| 甲 | [[表里]] |', // 12
  '', // 13
  '> [!warning] 小心', // 14
  '> 引用内容 #引用', // 15
  '> > 里面一层', // 16
  '', // 17
  '---', // 18
  '', // 19
  '```go', // 20
  'func main() {} // [[不是链接]] #不是标签', // 21
  '```', // 22
  '', // 23
  '段落一行', // 24
  '第二行 **跨', // 25
  '行粗体** 完', // 26
  '', // 27
  '![点](data:image/png;base64,iVBORw0KGgo=)', // 28
  '', // 29
  '## 第二节', // 30
  '', // 31
  '<!-- 注释 -->', // 32
  '', // 33
  '| a | b |', // 34
  '| - | - |', // 35
  '| 1 | 2 |', // 36
  '', // 37
  '末行 [[不存在]] `c`', // 38
].join('\n');

const resolve = (l: { kind: string; href?: string; target?: string }) => (l.kind !== 'wiki' ? null : !JSON.stringify(l).includes('不存在'));

function state(doc: string, extra: Extension = []): EditorState {
  return EditorState.create({ doc, extensions: [markdownLanguage, linkResolver.of(resolve as never), extra] });
}

// Tags whose marks run over whole blocks (content, quote, list) as well as tokens.
const STYLE = HighlightStyle.define([
  { tag: t.heading1, fontWeight: '700' },
  { tag: [t.heading2, t.heading3], fontWeight: '650' },
  { tag: t.strong, fontWeight: '700' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: [t.link, t.url], color: 'blue' },
  { tag: t.monospace, fontFamily: 'monospace' },
  { tag: [t.processingInstruction, t.meta, t.contentSeparator], color: 'gray' },
  { tag: t.quote, fontStyle: 'italic' },
  { tag: t.list, color: 'green' },
  { tag: t.content, color: 'black' },
  { tag: t.comment, color: 'brown' },
  { tag: t.labelName, color: 'red' },
]);

/** A seeded random source (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SNIPPETS = ['x', '中文', ' ', '\n', '\n\n', '**', '*', '`', '```', '```go\n', '~~~\n', '> ', '> [!note] 提示', '- ', '- [ ] ', '1. ', '|', '| a | b |\n| - | - |\n', '[[', ']]', '[[链接]]', '[a](b)', '#标签 ', '# ', '===', '---', '~~', '<!--', '-->', '![i](x.png)', '  ', '[x]', '\\'];

/** A random edit or cursor move of s. */
function step(s: EditorState, r: () => number): TransactionSpec {
  const len = s.doc.length;
  const pos = Math.floor(r() * (len + 1));
  const k = r();
  if (k < 0.5) {
    const text = SNIPPETS[Math.floor(r() * SNIPPETS.length)];
    return { changes: { from: pos, insert: text }, selection: { anchor: pos + text.length } };
  }
  if (k < 0.75) {
    const to = Math.min(len, pos + 1 + Math.floor(r() * 12));
    return { changes: { from: pos, to }, selection: { anchor: pos } };
  }
  if (k < 0.8) {
    // Two changes at once (a replace all, a renumbering).
    const p2 = Math.floor(r() * (len + 1));
    return { changes: [{ from: pos, insert: 'a' }, { from: p2, insert: '\n' }] };
  }
  const to = Math.min(len, pos + (r() < 0.5 ? 0 : Math.floor(r() * 80)));
  return { selection: EditorSelection.single(pos, to) };
}

/** The same decorations (CodeMirror's own comparison), with what differs when not. */
function expectSame(got: DecorationSet, want: DecorationSet, len: number, what: string): void {
  if (RangeSet.eq([got], [want], 0, len)) return;
  const list = (d: DecorationSet) => {
    const out: string[] = [];
    d.between(0, len, (from, to, v) => void out.push(`${from}-${to} ${JSON.stringify(v.spec.class ?? v.spec.attributes ?? v.spec.widget?.constructor.name ?? '')}`));
    return out;
  };
  expect(list(got), what).toEqual(list(want));
  expect.fail(what + ': decorations differ');
}

describe('blocks an edit changes', () => {
  const doc = ['段一', '', '段二 **粗**', '续行', '', '- a', '- b', '', '尾'].join('\n');

  it('typing in a paragraph changes that paragraph only', () => {
    const s = state(doc);
    const at = doc.indexOf('续行') + 2;
    const tr = s.update({ changes: { from: at, insert: '字' } });
    const span = changedBlocks(syntaxTree(s), s.doc, syntaxTree(tr.state), tr.state.doc, tr.changes);
    expect(span).toEqual({ from: doc.indexOf('段二'), to: doc.indexOf('续行') + 3 });
  });

  it('an opened fence changes everything after it; closing it again, the same', () => {
    const s = state(doc);
    const tr = s.update({ changes: { from: doc.indexOf('段二'), insert: '```\n' } });
    const span = changedBlocks(syntaxTree(s), s.doc, syntaxTree(tr.state), tr.state.doc, tr.changes);
    expect(span).toEqual({ from: doc.indexOf('段二'), to: tr.state.doc.length });
    const back = tr.state.update({ changes: { from: doc.indexOf('段二'), to: doc.indexOf('段二') + 4 } });
    const span2 = changedBlocks(syntaxTree(tr.state), tr.state.doc, syntaxTree(back.state), back.state.doc, back.changes);
    expect(span2).toEqual({ from: doc.indexOf('段二'), to: back.state.doc.length });
  });

  it('a line of === under a paragraph takes the paragraph (a setext heading)', () => {
    const s = state(doc);
    const at = doc.indexOf('续行') + 2;
    const tr = s.update({ changes: { from: at, insert: '\n===' } });
    const span = changedBlocks(syntaxTree(s), s.doc, syntaxTree(tr.state), tr.state.doc, tr.changes);
    expect(span?.from).toBe(doc.indexOf('段二'));
    expect(syntaxTree(tr.state).topNode.childAfter(doc.indexOf('段二'))?.name).toBe('SetextHeading1');
  });

  it('a blank line typed into a paragraph: both halves, from the old paragraph', () => {
    const s = state(doc);
    const tr = s.update({ changes: { from: doc.indexOf('续行'), insert: '\n' } });
    const span = changedBlocks(syntaxTree(s), s.doc, syntaxTree(tr.state), tr.state.doc, tr.changes);
    expect(span).toEqual({ from: doc.indexOf('段二'), to: doc.indexOf('续行') + 3 });
  });

  it('a tree that does not cover its note yet: no region (draw everything)', () => {
    const long = '段落 **粗** 文字\n\n'.repeat(600); // longer than the first parse goes
    const s = state(long);
    expect(syntaxTree(s).length).toBeLessThan(long.length);
    const tr = s.update({ changes: { from: 0, insert: 'x' } });
    expect(changedBlocks(syntaxTree(s), s.doc, syntaxTree(tr.state), tr.state.doc, tr.changes)).toBeNull();
  });

  it('blocksOver widens to whole lines and blocks; spans merge and clip', () => {
    const s = state(doc);
    expect(blocksOver(syntaxTree(s), s.doc, doc.indexOf('- b') + 1, doc.indexOf('- b') + 1)).toEqual({ from: doc.indexOf('- a'), to: doc.indexOf('- b') + 3 });
    expect(blocksOver(syntaxTree(s), s.doc, 3, 3)).toEqual({ from: 3, to: 3 }); // a blank line: itself
    expect(mergeSpans([{ from: 10, to: 20 }, { from: 0, to: 5 }, { from: 21, to: 30 }, { from: 8, to: 7 }])).toEqual([
      { from: 0, to: 5 },
      { from: 10, to: 30 },
    ]);
    expect(clip([{ from: 0, to: 50 }], [{ from: 10, to: 20 }, { from: 40, to: 60 }])).toEqual([
      { from: 10, to: 20 },
      { from: 40, to: 50 },
    ]);
  });
});

describe('redrawn only where changed, the same as drawn anew', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`live preview, tables, tags, unresolved links and highlighting over random edits (seed ${seed})`, () => {
      const r = rng(seed);
      let s = state(NOTE);
      // A window of the note on screen (mapped through each edit, as the view maps its viewport), or all of it.
      const windowed = seed % 2 === 0;
      let visible = windowed ? [{ from: s.doc.line(8).from, to: s.doc.line(30).to }] : [{ from: 0, to: s.doc.length }];
      let live = liveDecorations(s, visible);
      let tbl = tables(s);
      let tags = Decoration.set(tagMarks(s, visible), true);
      let links = Decoration.set(unresolvedMarks(s, visible), true);
      let hl = Decoration.set(highlightMarks(s, STYLE, visible), true);
      let incremental = 0;
      for (let i = 0; i < 150; i++) {
        const tr = s.update(step(s, r));
        const next = tr.state;
        const changes: ChangeSet = tr.changes;
        visible = windowed ? visible.map((v) => ({ from: changes.mapPos(v.from, -1), to: changes.mapPos(v.to, 1) })) : [{ from: 0, to: next.doc.length }];
        const got = updateLiveDecorations(live, s, next, changes, visible);
        if (got) incremental++;
        live = got ?? liveDecorations(next, visible);
        tbl = updateTables(tbl, s, next, changes, !!tr.selection) ?? tables(next);
        tags = redrawBlocks(tags, s, next, changes, visible, false, (p) => tagMarks(next, p)) ?? Decoration.set(tagMarks(next, visible), true);
        links = redrawBlocks(links, s, next, changes, visible, false, (p) => unresolvedMarks(next, p)) ?? Decoration.set(unresolvedMarks(next, visible), true);
        hl = redrawBlocks(hl, s, next, changes, visible, false, (p) => highlightMarks(next, STYLE, p)) ?? Decoration.set(highlightMarks(next, STYLE, visible), true);
        const what = `seed ${seed} step ${i}: ${JSON.stringify(next.doc.toString())}`;
        expectSame(live, liveDecorations(next, visible), next.doc.length, 'live ' + what);
        expectSame(tbl, tables(next), next.doc.length, 'tables ' + what);
        expectSame(tags, Decoration.set(tagMarks(next, visible), true), next.doc.length, 'tags ' + what);
        expectSame(links, Decoration.set(unresolvedMarks(next, visible), true), next.doc.length, 'links ' + what);
        expectSame(hl, Decoration.set(highlightMarks(next, STYLE, visible), true), next.doc.length, 'highlight ' + what);
        s = next;
      }
      expect(incremental).toBeGreaterThan(100); // the region was found, not everything drawn again
    });
  }
});

describe('the note editor highlights with the block-wise highlighter', () => {
  it('marks follow edits in a real view: typed text, an opened fence swallowing the rest, closing it again', async () => {
    const { makeState } = await import('../src/lib/cm');
    const { EditorView } = await import('@codemirror/view');
    const parent = document.createElement('div');
    document.body.append(parent);
    const doc = ['# 标题', '', '正文 **粗体** 完', '', '## 第二节', ''].join('\n');
    const view = new EditorView({ state: makeState(doc, { change: () => {}, select: () => {} }), parent });
    try {
      /** The classes of the innermost spans holding text (the syntax highlighting's marks). */
      const marked = (text: string) =>
        [...view.contentDOM.querySelectorAll('span')].filter((s) => s.textContent?.includes(text) && s.className && !s.querySelector('span')).map((s) => s.className);
      const heading = marked('第二节');
      const bold = marked('粗体');
      expect(heading.length).toBe(1);
      expect(bold.length).toBe(1);
      expect(heading[0]).not.toBe(bold[0]);
      view.dispatch({ changes: { from: doc.indexOf('完') + 1, insert: ' *斜*' } });
      expect(marked('斜').length).toBe(1);
      const fence = { from: doc.indexOf('正文'), insert: '```\n' };
      view.dispatch({ changes: fence });
      // Code to the end now: one monospace mark everywhere after the fence, no bold, no heading.
      const code = marked('粗体');
      expect(code.length).toBe(1);
      expect(code[0]).not.toBe(bold[0]);
      expect(marked('第二节')).toEqual(code);
      view.dispatch({ changes: { from: fence.from, to: fence.from + fence.insert.length } });
      expect(marked('粗体')).toEqual(bold);
      expect(marked('第二节')).toEqual(heading);
    } finally {
      view.destroy();
      parent.remove();
    }
  });
});
