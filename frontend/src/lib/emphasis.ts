// Formatting from the keyboard, as every Markdown editor has it: Ctrl+B
// bold, Ctrl+I italic, Ctrl+Shift+H ==highlight== (Typora's key), Alt+Shift+5
// strikethrough (Typora's), Ctrl+Shift+` inline code, and Ctrl+Enter for a
// task box (Obsidian's "toggle checkbox": a line becomes a task, a task is
// ticked, a ticked one unticked). Each is one undoable edit.
//
// A selection is wrapped in the markup, or unwrapped when it already is
// (the markup inside the selection or just around it). With nothing
// selected the markup goes in on both sides of the cursor, or, when the
// cursor sits between an empty pair, the pair goes: there is no word to
// take in Chinese text, where words have no spaces between them.

import { EditorSelection, type EditorState, type TransactionSpec } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { taskBox, toggleLine } from './tasks';

export type Markup = 'bold' | 'italic' | 'strike' | 'highlight' | 'code';

export const MARKS: Record<Markup, string> = { bold: '**', italic: '*', strike: '~~', highlight: '==', code: '`' };

/** The edit that toggles markup on the main selection, or null when there is none to make. */
export function toggleMarkup(state: EditorState, what: Markup): TransactionSpec | null {
  const mk = MARKS[what];
  const n = mk.length;
  const r = state.selection.main;
  const doc = state.doc;
  const before = doc.sliceString(Math.max(0, r.from - n), r.from);
  const after = doc.sliceString(r.to, Math.min(doc.length, r.to + n));
  // Italic is one "*": the markup of bold around it is no italic.
  const single = (s: string, at: number, side: -1 | 1) => what !== 'italic' || doc.sliceString(at + side, at + side + 1) !== '*' || s !== '*';
  const around = before === mk && after === mk && single(before, r.from - 1, -1) && single(after, r.to, 1);
  if (r.empty) {
    if (around) return { changes: { from: r.from - n, to: r.to + n, insert: '' }, selection: EditorSelection.cursor(r.from - n), userEvent: 'input.format' };
    return { changes: { from: r.from, insert: mk + mk }, selection: EditorSelection.cursor(r.from + n), userEvent: 'input.format' };
  }
  const text = state.sliceDoc(r.from, r.to);
  if (around) {
    return {
      changes: [
        { from: r.from - n, to: r.from, insert: '' },
        { from: r.to, to: r.to + n, insert: '' },
      ],
      selection: EditorSelection.range(r.from - n, r.to - n),
      userEvent: 'input.format',
    };
  }
  const inner = text.length > 2 * n && text.startsWith(mk) && text.endsWith(mk) && (what !== 'italic' || !text.startsWith('**') || text.startsWith('***'));
  if (inner) {
    return {
      changes: { from: r.from, to: r.to, insert: text.slice(n, text.length - n) },
      selection: EditorSelection.range(r.from, r.to - 2 * n),
      userEvent: 'input.format',
    };
  }
  // Spaces at the edges of the selection stay outside the markup
  // ("** word**" is no bold in Markdown).
  const lead = text.length - text.trimStart().length;
  const trail = text.length - text.trimEnd().length;
  if (lead === text.length) return null;
  const from = r.from + lead;
  const to = r.to - trail;
  return {
    changes: [
      { from, insert: mk },
      { from: to, insert: mk },
    ],
    selection: EditorSelection.range(from + n, to + n),
    userEvent: 'input.format',
  };
}

/** The edit Ctrl+Enter makes on the cursor's line: a task ticked or unticked, a list item or a plain line made a task. */
export function toggleTask(state: EditorState): TransactionSpec | null {
  const line = state.doc.lineAt(state.selection.main.head);
  if (taskBox(line.text)) {
    const e = toggleLine(line.text);
    if (!e) return null;
    return { changes: { from: line.from + e.col, to: line.from + e.col + 1, insert: e.insert }, userEvent: 'input.task' };
  }
  // After the quote marks, the indent and the list marker already there.
  const mt = /^((?:\s*>)*\s*)((?:[-*+]|\d{1,9}[.)])[ \t]+)?/.exec(line.text);
  const at = line.from + (mt?.[0].length ?? 0);
  const insert = mt?.[2] ? '[ ] ' : '- [ ] ';
  const head = state.selection.main.head;
  return {
    changes: { from: at, insert },
    selection: EditorSelection.cursor(head >= at ? head + insert.length : head),
    userEvent: 'input.task',
  };
}

/** Runs an edit of the above on a view (a command of the keymap or the palette). */
export function runOn(view: EditorView, spec: TransactionSpec | null): boolean {
  if (!spec) return false;
  view.dispatch({ ...spec, scrollIntoView: true });
  return true;
}

/** The editor's keys for these (CodeMirror's names). */
export const FORMAT_KEYS: { key: string; what: Markup | 'task' }[] = [
  { key: 'Mod-b', what: 'bold' }, // i18n-ignore: a key name
  { key: 'Mod-i', what: 'italic' }, // i18n-ignore: a key name
  { key: 'Mod-Shift-h', what: 'highlight' }, // i18n-ignore: a key name
  { key: 'Alt-Shift-5', what: 'strike' }, // i18n-ignore: a key name
  { key: 'Mod-Shift-`', what: 'code' }, // i18n-ignore: a key name
  { key: 'Mod-Enter', what: 'task' }, // i18n-ignore: a key name
];

/** Formats the view's selection: markup toggled, or the task box of the line. */
export function format(view: EditorView, what: Markup | 'task'): boolean {
  return runOn(view, what === 'task' ? toggleTask(view.state) : toggleMarkup(view.state, what));
}
