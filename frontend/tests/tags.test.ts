// Tags in the editor: the same tags the notes index lists (the cases are
// notes/testdata/inline-tags.json, which the Go test reads too), marked
// in source and live preview (not in code), completed after #, and a
// click on one shows the notes that carry it.
import { afterEach, describe, expect, it } from 'vitest';
import { forceParsing } from '@codemirror/language';
import { EditorSelection } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { makeState, type EditorHooks } from '../src/lib/cm';
import { tagCompletion, tagsInLine } from '../src/lib/tags';
import cases from '../../notes/testdata/inline-tags.json';


let view: EditorView | null = null;
afterEach(() => {
  view?.destroy();
  view = null;
  document.body.innerHTML = '';
});

function editor(doc: string, hooks: Partial<EditorHooks> = {}, live = true): EditorView {
  const parent = document.createElement('div');
  document.body.append(parent);
  view = new EditorView({ state: makeState(doc, { change: () => {}, select: () => {}, ...hooks }, live), parent });
  forceParsing(view, doc.length, 10_000);
  view.dispatch({ selection: EditorSelection.cursor(doc.length) });
  return view;
}

describe('tags', () => {
  it.each(cases)('$line', ({ line, tags }) => {
    const got = tagsInLine(line);
    expect(got.map((t) => t.tag)).toEqual(tags);
    for (const t of got) expect(line.slice(t.from, t.to)).toBe('#' + t.tag);
  });

  it('completes the tag being typed after #, not a heading, a URL fragment or code', () => {
    expect(tagCompletion('今天 #读')).toEqual({ query: '读', from: 4 });
    expect(tagCompletion('#技术/缓')).toEqual({ query: '技术/缓', from: 1 });
    expect(tagCompletion('# 标题')).toBeNull();
    expect(tagCompletion('今天 #')).toBeNull();
    expect(tagCompletion('https://a.b/c#frag')).toBeNull();
    expect(tagCompletion('``代码`` #读')).toEqual({ query: '读', from: 8 });
    expect(tagCompletion('`#读')).toBeNull(); // a backtick before #: no tag, as the index says
    expect(tagCompletion('问题 #12')).toBeNull();
  });

  it('marks tags in source and live preview, not in code; a click on one (Ctrl+click in source) opens it', () => {
    for (const live of [true, false]) {
      const opened: string[] = [];
      const doc = '读书笔记 #读书 和 #技术/缓存\n`#代码` 不算\n```\n#围栏里\n```\n末行';
      const v = editor(doc, { openTag: (t) => opened.push(t) }, live);
      const marks = [...v.contentDOM.querySelectorAll<HTMLElement>('.cm-tag')];
      expect(marks.map((e) => e.dataset.tag)).toEqual(['读书', '技术/缓存']);
      expect(marks.map((e) => e.textContent)).toEqual(['#读书', '#技术/缓存']);
      const at = (el: Element, ctrl: boolean) =>
        el.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true, button: 0, ctrlKey: ctrl, clientX: 0, clientY: 0 }));
      if (live) {
        at(marks[0], false);
        expect(opened).toEqual(['读书']);
        // On the line being edited a plain click only puts the cursor.
        v.dispatch({ selection: EditorSelection.cursor(2) });
        at(v.contentDOM.querySelector('.cm-tag')!, false);
        expect(opened).toEqual(['读书']);
      } else {
        at(marks[0], false);
        expect(opened).toEqual([]);
      }
      view?.destroy();
      view = null;
    }
  });

  it('offers the folder’s tags after #, and inserts the chosen one', async () => {
    const asked: string[] = [];
    const v = editor('想法 #技', {
      tagOptions: async (q) => (asked.push(q), [{ label: '#技术', detail: '3', insert: '技术 ' }]),
    });
    v.focus();
    const { completionStatus, startCompletion, currentCompletions, acceptCompletion } = await import('@codemirror/autocomplete');
    startCompletion(v);
    await new Promise((r) => setTimeout(r, 150));
    expect(asked).toEqual(['技']);
    expect(completionStatus(v.state)).toBe('active');
    expect(currentCompletions(v.state).map((c) => c.label)).toEqual(['#技术']);
    await new Promise((r) => setTimeout(r, 100)); // the completion's interaction delay
    expect(acceptCompletion(v)).toBe(true);
    expect(v.state.doc.toString()).toBe('想法 #技术 ');
  });
});
