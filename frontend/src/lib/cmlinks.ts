// CodeMirror: tags (#标签) are marked (cm-tag, a click opens them in
// the search view), and the links of a note that find no note are marked
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
import { tagsInLine } from './tags';
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

/** Calls fn for each line of the visible ranges, once. */
function eachVisibleLine(view: EditorView, fn: (line: { from: number; text: string }) => void): void {
  const doc = view.state.doc;
  let last = -1;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = doc.lineAt(pos);
      if (line.number > last) {
        last = line.number;
        fn(line);
      }
      pos = line.to + 1;
    }
  }
}

/** The unresolved links' marks on the lines of the visible ranges. */
export function unresolvedMarks(view: EditorView): DecorationSet {
  const resolve = view.state.facet(linkResolver);
  if (!resolve) return Decoration.none;
  const title = view.state.facet(unresolvedTitle)();
  const mark = Decoration.mark({ class: UNRESOLVED_CLASS, attributes: title ? { title, 'aria-description': title } : {} });
  const b = new RangeSetBuilder<Decoration>();
  eachVisibleLine(view, (line) => {
    if (!line.text.includes('[[') && !line.text.includes('](')) return;
    for (const l of linksInLine(line.text)) {
      if (resolve(l) !== false || inCode(view.state, line.from + l.from)) continue;
      b.add(line.from + l.from, line.from + l.to, mark);
    }
  });
  return b.finish();
}

/** The class of a tag (#标签) in the editor; its data-tag is its name. */
export const TAG_CLASS = 'cm-tag';

/** The tags' marks on the lines of the visible ranges (not in code). */
export function tagMarks(view: EditorView): DecorationSet {
  const b = new RangeSetBuilder<Decoration>();
  eachVisibleLine(view, (line) => {
    if (!line.text.includes('#')) return;
    for (const t of tagsInLine(line.text)) {
      if (inCode(view.state, line.from + t.from)) continue;
      b.add(line.from + t.from, line.from + t.to, Decoration.mark({ class: TAG_CLASS, attributes: { 'data-tag': t.tag } }));
    }
  });
  return b.finish();
}

/** The tag at pos of the state's text, if one is written there. */
export function tagAt(state: EditorState, pos: number): string | null {
  const line = state.doc.lineAt(pos);
  const t = tagsInLine(line.text).find((t) => pos - line.from >= t.from && pos - line.from <= t.to);
  return t && !inCode(state, line.from + t.from) ? t.tag : null;
}

function marksPlugin(marks: (view: EditorView) => DecorationSet, depends: (u: ViewUpdate) => boolean) {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = marks(view);
      }
      update(u: ViewUpdate) {
        if (
          u.docChanged ||
          u.viewportChanged ||
          syntaxTree(u.startState) !== syntaxTree(u.state) || // the parse went further: code blocks known
          depends(u)
        ) {
          this.decorations = marks(u.view);
        }
      }
    },
    { decorations: (v) => v.decorations },
  );
}

const plugin = marksPlugin(
  unresolvedMarks,
  (u) => u.startState.facet(linkResolver) !== u.state.facet(linkResolver) || u.transactions.some((tr) => tr.effects.some((e) => e.is(refreshLinks))),
);

const tagPlugin = marksPlugin(tagMarks, () => false);

const theme = EditorView.baseTheme({
  ['.' + UNRESOLVED_CLASS]: {
    color: 'var(--fg-muted, #888)',
    // i18n-ignore: CSS
    textDecoration: 'underline dashed',
    textDecorationColor: 'currentColor',
    textUnderlineOffset: '3px',
  },
  ['.' + TAG_CLASS]: {
    color: 'var(--accent)',
    background: 'color-mix(in srgb, var(--accent) 10%, transparent)',
    borderRadius: '4px',
    padding: '0 2px',
  },
});

/** Marks the tags (#标签) of a note. */
export function tags(): Extension {
  return [tagPlugin, theme];
}

/** Marks the links of a note that find no note (resolve: this note's resolver; title: what the mark says). */
export function unresolvedLinks(resolve: LinkResolver, title: () => string): Extension {
  return [linkResolver.of(resolve), unresolvedTitle.of(title), plugin, theme];
}
