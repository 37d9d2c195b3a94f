// Which top-level Markdown blocks an edit (or a move of the cursor) can
// have changed, so the editor's decorations are redrawn there only and
// mapped everywhere else: a keystroke in a 5,000-line note then costs what
// its paragraph costs, not what the screen or the whole note costs.
//
// A block (a child of the syntax tree's Document: a paragraph, a list, a
// quote, a table, fenced code, …) is what a decoration of live preview,
// a tag or an unresolved link belongs to: each lies inside one block's
// lines. An edit changes the blocks it touches, before and after (a
// paragraph split in two, two joined, a line that made the one above a
// setext heading), and can change the blocks after it: an opened fence
// swallows the rest of the note. So the region grows, block by block, until
// the next block is the same in the old and the new tree (same kind, same
// place once shifted by the edit); from there on the parse is the same.

import { syntaxTree } from '@codemirror/language';
import type { ChangeDesc, EditorState, Range, SelectionRange, Text } from '@codemirror/state';
import type { Decoration, DecorationSet } from '@codemirror/view';
import type { SyntaxNode, Tree } from '@lezer/common';

/** A part of the document, both ends included (whole lines). */
export interface Span {
  from: number;
  to: number;
}

/** Blocks re-checked after an edit before the region is taken to run to the end of the note. */
const RESYNC_LIMIT = 64;

/** The first top-level block that ends after pos (null: none). */
function blockAfter(tree: Tree, pos: number): SyntaxNode | null {
  return tree.topNode.childAfter(pos);
}

/**
 * The lines of [from, to] widened to the top-level blocks of tree on
 * them (a blank line with no block stays itself).
 */
export function blocksOver(tree: Tree, doc: Text, from: number, to: number): Span {
  let a = doc.lineAt(Math.min(from, doc.length)).from;
  let b = doc.lineAt(Math.min(Math.max(from, to), doc.length)).to;
  for (let n = blockAfter(tree, a - 1); n && n.from <= b; n = n.nextSibling) {
    if (n.from < a) a = doc.lineAt(n.from).from;
    if (n.to > b) b = doc.lineAt(Math.min(n.to, doc.length)).to;
  }
  return { from: a, to: b };
}

/** Whether a tree covers its whole document (a partial parse stops short). */
export function complete(tree: Tree, doc: Text): boolean {
  return tree.length >= doc.length;
}

/**
 * The region of the new document whose top-level blocks an edit may have
 * changed (whole lines, merged into one span), or null when that cannot be
 * told: a tree that does not cover its document yet.
 */
export function changedBlocks(oldTree: Tree, oldDoc: Text, newTree: Tree, newDoc: Text, changes: ChangeDesc): Span | null {
  if (!complete(oldTree, oldDoc) || !complete(newTree, newDoc)) return null;
  let fromA = -1;
  let toA = 0;
  let fromB = 0;
  let toB = 0;
  changes.iterChangedRanges((fa, ta, fb, tb) => {
    if (fromA < 0) {
      fromA = fa;
      fromB = fb;
    }
    toA = ta;
    toB = tb;
  });
  if (fromA < 0) return { from: 0, to: -1 }; // nothing changed
  // Past the edit, a position of the new text is d after the old one's.
  const d = toB - toA;
  const now = blocksOver(newTree, newDoc, fromB, toB);
  const was = blocksOver(oldTree, oldDoc, fromA, toA);
  const from = Math.min(now.from, was.from);
  let to = Math.max(now.to, was.to + d);
  // Grow until the next block is the same in both trees.
  for (let i = 0; ; i++) {
    if (i >= RESYNC_LIMIT) return { from, to: newDoc.length };
    const nb = blockAfter(newTree, to);
    const ob = blockAfter(oldTree, to - d);
    if (!nb && !ob) break;
    if (nb && ob && nb.from > to && nb.name === ob.name && nb.from === ob.from + d && nb.to === ob.to + d) break;
    const next = Math.max(nb ? nb.to : to, ob ? ob.to + d : to);
    if (next <= to) break; // cannot happen (each ends after to); guards the loop
    to = newDoc.lineAt(Math.min(next, newDoc.length)).to;
  }
  return { from, to: Math.min(to, newDoc.length) };
}

/** The blocks the given selection ranges touch (their lines widened to blocks). */
export function selectionBlocks(tree: Tree, doc: Text, ranges: readonly { from: number; to: number }[]): Span[] {
  return ranges.map((r) => blocksOver(tree, doc, r.from, r.to));
}

/** Spans sorted and merged where they overlap or touch; empty ones left out. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.to >= s.from).sort((a, b) => a.from - b.from);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.from <= last.to + 1) last.to = Math.max(last.to, s.to);
    else out.push({ from: s.from, to: s.to });
  }
  return out;
}

/** The parts of spans inside the given ranges (the visible ones). */
export function clip(spans: readonly Span[], ranges: readonly { from: number; to: number }[]): Span[] {
  const out: Span[] = [];
  for (const s of spans) {
    for (const r of ranges) {
      const from = Math.max(s.from, r.from);
      const to = Math.min(s.to, r.to);
      if (to >= from) out.push({ from, to });
    }
  }
  return out;
}

/**
 * What an editor update changed for decorations that belong to blocks: the
 * regions to draw again (in the new document), or null when everything is
 * to be drawn again (a tree not yet complete). selection: also the blocks
 * the selection was and is on (where live preview shows the markup).
 */
export function updatedBlocks(start: EditorState, state: EditorState, changes: ChangeDesc, oldTree: Tree, newTree: Tree, selection: boolean): Span[] | null {
  const spans: Span[] = [];
  if (!changes.empty) {
    const c = changedBlocks(oldTree, start.doc, newTree, state.doc, changes);
    if (!c) return null;
    spans.push(c);
  } else if (oldTree !== newTree) return null;
  if (selection) {
    if (!complete(newTree, state.doc)) return null;
    const was = start.selection.ranges.map((r: SelectionRange) => ({ from: changes.mapPos(r.from, -1), to: changes.mapPos(r.to, 1) }));
    spans.push(...selectionBlocks(newTree, state.doc, [...was, ...state.selection.ranges]));
  }
  return mergeSpans(spans);
}

/**
 * Decorations drawn again in spans (within the given ranges), the rest
 * kept: the ones in a span go, build's for the parts of the spans in the
 * ranges come. Decorations of a block lie in its lines, so whole blocks'
 * spans take exactly theirs.
 */
export function redraw(
  deco: DecorationSet,
  spans: readonly Span[],
  ranges: readonly { from: number; to: number }[],
  build: (parts: Span[]) => Range<Decoration>[],
): DecorationSet {
  if (!spans.length) return deco;
  for (const s of spans) deco = deco.update({ filter: (from, to) => to < s.from || from > s.to, filterFrom: s.from, filterTo: s.to });
  const add = build(clip(spans, ranges));
  return add.length ? deco.update({ add, sort: true }) : deco;
}

/**
 * Decorations that belong to blocks (build draws them for parts of the
 * note) after an update from start to state: mapped, and drawn again in
 * the blocks it changed (and, with selection, the ones the selection left
 * or reached) within the visible ranges. null: draw everything again.
 */
export function redrawBlocks(
  deco: DecorationSet,
  start: EditorState,
  state: EditorState,
  changes: ChangeDesc,
  visible: readonly { from: number; to: number }[],
  selection: boolean,
  build: (parts: Span[]) => Range<Decoration>[],
): DecorationSet | null {
  const spans = updatedBlocks(start, state, changes, syntaxTree(start), syntaxTree(state), selection);
  return spans && redraw(deco.map(changes), spans, visible, build);
}
