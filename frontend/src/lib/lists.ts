// Lists and quotes in the note editor, as Obsidian and Typora users expect:
// Enter continues a bullet, numbered (the items after it renumbered), task
// (`- [ ] `) or quote (`> `) line, and on an empty item ends the list
// (lang-markdown's insertNewlineContinueMarkup, set to always remove the
// marker rather than loosen a tight list); Backspace right after a bare
// marker removes it (deleteMarkupBackward); Tab / Shift+Tab indent and
// outdent a list item with its children, under the item before it (to
// that item's text column, so `1. ` nests by three), numbered lists
// renumbered. None of these act while an IME composes: the Enter that
// commits a composition is the IME's.

import { deleteMarkupBackward, insertNewlineContinueMarkupCommand } from '@codemirror/lang-markdown';
import { ensureSyntaxTree, forceParsing, syntaxTree } from '@codemirror/language';
import { ChangeSet, type ChangeSpec, EditorSelection, type EditorState, Prec, type Extension } from '@codemirror/state';
import { type Command, EditorView, keymap } from '@codemirror/view';
import type { SyntaxNode } from '@lezer/common';

const continueMarkup = insertNewlineContinueMarkupCommand({ nonTightLists: false });

/** A command that does nothing (returns false) while an IME composes. */
function notComposing(cmd: Command): Command {
  return (view: EditorView) => !view.composing && !view.compositionStarted && cmd(view);
}

const MARKER = /^(\s*)([-+*]|\d{1,9}[.)])( +|$)/;

/** The list item whose marker is on the line at pos (null: the line starts no item). */
function itemOnLine(state: EditorState, pos: number): SyntaxNode | null {
  const line = state.doc.lineAt(pos);
  const tree = ensureSyntaxTree(state, line.to, 200) ?? syntaxTree(state);
  // The first non-blank, non-quote character of the line.
  const lead = /^(?:\s*>)*\s*/.exec(line.text)?.[0].length ?? 0;
  for (let n: SyntaxNode | null = tree.resolveInner(line.from + lead, 1); n; n = n.parent) {
    if (n.name === 'ListItem') return n.from >= line.from ? n : null;
  }
  return null;
}

/** Column of the text after an item's marker (its children nest there). */
function contentColumn(state: EditorState, item: SyntaxNode): number {
  const line = state.doc.lineAt(item.from);
  const col = item.from - line.from;
  const m = MARKER.exec(line.text.slice(col));
  if (!m) return col + 2;
  const space = m[3].length > 4 || m[3].length === 0 ? 1 : m[3].length;
  return col + m[1].length + m[2].length + space;
}

/** Where a line's own indentation starts (after any quote marks `> `). */
function indentStart(text: string): number {
  return /^(?:[ \t]*>[ \t]?)*/.exec(text)?.[0].length ?? 0;
}

/** The lines (numbers) an item spans, trailing blank lines left out. */
function itemLines(state: EditorState, item: SyntaxNode): number[] {
  const doc = state.doc;
  const first = doc.lineAt(item.from).number;
  let last = doc.lineAt(item.to).number;
  while (last > first && !/\S/.test(doc.line(last).text.slice(indentStart(doc.line(last).text)))) last--;
  const out: number[] = [];
  for (let n = first; n <= last; n++) out.push(n);
  return out;
}

/** Shifts an item's lines by delta columns (negative: removes up to that many leading spaces). */
function shift(state: EditorState, item: SyntaxNode, delta: number): ChangeSpec[] {
  const changes: ChangeSpec[] = [];
  for (const n of itemLines(state, item)) {
    const line = state.doc.line(n);
    const at = n === state.doc.lineAt(item.from).number ? item.from - line.from - leadingSpaces(line.text, item.from - line.from) : indentStart(line.text);
    if (!/\S/.test(line.text.slice(at))) continue;
    if (delta > 0) changes.push({ from: line.from + at, insert: ' '.repeat(delta) });
    else {
      const have = /^ */.exec(line.text.slice(at))?.[0].length ?? 0;
      const cut = Math.min(have, -delta);
      if (cut) changes.push({ from: line.from + at, to: line.from + at + cut });
    }
  }
  return changes;
}

/** How many spaces come right before col in text. */
function leadingSpaces(text: string, col: number): number {
  let i = col;
  while (i > 0 && text[i - 1] === ' ') i--;
  return col - i;
}

/**
 * Renumbers the numbered lists holding the given positions (in state, after
 * an indent or outdent): each item one more than the one before it; a list's
 * first item keeps its number, unless it is `first` (the item just moved
 * into a new list), which becomes 1.
 */
function renumber(state: EditorState, positions: number[], first: number | null): ChangeSpec[] {
  const tree = ensureSyntaxTree(state, state.doc.length, 500) ?? syntaxTree(state);
  const lists = new Map<number, SyntaxNode>();
  for (const p of positions) {
    for (let n: SyntaxNode | null = tree.resolveInner(p, 1); n; n = n.parent) {
      if (n.name === 'OrderedList') {
        lists.set(n.from, n);
        break;
      }
    }
  }
  const changes: ChangeSpec[] = [];
  for (const list of lists.values()) {
    let num = -1;
    for (let item = list.firstChild; item; item = item.nextSibling) {
      if (item.name !== 'ListItem') continue;
      const m = /^(\d{1,9})(?=[.)])/.exec(state.sliceDoc(item.from, item.from + 10));
      if (!m) continue;
      const want = num < 0 ? (item.from === first ? 1 : Number(m[1])) : num + 1;
      if (String(want) !== m[1]) changes.push({ from: item.from, to: item.from + m[1].length, insert: String(want) });
      num = want;
    }
  }
  return changes;
}

/** Indents (dir 1) or outdents (dir -1) the list item on the cursor's line, with its children. */
function moveItem(dir: 1 | -1): Command {
  return (view: EditorView) => {
    const state = view.state;
    const sel = state.selection.main;
    const item = itemOnLine(state, sel.from);
    if (!item) return false;
    const line = state.doc.lineAt(item.from);
    const col = item.from - line.from;
    let delta = 0;
    if (dir > 0) {
      let prev = item.prevSibling;
      while (prev && prev.name !== 'ListItem') prev = prev.prevSibling;
      if (!prev) return true; // the first item has nothing to go under: Tab stays in the note
      delta = contentColumn(state, prev) - col;
    } else {
      const parent = item.parent?.parent;
      if (parent?.name === 'ListItem') delta = parent.from - state.doc.lineAt(parent.from).from - col;
      else delta = -leadingSpaces(line.text, col);
      if (delta === 0) return true;
    }
    if (delta <= 0 && dir > 0) return true;
    const moved = state.changes(shift(state, item, delta));
    if (moved.empty) return true;
    const after = state.update({ changes: moved }).state;
    const oldList = item.parent?.name === 'OrderedList' ? moved.mapPos(item.parent.from, 1) : null;
    const at = moved.mapPos(item.from, 1);
    const firstOfNew = dir > 0 ? isFirstItem(after, at) : null;
    const numbers = after.changes(renumber(after, oldList === null ? [at] : [at, oldList], firstOfNew));
    const all: ChangeSet = moved.compose(numbers);
    view.dispatch({
      changes: all,
      selection: EditorSelection.create(state.selection.ranges.map((r) => EditorSelection.range(all.mapPos(r.anchor, 1), all.mapPos(r.head, 1)))),
      scrollIntoView: true,
      userEvent: dir > 0 ? 'input.indent' : 'delete.dedent',
    });
    return true;
  };
}

/** The item at pos when it is the first of its list (its start), else null. */
function isFirstItem(state: EditorState, pos: number): number | null {
  const item = itemOnLine(state, pos);
  if (!item) return null;
  let prev = item.prevSibling;
  while (prev && prev.name !== 'ListItem') prev = prev.prevSibling;
  return prev ? null : item.from;
}

/**
 * The command with the note parsed up to the cursor's line first:
 * lang-markdown's commands read the syntax tree as it stands, and the
 * editor parses on a time budget, which a busy machine can spend before
 * the line just typed is parsed (an Enter after `> 续` then saw no quote
 * and broke the line plainly; the Backspace after it joined the lines).
 */
function parsed(cmd: Command): Command {
  return (view: EditorView) => {
    forceParsing(view, view.state.doc.lineAt(view.state.selection.main.head).to, 500);
    return cmd(view);
  };
}

/**
 * Enter on the bare last item of a top-level list ends the list with a
 * blank line after it (as Typora does): with the marker only removed, the
 * words typed next were, in Markdown, a lazy continuation of the item
 * above — the editor showed a paragraph of their own, the preview and an
 * export showed them inside that item. Other empty items: continueMarkup.
 */
function endListApart(cmd: Command): Command {
  return (view: EditorView) => {
    const { state } = view;
    const sel = state.selection.main;
    if (state.selection.ranges.length === 1 && sel.empty) {
      const line = state.doc.lineAt(sel.head);
      const doc = state.doc;
      const bare = sel.head === line.to && /^([-+*]|\d{1,9}[.)])( \[[ xX]\])? *$/.test(line.text);
      const last = line.number === doc.lines || !/\S/.test(doc.line(line.number + 1).text);
      const tight = line.number > 1 && /\S/.test(doc.line(line.number - 1).text);
      if (bare && last && tight && itemOnLine(state, line.from)) {
        view.dispatch({
          changes: { from: line.from, to: line.to, insert: state.lineBreak },
          selection: EditorSelection.cursor(line.from + state.lineBreak.length),
          scrollIntoView: true,
          userEvent: 'input',
        });
        return true;
      }
    }
    return cmd(view);
  };
}

export const continueList: Command = notComposing(parsed(endListApart(continueMarkup)));
export const removeMarker: Command = notComposing(parsed(deleteMarkupBackward));
export const indentItem: Command = notComposing(moveItem(1));
export const outdentItem: Command = notComposing(moveItem(-1));

/** The list keys, ahead of the default Enter, Backspace and (none) Tab. */
export function listKeymap(): Extension {
  return Prec.high(
    keymap.of([
      { key: 'Enter', run: continueList },
      { key: 'Backspace', run: removeMarker },
      { key: 'Tab', run: indentItem },
      { key: 'Shift-Tab', run: outdentItem }, // i18n-ignore: a key name
    ]),
  );
}
