// The note editor's syntax highlighting (CodeMirror's syntaxHighlighting,
// the same marks from the same highlight style), drawn again after an edit
// only in the Markdown blocks it changed (lib/blocks.ts) and mapped
// elsewhere: CodeMirror's own draws the whole screen again on every
// keystroke, which in a long note is a good part of the keystroke.

import { type HighlightStyle, syntaxTree } from '@codemirror/language';
import { type EditorState, type Extension, Prec, type Range } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { highlightTree } from '@lezer/highlight';
import type { Tree } from '@lezer/common';
import { redrawBlocks } from './blocks';

/** The highlight marks of the given parts of the note (the visible ranges, or the changed blocks in them). */
export function highlightMarks(state: EditorState, style: HighlightStyle, ranges: readonly { from: number; to: number }[], cache: Record<string, Decoration> = {}): Range<Decoration>[] {
  const out: Range<Decoration>[] = [];
  const tree = syntaxTree(state);
  if (!tree.length) return out;
  for (const { from, to } of ranges) {
    highlightTree(tree, style, (a, b, cls) => void out.push((cache[cls] ??= Decoration.mark({ class: cls })).range(a, b)), from, to);
  }
  return out;
}

/** Highlighting with style, for the note editor (in place of syntaxHighlighting(style)). */
export function blockHighlighting(style: HighlightStyle): Extension {
  const cache: Record<string, Decoration> = {};
  const all = (view: EditorView) => Decoration.set(highlightMarks(view.state, style, view.visibleRanges, cache), true);
  const plugin = ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      /** The tree the marks were drawn from. */
      private tree: Tree;
      /** Where the marks drawn reach (the end of the viewport then). */
      private decoratedTo: number;

      constructor(view: EditorView) {
        this.tree = syntaxTree(view.state);
        this.decorations = all(view);
        this.decoratedTo = view.viewport.to;
      }

      update(u: ViewUpdate) {
        const tree = syntaxTree(u.state);
        const { viewport } = u.view;
        const mapped = u.changes.mapPos(this.decoratedTo, 1);
        // The parse has not reached the end of the screen yet: what is drawn stays (mapped) until it has, as CodeMirror's does.
        if (tree.length < viewport.to && tree.type === this.tree.type && mapped >= viewport.to) {
          this.decorations = this.decorations.map(u.changes);
          this.decoratedTo = mapped;
          return;
        }
        if (!u.docChanged && tree === this.tree && !u.viewportChanged) return;
        // Only the changed blocks, when the marks are those of the tree before this update and the screen did not move.
        const start = syntaxTree(u.startState);
        const redrawn =
          !u.viewportMoved && this.tree === start
            ? redrawBlocks(this.decorations, u.startState, u.state, u.changes, u.view.visibleRanges, false, (r) => highlightMarks(u.state, style, r, cache))
            : null;
        this.decorations = redrawn ?? all(u.view);
        this.tree = tree;
        this.decoratedTo = viewport.to;
      }
    },
    { decorations: (v) => v.decorations },
  );
  return [Prec.high(plugin), style.module ? EditorView.styleModule.of(style.module) : []];
}
