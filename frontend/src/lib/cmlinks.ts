// CodeMirror: tags (#标签) are marked (cm-tag, a click opens them in
// the search view), and the links of a note that find no note are marked
// (cm-link-unresolved: dashed, muted, a title saying a Ctrl/Cmd+click
// creates it), in the source editor and in the live preview alike. Which
// links resolve is the editor's resolver (the linkResolver facet: the
// notes the app knows, lib/unresolved.ts); when the notes change, the
// owner dispatches refreshLinks and the marks follow. Links in code are
// left alone. Only the lines on screen are looked at, and after an edit
// only the blocks it changed (lib/blocks.ts).

import { syntaxTree } from '@codemirror/language';
import { Facet, type Range, StateEffect, type EditorState, type Extension } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { redrawBlocks } from './blocks';
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

type Ranges = readonly { from: number; to: number }[];

/** Calls fn for each line of the ranges (in order), once. */
function eachLine(state: EditorState, ranges: Ranges, fn: (line: { from: number; text: string }) => void): void {
  const doc = state.doc;
  let last = -1;
  for (const { from, to } of ranges) {
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

/** The unresolved links' marks on the lines of the ranges (the visible ones). */
export function unresolvedMarks(state: EditorState, ranges: Ranges): Range<Decoration>[] {
  const resolve = state.facet(linkResolver);
  if (!resolve) return [];
  const title = state.facet(unresolvedTitle)();
  const mark = Decoration.mark({ class: UNRESOLVED_CLASS, attributes: title ? { title, 'aria-description': title } : {} });
  const out: Range<Decoration>[] = [];
  eachLine(state, ranges, (line) => {
    if (!line.text.includes('[[') && !line.text.includes('](')) return;
    for (const l of linksInLine(line.text)) {
      if (resolve(l) !== false || inCode(state, line.from + l.from)) continue;
      out.push(mark.range(line.from + l.from, line.from + l.to));
    }
  });
  return out;
}

/** The class of a tag (#标签) in the editor; its data-tag is its name. */
export const TAG_CLASS = 'cm-tag';

/** The tags' marks on the lines of the ranges (not in code). */
export function tagMarks(state: EditorState, ranges: Ranges): Range<Decoration>[] {
  const out: Range<Decoration>[] = [];
  eachLine(state, ranges, (line) => {
    if (!line.text.includes('#')) return;
    for (const t of tagsInLine(line.text)) {
      if (inCode(state, line.from + t.from)) continue;
      out.push(Decoration.mark({ class: TAG_CLASS, attributes: { 'data-tag': t.tag } }).range(line.from + t.from, line.from + t.to));
    }
  });
  return out;
}

/** The tag at pos of the state's text, if one is written there. */
export function tagAt(state: EditorState, pos: number): string | null {
  const line = state.doc.lineAt(pos);
  const t = tagsInLine(line.text).find((t) => pos - line.from >= t.from && pos - line.from <= t.to);
  return t && !inCode(state, line.from + t.from) ? t.tag : null;
}

/**
 * Marks on the visible lines: drawn again where an edit changed the note's
 * blocks (lib/blocks.ts: a keystroke costs its paragraph, not the screen),
 * everything when the view moved, the parse went further (code blocks
 * known) or depends says so.
 */
function marksPlugin(marks: (state: EditorState, ranges: Ranges) => Range<Decoration>[], depends: (u: ViewUpdate) => boolean) {
  const all = (view: EditorView) => Decoration.set(marks(view.state, view.visibleRanges), true);
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = all(view);
      }
      update(u: ViewUpdate) {
        if (u.viewportMoved || depends(u)) this.decorations = all(u.view);
        else if (u.docChanged || u.viewportChanged || syntaxTree(u.startState) !== syntaxTree(u.state)) {
          this.decorations = redrawBlocks(this.decorations, u.startState, u.state, u.changes, u.view.visibleRanges, false, (r) => marks(u.state, r)) ?? all(u.view);
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
