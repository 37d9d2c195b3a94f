// CodeMirror: the links of a note that find no note are marked
// (cm-link-unresolved: dashed, muted, a title saying a Ctrl/Cmd+click
// creates it), in the source editor and in the live preview alike. Which
// links resolve is the editor's resolver (the linkResolver facet: the
// notes the app knows, lib/unresolved.ts); when the notes change, the
// owner dispatches refreshLinks and the marks follow. Links in code are
// left alone. Only the lines on screen are looked at.

import { syntaxTree } from '@codemirror/language';
import { Facet, RangeSetBuilder, StateEffect, type EditorState, type Extension } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { linksInLine, type LineLink } from './links';
import { UNRESOLVED_CLASS } from './unresolved';

/** Whether a link of this note finds a note (null: not a note link, or not known). */
export type LinkResolver = (link: LineLink) => boolean | null;

/** The resolver of this editor's note (the last one given wins). */
export const linkResolver = Facet.define<LinkResolver, LinkResolver | null>({ combine: (v) => v[v.length - 1] ?? null });

/** The title an unresolved link shows (read when marking: the interface's language). */
export const unresolvedTitle = Facet.define<() => string, () => string>({ combine: (v) => v[v.length - 1] ?? (() => '') });

/** The notes changed (or the language): mark the links again. */
export const refreshLinks = StateEffect.define<null>();

// i18n-ignore: syntax node names
const CODE = new Set(['FencedCode', 'CodeBlock', 'InlineCode', 'CodeText', 'HTMLBlock', 'Comment']);

function inCode(state: EditorState, pos: number): boolean {
  for (let n: ReturnType<ReturnType<typeof syntaxTree>['resolveInner']> | null = syntaxTree(state).resolveInner(pos, 1); n; n = n.parent) {
    if (CODE.has(n.name)) return true;
  }
  return false;
}

/** The unresolved links' marks on the lines of the visible ranges. */
export function unresolvedMarks(view: EditorView): DecorationSet {
  const resolve = view.state.facet(linkResolver);
  if (!resolve) return Decoration.none;
  const title = view.state.facet(unresolvedTitle)();
  const mark = Decoration.mark({ class: UNRESOLVED_CLASS, attributes: title ? { title, 'aria-description': title } : {} });
  const b = new RangeSetBuilder<Decoration>();
  const doc = view.state.doc;
  let last = -1;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = doc.lineAt(pos);
      if (line.number > last) {
        last = line.number;
        if (line.text.includes('[[') || line.text.includes('](')) {
          for (const l of linksInLine(line.text)) {
            if (resolve(l) !== false || inCode(view.state, line.from + l.from)) continue;
            b.add(line.from + l.from, line.from + l.to, mark);
          }
        }
      }
      pos = line.to + 1;
    }
  }
  return b.finish();
}

const plugin = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = unresolvedMarks(view);
    }
    update(u: ViewUpdate) {
      if (
        u.docChanged ||
        u.viewportChanged ||
        syntaxTree(u.startState) !== syntaxTree(u.state) || // the parse went further: code blocks known
        u.startState.facet(linkResolver) !== u.state.facet(linkResolver) ||
        u.transactions.some((tr) => tr.effects.some((e) => e.is(refreshLinks)))
      ) {
        this.decorations = unresolvedMarks(u.view);
      }
    }
  },
  { decorations: (v) => v.decorations },
);

const theme = EditorView.baseTheme({
  ['.' + UNRESOLVED_CLASS]: {
    color: 'var(--fg-muted, #888)',
    // i18n-ignore: CSS
    textDecoration: 'underline dashed',
    textDecorationColor: 'currentColor',
    textUnderlineOffset: '3px',
  },
});

/** Marks the links of a note that find no note (resolve: this note's resolver; title: what the mark says). */
export function unresolvedLinks(resolve: LinkResolver, title: () => string): Extension {
  return [linkResolver.of(resolve), unresolvedTitle.of(title), plugin, theme];
}
