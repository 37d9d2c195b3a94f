// CodeMirror 6 for notes: Markdown highlighting (GFM), undo history,
// search (Ctrl/Cmd+F), line wrapping, themed by the app's CSS variables
// (light and dark follow the system). Links: after [[ the note names
// complete, after [[Note# its headings; Ctrl/Cmd+click follows a link.
// Loaded with a dynamic import, so the editor's code is fetched the first
// time a note opens. CodeMirror's own words (the search panel's Find,
// Replace, next, …) and the text's label are in the interface's language
// (EditorState.phrases, in a compartment reconfigured when it changes).
// Lists continue on Enter, indent with Tab (lists.ts). Source or live
// preview (livepreview.ts: markup hidden off the cursor's lines), per state.

import { autocompletion, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdownLanguage } from '@codemirror/lang-markdown';
import { foldGutter, foldKeymap, HighlightStyle, Language, LanguageSupport } from '@codemirror/language';
import type { MarkdownParser } from '@lezer/markdown';
import { closeSearchPanel, highlightSelectionMatches, openSearchPanel, search, searchKeymap, searchPanelOpen } from '@codemirror/search';
import { Annotation, Compartment, EditorState, type Extension, RangeSetBuilder, StateEffect, StateField, type Text } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  type ViewUpdate,
} from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { locale, m } from './i18n.svelte';
import { linkAt, linkCompletion, type LineLink, type LinkCompletion } from './links';
import { listKeymap } from './lists';
import { refreshLinks, tagAt, tags, unresolvedLinks } from './cmlinks';
import { tagCompletion } from './tags';
import { writing, type WritingHooks } from './writing';
import { liveHooks, livePreview } from './livepreview';
import { blockHighlighting } from './cmhighlight';
import { frontMatterEnd } from './outline';
import { FORMAT_KEYS, format } from './emphasis';

export { format };
import { CjkEmphasis, headingFolds, Highlight } from './mdsyntax';

export { EditorState, EditorView };

/** Marks changes that came from outside (a reload, an agent's write): not the user's edits. */
const external = Annotation.define<boolean>();

export interface EditorHooks extends WritingHooks {
  /** The user changed the text. */
  change(doc: Text): void;
  /** The main selection changed (null: empty). */
  select(sel: { text: string; fromLine: number; toLine: number } | null): void;
  /** What completes a link being typed: note names after [[, headings after [[Note#. */
  linkOptions?(c: LinkCompletion): Promise<LinkOption[]>;
  /** Ctrl/Cmd+click on a link (in live preview a plain click on a rendered one). */
  openLink?(link: LineLink): void;
  /** What completes a tag being typed after #: the folder's tags matching query. */
  tagOptions?(query: string): Promise<LinkOption[]>;
  /** Ctrl/Cmd+click on a tag (in live preview a plain click): show the notes that carry it. */
  openTag?(tag: string): void;
  /** Whether a link finds a note (false: marked unresolved; null: not a note link). */
  resolveLink?(link: LineLink): boolean | null;
  /** F2: rename this note. */
  rename?(): void;
  /** Live preview: a URL for an image of the notes folder the note names (relative to the note; null: not shown). */
  imageURL?(href: string): Promise<string | null>;
  /** Live preview: a URL for the image an embed ![[target]] names (found by name, as a link is; null: not shown). */
  embedURL?(target: string): Promise<string | null>;
  /** Live preview: shows the notes embedded under root (their a.md-embed-note links), as the preview does. */
  showEmbeds?(root: HTMLElement): void;
}

/** One completion of a link: `insert` replaces what was typed after [[ (or #). */
export interface LinkOption {
  label: string;
  detail?: string;
  insert: string;
}

function linkSource(hooks: EditorHooks) {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    if (!hooks.linkOptions) return null;
    const line = ctx.state.doc.lineAt(ctx.pos);
    const c = linkCompletion(line.text.slice(0, ctx.pos - line.from));
    if (!c) return null;
    const opts = await hooks.linkOptions(c);
    if (ctx.aborted) return null;
    const closed = line.text.slice(ctx.pos - line.from).startsWith(']]');
    return {
      from: line.from + c.from,
      filter: false,
      options: opts.map((o) => ({
        label: o.label,
        detail: o.detail,
        type: c.kind === 'note' ? 'text' : 'property',
        apply: (view: EditorView, _c: unknown, from: number, to: number) => {
          const text = o.insert + (closed ? '' : ']]');
          view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length + (closed ? 2 : 0) } });
        },
      })),
    };
  };
}

/** The folder's tags after a # being typed (lib/tags.ts says where a tag starts). */
function tagSource(hooks: EditorHooks) {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    if (!hooks.tagOptions) return null;
    const line = ctx.state.doc.lineAt(ctx.pos);
    const c = tagCompletion(line.text.slice(0, ctx.pos - line.from));
    if (!c || tagAt(ctx.state, ctx.pos) === null) return null; // not in code
    const opts = await hooks.tagOptions(c.query);
    if (ctx.aborted || !opts.length) return null;
    return {
      from: line.from + c.from,
      filter: false,
      options: opts.map((o) => ({ label: o.label, detail: o.detail, type: 'keyword', apply: o.insert })),
    };
  };
}

/** Ctrl/Cmd+click on a link follows it; on a tag, shows the notes that carry it. */
function linkClicks(hooks: EditorHooks) {
  return EditorView.domEventHandlers({
    mousedown(e: MouseEvent, view: EditorView) {
      if (e.button !== 0 || !(e.ctrlKey || e.metaKey)) return false;
      const pos = view.posAtCoords({ x: e.clientX, y: e.clientY });
      if (pos === null) return false;
      const line = view.state.doc.lineAt(pos);
      const link = hooks.openLink ? linkAt(line.text, pos - line.from) : null;
      if (link) {
        e.preventDefault();
        hooks.openLink?.(link);
        return true;
      }
      const tag = hooks.openTag ? tagAt(view.state, pos) : null;
      if (tag === null) return false;
      e.preventDefault();
      hooks.openTag?.(tag);
      return true;
    },
  });
}

const highlight = HighlightStyle.define([
  { tag: t.heading1, fontWeight: '700', fontSize: '1.3em' },
  { tag: t.heading2, fontWeight: '700', fontSize: '1.15em' },
  { tag: [t.heading3, t.heading4, t.heading5, t.heading6], fontWeight: '650' },
  { tag: t.strong, fontWeight: '700' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: t.special(t.strong), backgroundColor: 'var(--mark-bg)' },
  { tag: [t.link, t.url], color: 'var(--accent)' },
  { tag: t.monospace, fontFamily: 'var(--mono)', color: 'var(--hl-string)' },
  { tag: [t.processingInstruction, t.meta, t.contentSeparator], color: 'var(--fg-subtle)' },
  { tag: t.quote, color: 'var(--fg-muted)', fontStyle: 'italic' },
  { tag: [t.keyword, t.atom], color: 'var(--hl-keyword)' },
  { tag: t.comment, color: 'var(--hl-comment)' },
  { tag: t.labelName, color: 'var(--hl-title)' },
]);

/** The note's front matter (--- … --- at the top): its lines shown as data, in both modes — not a rule and a heading, as Markdown alone would read them. */
const fmLine = Decoration.line({ class: 'cm-frontmatter' });
function frontMatterLines(state: EditorState): DecorationSet {
  const end = frontMatterEnd(state);
  if (!end) return Decoration.none;
  const b = new RangeSetBuilder<Decoration>();
  for (let n = 1; n <= state.doc.lineAt(end).number; n++) b.add(state.doc.line(n).from, state.doc.line(n).from, fmLine);
  return b.finish();
}
const frontMatter = StateField.define<DecorationSet>({
  create: frontMatterLines,
  update: (d, tr) => (tr.docChanged ? frontMatterLines(tr.state) : d),
  provide: (f) => EditorView.decorations.from(f),
});

const theme = EditorView.theme({
  '.cm-frontmatter': { fontFamily: 'var(--mono)', fontSize: '0.86em', color: 'var(--fg-muted)', backgroundColor: 'var(--bg-subtle)' },
  '.cm-frontmatter span': { fontSize: 'inherit !important', fontWeight: 'inherit !important', color: 'inherit !important', textDecoration: 'none !important' },
  '&': { height: '100%', color: 'var(--fg)', backgroundColor: 'var(--bg-panel)', fontSize: '13.5px' },
  '.cm-scroller': { fontFamily: 'var(--font)', lineHeight: '1.6', overflow: 'auto' },
  '.cm-content': { padding: '14px 0 40vh', caretColor: 'var(--accent)', maxWidth: '820px' },
  '.cm-line': { padding: '0 20px 0 12px' },
  '&.cm-focused': { outline: 'none' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--accent)', borderLeftWidth: '2px' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--accent-soft) !important',
  },
  '.cm-activeLine': { backgroundColor: 'var(--bg-hover)' },
  '.cm-gutters': { backgroundColor: 'var(--bg-panel)', color: 'var(--fg-subtle)', border: 'none', fontFamily: 'var(--mono)', fontSize: '11px' },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 4px 0 10px', minWidth: '34px' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent', color: 'var(--fg-muted)' },
  '.cm-selectionMatch': { backgroundColor: 'var(--mark-bg)' },
  '.cm-searchMatch': { backgroundColor: 'var(--mark-bg)', outline: '1px solid var(--warn)' },
  '.cm-searchMatch.cm-searchMatch-selected': { backgroundColor: 'var(--accent-soft)' },
  '.cm-panels': { backgroundColor: 'var(--bg-subtle)', color: 'var(--fg)', borderColor: 'var(--border)' },
  '.cm-panels.cm-panels-top': { borderBottom: '1px solid var(--border)' },
  '.cm-panel.cm-search': { padding: '6px 10px', fontSize: '12px' },
  '.cm-tooltip': { backgroundColor: 'var(--bg-elev)', border: '1px solid var(--border-strong)', borderRadius: '6px', color: 'var(--fg)' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: 'var(--font)', fontSize: '12.5px', maxHeight: '16em' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent-soft)', color: 'var(--fg)' },
  '.cm-completionDetail': { color: 'var(--fg-subtle)', fontStyle: 'normal', marginLeft: '8px', fontSize: '11px' },
  '.cm-panel.cm-search input, .cm-panel.cm-search button, .cm-panel.cm-search label': { fontSize: '12px' },
  '.cm-textfield': { border: '1px solid var(--border-strong)', borderRadius: '4px', background: 'var(--bg-panel)', color: 'var(--fg)' },
  // A heading's fold arrow: shown while the pointer is over the gutter, and always once folded.
  '.cm-foldGutter .cm-gutterElement': {
    cursor: 'pointer',
    padding: '0 2px 0 6px',
    fontFamily: 'var(--font)',
    fontSize: '14px',
    display: 'flex',
    flexDirection: 'column',
    justifyContent: 'center', // beside the heading's text, whatever its size and spacing
  },
  '.cm-fold-marker': { opacity: '0', transition: 'opacity 0.15s' },
  '.cm-gutters:hover .cm-fold-marker, .cm-fold-marker.closed': { opacity: '1' },
  '.cm-button': { backgroundImage: 'none', background: 'var(--bg-elev)', border: '1px solid var(--border-strong)', borderRadius: '4px', color: 'var(--fg)' },
});

// GFM and ==highlight== (mdsyntax.ts), as a language of its own: the
// package's markdown() would bring its keymap (lists.ts has the list keys)
// and an HTML language for inline tags (180 KB more in this bundle).
const markdown = new LanguageSupport(
  new Language(markdownLanguage.data, (markdownLanguage.parser as MarkdownParser).configure([Highlight, CjkEmphasis]), [], 'markdown'),
  [headingFolds],
);

/** A fold arrow of the gutter: open (⌄, fold it) or closed (›, unfold it). */
function foldMarker(open: boolean): HTMLElement {
  const s = document.createElement('span');
  s.className = 'cm-fold-marker';
  if (!open) s.classList.add('closed');
  s.textContent = open ? '⌄' : '›';
  s.title = open ? m.editor_cm_fold_line() : m.editor_cm_unfold_line();
  return s;
}

// ---- the interface's language -----------------------------------------------------

/** CodeMirror's phrases (its English words as keys) in the interface's language. */
export function phrases(): Record<string, string> {
  return {
    Find: m.editor_cm_find(),
    Replace: m.editor_cm_replace(),
    next: m.editor_cm_next(),
    previous: m.editor_cm_previous(),
    all: m.editor_cm_all(),
    'match case': m.editor_cm_match_case(),
    regexp: m.editor_cm_regexp(),
    'by word': m.editor_cm_by_word(),
    replace: m.editor_cm_replace_one(),
    'replace all': m.editor_cm_replace_all(),
    close: m.editor_cm_close(),
    'current match': m.editor_cm_current_match(),
    'on line': m.editor_cm_on_line(),
    'replaced $ matches': m.editor_cm_replaced_matches(),
    'replaced match on line $': m.editor_cm_replaced_match_on_line(),
    'Go to line': m.editor_cm_go_to_line(),
    go: m.editor_cm_go(),
    Completions: m.editor_cm_completions(),
    'Selection deleted': m.editor_cm_selection_deleted(),
    'Control character': m.editor_cm_control_character(),
    'Fold line': m.editor_cm_fold_line(),
    'Unfold line': m.editor_cm_unfold_line(),
    'folded code': m.editor_cm_folded(),
    unfold: m.editor_cm_unfold(),
  };
}

const language = new Compartment();
const byLocale = new Map<string, Extension>();

/** The phrases and the text's label for the locale in use (one extension per locale, so a state's can be compared). */
function languageExt(): Extension {
  const l = locale();
  let ext = byLocale.get(l);
  if (!ext) {
    ext = [EditorState.phrases.of(phrases()), EditorView.contentAttributes.of({ 'aria-label': m.editor_note_text() })];
    byLocale.set(l, ext);
  }
  return ext;
}

/** A state in the interface's language (a tab's state kept while the language changed). */
export function localizeState(state: EditorState): EditorState {
  const ext = languageExt();
  if (language.get(state) === ext) return state;
  return state.update({ effects: language.reconfigure(ext) }).state;
}

/** The notes changed (or the language): the unresolved links are marked again. */
export function remarkLinks(view: EditorView): void {
  view.dispatch({ effects: refreshLinks.of(null) });
}

/** Puts a view into the interface's language; an open search panel is opened again to take the new words. */
export function localize(view: EditorView): void {
  const ext = languageExt();
  if (language.get(view.state) === ext) return;
  const open = searchPanelOpen(view.state);
  const focused = open && typeof document !== 'undefined' ? document.activeElement : null;
  if (open) closeSearchPanel(view);
  view.dispatch({ effects: language.reconfigure(ext) });
  if (open) {
    openSearchPanel(view);
    if (focused instanceof HTMLElement && focused.isConnected) focused.focus();
  }
}

// ---- source or live preview ------------------------------------------------------

const mode = new Compartment();
let sourceExt: Extension | null = null;
let liveExt: Extension | null = null;
/** The extensions of a mode (one each, so a state's can be compared): line numbers in source, live preview (livepreview.ts) in live. */
function modeExt(live: boolean): Extension {
  if (live) return (liveExt ??= livePreview());
  return (sourceExt ??= [lineNumbers(), highlightActiveLineGutter()]);
}

/** Whether a state shows live preview. */
export function isLive(state: EditorState): boolean {
  return mode.get(state) === modeExt(true);
}

/** A state in source or live preview (the same state when it is already). */
export function withLive(state: EditorState, live: boolean): EditorState {
  if (isLive(state) === live) return state;
  return state.update({ effects: mode.reconfigure(modeExt(live)) }).state;
}

/** Switches a view between source and live preview; its text, undo history and selection stay. */
export function setLive(view: EditorView, live: boolean): void {
  if (isLive(view.state) === live) return;
  view.dispatch({ effects: mode.reconfigure(modeExt(live)) });
}

/** A new editor state for a note (one per tab: undo history and selection survive switching tabs). */
export function makeState(doc: string, hooks: EditorHooks, live = false): EditorState {
  return EditorState.create({
    doc,
    extensions: [
      mode.of(modeExt(live)),
      liveHooks.of(hooks),
      history(),
      drawSelection(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      search({ top: true }),
      EditorView.lineWrapping,
      EditorState.allowMultipleSelections.of(false),
      markdown,
      frontMatter,
      blockHighlighting(highlight), // syntaxHighlighting, redrawn only where an edit changed the note
      // A heading's section folds: its arrow shows when the pointer is over the gutter (theme), Ctrl+Shift+[ and ] from the keyboard.
      foldGutter({ markerDOM: foldMarker }),
      theme,
      autocompletion({ override: [linkSource(hooks), tagSource(hooks)], icons: false }),
      linkClicks(hooks),
      listKeymap(),
      tags(),
      hooks.resolveLink ? unresolvedLinks(hooks.resolveLink, () => m.notes_ln_unresolved_title_editor()) : [],
      writing(hooks), // paste and drop, outline, word count, Ctrl+H (writing.ts)
      keymap.of([
        ...(hooks.rename ? [{ key: 'F2', run: () => (hooks.rename?.(), true) }] : []),
        ...FORMAT_KEYS.map(({ key, what }) => ({ key, run: (v: EditorView) => format(v, what), preventDefault: true })),
        ...completionKeymap,
        ...foldKeymap, ...searchKeymap, ...historyKeymap, ...defaultKeymap]),
      EditorView.contentAttributes.of({ spellcheck: 'true' }),
      language.of(languageExt()),
      EditorView.updateListener.of((u: ViewUpdate) => {
        if (u.docChanged && !u.transactions.some((tr) => tr.annotation(external))) hooks.change(u.state.doc);
        if (u.docChanged || u.selectionSet) hooks.select(selectionOf(u.state));
      }),
    ],
  });
}

export function selectionOf(state: EditorState): { text: string; fromLine: number; toLine: number } | null {
  const r = state.selection.main;
  if (r.empty) return null;
  const from = state.doc.lineAt(r.from).number;
  let to = state.doc.lineAt(r.to).number;
  // A selection ending at the start of a line does not take that line.
  if (to > from && state.doc.line(to).from === r.to) to--;
  return { text: state.sliceDoc(r.from, r.to), fromLine: from, toLine: to };
}

/** Puts the cursor at the start of a line (1-based, clamped) and scrolls it to the middle. */
export function gotoLine(view: EditorView, line: number): void {
  const n = Math.min(Math.max(1, line), view.state.doc.lines);
  const pos = view.state.doc.line(n).from;
  view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
  view.focus();
}

export function makeView(parent: HTMLElement, state: EditorState): EditorView {
  return new EditorView({ state, parent });
}

/**
 * Puts text into the editor as one change covering only what differs
 * (common start and end kept), so the cursor, the selection and the
 * scroll position stay where they were as far as possible.
 */
export function replaceDoc(view: EditorView, text: string): void {
  const state = view.state;
  const cur = state.doc.toString();
  if (cur === text) return;
  view.dispatch(replaceSpec(cur, text));
}

/** The same change for a state not in a view (a background tab). */
export function replaceState(state: EditorState, text: string): EditorState {
  const cur = state.doc.toString();
  if (cur === text) return state;
  return state.update(replaceSpec(cur, text)).state;
}

function replaceSpec(cur: string, text: string) {
  let start = 0;
  const max = Math.min(cur.length, text.length);
  while (start < max && cur.charCodeAt(start) === text.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && cur.charCodeAt(cur.length - 1 - end) === text.charCodeAt(text.length - 1 - end)) end++;
  return {
    changes: { from: start, to: cur.length - end, insert: text.slice(start, text.length - end) },
    annotations: external.of(true),
  };
}

// ---- an agent's changes to review, marked ---------------------------------------

/** Lines (1-based, inclusive) an agent changed that are not reviewed yet. */
export interface LineRange {
  from: number;
  to: number;
}

const setAgentLines = StateEffect.define<LineRange[]>();
const agentLine = Decoration.line({ class: 'cm-agent-change' });

const agentLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setAgentLines)) continue;
      const b = new RangeSetBuilder<Decoration>();
      const doc = tr.state.doc;
      const seen = new Set<number>();
      const lines = e.value.flatMap((r) => Array.from({ length: Math.max(0, r.to - r.from + 1) }, (_, i) => r.from + i));
      for (const n of lines.sort((a, b) => a - b)) {
        if (n < 1 || n > doc.lines || seen.has(n)) continue;
        seen.add(n);
        const line = doc.line(n);
        b.add(line.from, line.from, agentLine);
      }
      deco = b.finish();
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Marks the lines of an agent's changes still to review (none: clears). */
export function markAgentLines(view: EditorView, ranges: LineRange[]): void {
  const effects: StateEffect<unknown>[] = [setAgentLines.of(ranges)];
  if (view.state.field(agentLines, false) === undefined) {
    if (ranges.length === 0) return;
    effects.unshift(StateEffect.appendConfig.of(agentLines));
  }
  view.dispatch({ effects });
}
