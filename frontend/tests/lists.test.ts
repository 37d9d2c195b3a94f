// Lists in the note editor: Enter continues bullets, numbers (renumbered),
// tasks and quotes, ends the list on an empty item; Backspace removes a bare
// marker; Tab / Shift+Tab nest and un-nest an item. Driven through the
// editor's own keymap (the keys a person presses), in Chinese and English.
import { afterEach, describe, expect, it } from 'vitest';
import { EditorSelection } from '@codemirror/state';
import { EditorView, runScopeHandlers } from '@codemirror/view';
import { makeState } from '../src/lib/cm';
import { syntaxTree } from '@codemirror/language';

const hooks = { change: () => {}, select: () => {} };
let view: EditorView | null = null;
afterEach(() => {
  view?.destroy();
  view = null;
});

/** An editor holding text, the cursor at `|` (removed). */
function editor(text: string): EditorView {
  const at = text.indexOf('|');
  const doc = text.replace('|', '');
  const parent = document.createElement('div');
  document.body.append(parent);
  view = new EditorView({ state: makeState(doc, hooks), parent });
  view.dispatch({ selection: EditorSelection.cursor(at < 0 ? doc.length : at) });
  return view;
}

/** Presses a key as the editor's keymap sees it; false when no binding took it. */
function press(v: EditorView, key: string, shift = false): boolean {
  return runScopeHandlers(v, new KeyboardEvent('keydown', { key, shiftKey: shift }), 'editor');
}

/** The text with the cursor marked `|`. */
function shown(v: EditorView): string {
  const s = v.state.doc.toString();
  const h = v.state.selection.main.head;
  return s.slice(0, h) + '|' + s.slice(h);
}

function type(v: EditorView, text: string): void {
  const h = v.state.selection.main.head;
  v.dispatch({ changes: { from: h, insert: text }, selection: EditorSelection.cursor(h + text.length), userEvent: 'input.type' });
}

describe('Enter in a list', () => {
  it('continues a bullet item in Chinese (it used to start a bare line)', () => {
    const v = editor('- 一项|');
    expect(press(v, 'Enter')).toBe(true);
    expect(shown(v)).toBe('- 一项\n- |');
    type(v, '二项');
    press(v, 'Enter');
    expect(shown(v)).toBe('- 一项\n- 二项\n- |');
  });

  it('continues numbers and renumbers the items after', () => {
    const v = editor('1. first|\n2. 第二\n3. third');
    press(v, 'Enter');
    expect(shown(v)).toBe('1. first\n2. |\n3. 第二\n4. third');
  });

  it('continues a task with an empty box, a ticked one too', () => {
    const v = editor('- [x] 买菜|');
    press(v, 'Enter');
    expect(shown(v)).toBe('- [x] 买菜\n- [ ] |');
  });

  it('continues a quote', () => {
    const v = editor('> 引用一句|');
    press(v, 'Enter');
    expect(shown(v)).toBe('> 引用一句\n> |');
  });

  it('ends the list on an empty last item with a blank line after it, so what follows is a paragraph of its own', async () => {
    const v = editor('- 一项\n- |');
    press(v, 'Enter');
    expect(shown(v)).toBe('- 一项\n\n|');
    type(v, '晚上');
    // The paragraph is no longer a lazy continuation of the item above.
    const para = syntaxTree(v.state).resolveInner(v.state.doc.length, -1);
    let inItem = false;
    for (let n: typeof para | null = para; n; n = n.parent) if (n.name === 'ListItem') inItem = true;
    expect(inItem).toBe(false);
    const w = editor('- a\n- b\n- [ ] |\n');
    press(w, 'Enter');
    expect(shown(w)).toBe('- a\n- b\n\n|\n');
    const n = editor('1. 甲\n2. 乙\n3. |');
    press(n, 'Enter');
    expect(shown(n)).toBe('1. 甲\n2. 乙\n\n|');
    // One undo puts the item back.
    const { undo } = await import('@codemirror/commands');
    undo(n);
    expect(n.state.doc.toString()).toBe('1. 甲\n2. 乙\n3. ');
  });

  it('an empty item in the middle of a list, or of a loose list, only loses its marker', () => {
    const v = editor('- a\n- |\n- c');
    press(v, 'Enter');
    expect(shown(v)).toBe('- a\n|\n- c');
    const w = editor('- a\n\n- |');
    press(w, 'Enter');
    expect(shown(w)).toBe('- a\n\n|');
  });

  it('an empty nested item goes up a level', () => {
    const v = editor('- a\n  - b\n  - |');
    press(v, 'Enter');
    expect(shown(v)).toBe('- a\n  - b\n- |');
  });

  it('outside lists Enter is a plain line break', () => {
    const v = editor('一段话|');
    expect(press(v, 'Enter')).toBe(true); // the default keymap's insertNewlineAndIndent
    expect(shown(v)).toBe('一段话\n|');
  });
});

describe('Backspace at a bare marker', () => {
  it('removes the marker of a first item', () => {
    const v = editor('- |');
    expect(press(v, 'Backspace')).toBe(true);
    expect(shown(v)).toBe('|');
  });

  it('turns a later item into the text of the one before, then removes the indent', () => {
    const v = editor('- 一项\n- |');
    press(v, 'Backspace');
    expect(shown(v)).toBe('- 一项\n  |');
    press(v, 'Backspace');
    expect(shown(v)).toBe('- 一项\n|');
  });

  it('removes a quote mark', () => {
    const v = editor('> |');
    press(v, 'Backspace');
    expect(shown(v)).toBe('|');
  });
});

describe('Tab and Shift+Tab', () => {
  it('nest a bullet under the item before, with its children, and back', () => {
    const v = editor('- 一\n- 二|\n  - 三\n- 四');
    expect(press(v, 'Tab')).toBe(true);
    expect(shown(v)).toBe('- 一\n  - 二|\n    - 三\n- 四');
    expect(press(v, 'Tab', true)).toBe(true);
    expect(shown(v)).toBe('- 一\n- 二|\n  - 三\n- 四');
  });

  it('nest a numbered item at its text column, renumbering both lists', () => {
    const v = editor('1. a\n2. b|\n3. c');
    press(v, 'Tab');
    expect(shown(v)).toBe('1. a\n   1. b|\n2. c');
    press(v, 'Tab', true);
    expect(shown(v)).toBe('1. a\n2. b|\n3. c');
  });

  it('nest a task', () => {
    const v = editor('- [ ] 任务一\n- [ ] 任务二|');
    press(v, 'Tab');
    expect(shown(v)).toBe('- [ ] 任务一\n  - [ ] 任务二|');
  });

  it('the first item stays (Tab kept in the note); outside a list Tab is not taken', () => {
    const v = editor('- 一|');
    expect(press(v, 'Tab')).toBe(true);
    expect(shown(v)).toBe('- 一|');
    const w = editor('正文|');
    expect(press(w, 'Tab')).toBe(false);
  });

  it('are undone in one step', async () => {
    const { undo } = await import('@codemirror/commands');
    const v = editor('1. a\n2. b|\n3. c');
    press(v, 'Tab');
    expect(v.state.doc.toString()).toBe('1. a\n   1. b\n2. c');
    undo(v);
    expect(v.state.doc.toString()).toBe('1. a\n2. b\n3. c');
  });
});

// The editor parses on a time budget and, past what is on screen, later:
// lang-markdown's commands read the tree as it stands. A quote the parser
// has not reached yet (here past the first 3,000 characters of a note just
// opened; on a busy machine, the line just typed) must still continue on
// Enter and lose its bare marker on Backspace, not break or join lines.
describe('lists past what the parser has reached', () => {
  const filler = Array.from({ length: 400 }, (_, i) => `第 ${i} 段：缓存实验的记录，命中率与延迟。`).join('\n\n');
  /** An editor on a note just opened, the cursor at its end, before the parser's later work. */
  function opened(doc: string): EditorView {
    const state = makeState(doc, hooks);
    const parent = document.createElement('div');
    document.body.append(parent);
    view = new EditorView({ state: state.update({ selection: EditorSelection.cursor(doc.length) }).state, parent });
    return view;
  }

  it('Enter continues a quote, Backspace removes the bare marker', () => {
    const v = opened(filler + '\n\n> 引用\n> 续');
    expect(syntaxTree(v.state).length, 'the test needs a note the parser has not reached the end of').toBeLessThan(v.state.doc.length);
    expect(press(v, 'Enter')).toBe(true);
    expect(shown(v).slice(-12)).toBe('> 引用\n> 续\n> |');
    expect(press(v, 'Backspace')).toBe(true);
    expect(shown(v).slice(-10)).toBe('> 引用\n> 续\n|');
    type(v, '- [ ] 任务');
    press(v, 'Enter');
    expect(shown(v).slice(-20)).toBe('> 续\n- [ ] 任务\n- [ ] |');
  });
});
