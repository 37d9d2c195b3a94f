// Live preview of a note in the editor (Obsidian's and Typora's way of
// writing): the Markdown shows rendered, its markup hidden, except on the
// lines the cursor or the selection is on, where the text is as typed.
// Headings sized (`#` hidden), bold / italic / strike / inline code with
// their marks hidden, links and [[wikilinks]] as links (a plain click
// follows them; the ones no note answers are marked by cmlinks.ts),
// images inline, task boxes as checkboxes (a click ticks: an undoable
// edit), bullets as dots, fenced code as highlighted blocks, block quotes
// and callouts (`> [!note]`) styled, rules drawn, and tables rendered as
// tables while the cursor is outside them.
//
// Built on the Markdown syntax tree (lezer) with CodeMirror decorations:
// inline ones from a view plugin over the visible ranges only (a
// 5,000-line note costs what its screen costs), tables (block widgets)
// from a state field over the top-level blocks. An edit or a move to
// another line draws again only the blocks it changed (lib/blocks.ts) and
// maps the rest: a keystroke costs its paragraph. While an IME composes,
// nothing is rebuilt: the decorations are only mapped through the edit, so
// the composing line is never redrawn under the IME.

import { syntaxTree } from '@codemirror/language';
import { type ChangeDesc, Facet, type EditorState, type Extension, type Range, StateEffect, StateField } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate, WidgetType } from '@codemirror/view';
import type { SyntaxNode, SyntaxNodeRef, Tree } from '@lezer/common';
import { redrawBlocks } from './blocks';
import { TAG_CLASS } from './cmlinks';
import { highlight } from './highlight';
import { m } from './i18n.svelte';
import { linkAt, linksInLine, wikiParts, type LineLink } from './links';
import { frontMatterEnd } from './outline';
import { anchorLink, CALLOUT_KINDS, embedTarget, isLocalPath, localImageSrc, renderMarkdown, safeImageSrc } from './markdown';
import { toggleLine } from './tasks';
import { embedKind, embedSize } from './unresolved';

/** What live preview asks of the app: following links, an image's URL. */
export interface LiveHooks {
  openLink?(link: LineLink): void;
  openTag?(tag: string): void;
  /** A URL for an image of the notes folder the note names (relative to the note; null: not shown), as the preview loads them. */
  imageURL?(href: string): Promise<string | null>;
  /** A URL for the image an embed ![[target]] names (found as a link is: by name in the folder; null: not shown). */
  embedURL?(target: string): Promise<string | null>;
  /** Shows the notes that embeds of rendered Markdown under root name (their a.md-embed-note links), as the preview does. */
  showEmbeds?(root: HTMLElement): void;
}

/** The hooks of a state (set by makeState). */
export const liveHooks = Facet.define<LiveHooks, LiveHooks>({ combine: (v) => v[0] ?? {} });

/** Redraw (a composition ended). */
const refresh = StateEffect.define<null>();

// ---- which lines show their markup ------------------------------------------------

/** The lines (numbers) the selection touches: their markup shows. */
function activeLines(state: EditorState): Set<number> {
  const out = new Set<number>();
  for (const r of state.selection.ranges) {
    const a = state.doc.lineAt(r.from).number;
    const b = state.doc.lineAt(r.to).number;
    for (let n = a; n <= b && n - a < 2000; n++) out.add(n);
  }
  return out;
}

function touches(state: EditorState, active: Set<number>, from: number, to: number): boolean {
  const a = state.doc.lineAt(from).number;
  const b = state.doc.lineAt(to).number;
  for (let n = a; n <= b; n++) if (active.has(n)) return true;
  return false;
}

// ---- widgets ------------------------------------------------------------------------

class TaskBoxWidget extends WidgetType {
  constructor(readonly checked: boolean) {
    super();
  }
  override eq(o: TaskBoxWidget): boolean {
    return o.checked === this.checked;
  }
  toDOM(view: EditorView): HTMLElement {
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.className = 'cm-lp-task';
    box.checked = this.checked;
    box.tabIndex = -1;
    box.title = m.editor_task_toggle();
    box.addEventListener('mousedown', (e) => {
      e.preventDefault();
      e.stopPropagation();
      toggleTaskAt(view, view.posAtDOM(box));
    });
    box.addEventListener('click', (e) => e.preventDefault()); // the box shows what the text says
    return box;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

/** Ticks or unticks the task on the line at pos (an undoable edit, like typing). */
export function toggleTaskAt(view: EditorView, pos: number): boolean {
  const line = view.state.doc.lineAt(pos);
  const e = toggleLine(line.text);
  if (!e) return false;
  view.dispatch({ changes: { from: line.from + e.col, to: line.from + e.col + 1, insert: e.insert }, userEvent: 'input.task' });
  return true;
}

class BulletWidget extends WidgetType {
  override eq(): boolean {
    return true;
  }
  toDOM(): HTMLElement {
    const s = document.createElement('span');
    s.className = 'cm-lp-bullet';
    s.textContent = '•';
    return s;
  }
}
const bullet = Decoration.replace({ widget: new BulletWidget() });

/**
 * An image: one of the notes folder (a relative path) loads through the
 * app (imageURL), others by the preview's rule (safeImageSrc); an embed
 * ![[target]] (embed set: href is its target) by the name (embedURL), at
 * the width it gives.
 */
class ImageWidget extends WidgetType {
  constructor(
    readonly href: string,
    readonly alt: string,
    readonly embed = false,
    readonly width = 0,
  ) {
    super();
  }
  override eq(o: ImageWidget): boolean {
    return o.href === this.href && o.alt === this.alt && o.embed === this.embed && o.width === this.width;
  }
  toDOM(view: EditorView): HTMLElement {
    const missing = () => {
      const s = document.createElement('span');
      s.className = 'cm-lp-img-missing';
      s.textContent = '🖼 ' + (this.alt || m.editor_lp_image());
      return s;
    };
    const hooks = view.state.facet(liveHooks);
    const local = this.embed || isLocalPath(this.href);
    const src = local ? null : safeImageSrc(this.href);
    const load = this.embed ? hooks.embedURL : hooks.imageURL;
    if (!local && src === null) return missing();
    if (local && !load) return missing();
    // The widget's own element stays what toDOM returned: the editor
    // reads an element of the line replaced under it as typed text (the
    // note's "![[a.png]]" became "🖼 a.png", and was saved so). A failed
    // load changes only what is inside it.
    const box = document.createElement('span');
    box.className = 'cm-lp-imgbox';
    const img = document.createElement('img');
    img.className = 'cm-lp-img';
    img.alt = this.alt;
    if (this.width) img.width = this.width;
    img.loading = 'lazy';
    img.referrerPolicy = 'no-referrer';
    img.addEventListener('load', () => view.requestMeasure());
    box.append(img);
    if (src !== null) img.src = src;
    else
      void load?.(this.href).then((url) => {
        if (url) img.src = url;
        else box.replaceChildren(missing());
      });
    return box;
  }
}

class LabelWidget extends WidgetType {
  constructor(
    readonly text: string,
    readonly cls: string,
  ) {
    super();
  }
  override eq(o: LabelWidget): boolean {
    return o.text === this.text && o.cls === this.cls;
  }
  toDOM(): HTMLElement {
    const s = document.createElement('span');
    s.className = this.cls;
    s.textContent = this.text;
    return s;
  }
}

class TableWidget extends WidgetType {
  constructor(readonly text: string) {
    super();
  }
  override eq(o: TableWidget): boolean {
    return o.text === this.text;
  }
  override get estimatedHeight(): number {
    return this.text.split('\n').length * 29;
  }
  toDOM(view: EditorView): HTMLElement {
    const d = document.createElement('div');
    d.className = ['cm-lp-table', 'md'].join(' ');
    d.innerHTML = renderMarkdown(this.text); // sanitized by the renderer
    const hooks = view.state.facet(liveHooks);
    // Images of the notes folder (and embeds) load through the app, as inline ones do.
    for (const img of d.querySelectorAll('img')) {
      const href = localImageSrc(img);
      const target = href === null ? embedTarget(img) : null;
      if (href === null && target === null) continue;
      const missing = () => img.replaceWith(Object.assign(document.createElement('span'), { className: 'cm-lp-img-missing', textContent: '🖼 ' + (img.alt || m.editor_lp_image()) }));
      const load = href !== null ? hooks.imageURL?.bind(hooks, href) : hooks.embedURL?.bind(hooks, target ?? '');
      if (!load) missing();
      else
        void load().then((url) => {
          if (url) img.setAttribute('src', url);
          else missing();
        });
    }
    d.addEventListener('mousedown', (e) => {
      e.preventDefault();
      // A plain click on a link follows it, as on a line; elsewhere it puts the cursor in the table.
      const a = (e.target as Element | null)?.closest?.('a');
      const link = a && e.button === 0 && !(e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) ? anchorLink(a) : null;
      if (link && hooks.openLink) {
        hooks.openLink(link);
        return;
      }
      const pos = view.posAtDOM(d);
      view.dispatch({ selection: { anchor: pos } });
      view.focus();
    });
    d.addEventListener('click', (e) => e.preventDefault()); // links never navigate the page
    return d;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

// ---- fenced code, highlighted -------------------------------------------------------

const codeCache = new Map<string, { from: number; to: number; cls: string }[]>();

/** The highlighted runs of a code block (offsets in its text), from highlight.js's HTML. */
function codeRuns(code: string, lang: string): { from: number; to: number; cls: string }[] {
  const key = lang + '\u0000' + code;
  const hit = codeCache.get(key);
  if (hit) return hit;
  const runs: { from: number; to: number; cls: string }[] = [];
  const html = code.length <= 32 * 1024 ? highlight(code, lang.toLowerCase()) : null;
  if (html !== null) {
    const stack: { cls: string; from: number }[] = [];
    let pos = 0;
    const re = /<span class="([^"]*)">|<\/span>|&(amp|lt|gt|quot|#x27|#39);|[^<&]+/g;
    for (const t of html.matchAll(re)) {
      if (t[1] !== undefined) stack.push({ cls: t[1], from: pos });
      else if (t[0] === '</span>') {
        const s = stack.pop();
        if (s && pos > s.from) runs.push({ from: s.from, to: pos, cls: s.cls });
      } else if (t[2] !== undefined) pos += 1;
      else pos += t[0].length;
    }
  }
  if (codeCache.size > 200) codeCache.clear();
  codeCache.set(key, runs);
  return runs;
}

// ---- the inline decorations ------------------------------------------------------------

const hide = Decoration.replace({});
const CALLOUT = /^(\s*(?:>\s*)+)\[!([A-Za-z-]+)\][-+]?\s*(.*)$/;

interface Ctx {
  state: EditorState;
  /** Where the note's front matter ends (0: none): nothing in it is drawn as Markdown. */
  fm: number;
  active: Set<number>;
  out: Range<Decoration>[];
  lines: Map<number, string[]>;
  seen: Set<string>;
}

function lineClass(c: Ctx, pos: number, cls: string): void {
  const from = c.state.doc.lineAt(pos).from;
  const l = c.lines.get(from);
  if (l) {
    if (!l.includes(cls)) l.push(cls);
  } else c.lines.set(from, [cls]);
}

function linesOf(c: Ctx, from: number, to: number, fn: (lineFrom: number, n: number, i: number, last: number) => void): void {
  const a = c.state.doc.lineAt(from).number;
  const b = c.state.doc.lineAt(to).number;
  for (let n = a; n <= b; n++) fn(c.state.doc.line(n).from, n, n - a, b - a);
}

function hideRange(c: Ctx, from: number, to: number): void {
  if (to > from) c.out.push(hide.range(from, to));
}

/** A mark node's range plus the space after it (a heading's `# `, a quote's `> `). */
function withSpace(c: Ctx, n: SyntaxNode): number {
  return c.state.sliceDoc(n.to, n.to + 1) === ' ' ? n.to + 1 : n.to;
}

function onNode(c: Ctx, ref: SyntaxNodeRef): boolean | void {
  const { state, active } = c;
  const name = ref.name;
  // Containers are entered once per visible range; what is drawn, once.
  if (name === 'Document' || name === 'Paragraph' || name === 'BulletList' || name === 'OrderedList' || name === 'ListItem') return;
  if (ref.from < c.fm) return false; // front matter: its "---" and "key: value" lines are no rule or heading
  const key = name + ':' + ref.from;
  if (c.seen.has(key)) return false;
  c.seen.add(key);
  const node = ref.node;
  const h = /^ATXHeading(\d)$/.exec(name);
  if (h) {
    lineClass(c, ref.from, 'cm-lp-h cm-lp-h' + h[1]);
    if (!touches(state, active, ref.from, ref.to)) {
      const marks = node.getChildren('HeaderMark');
      for (const [i, mk] of marks.entries()) {
        if (i === 0) hideRange(c, mk.from, withSpace(c, mk));
        else hideRange(c, state.sliceDoc(mk.from - 1, mk.from) === ' ' ? mk.from - 1 : mk.from, mk.to);
      }
    }
    return;
  }
  switch (name) {
    case 'Emphasis':
    case 'StrongEmphasis':
    case 'Strikethrough':
    case 'Highlight': // ==text== (mdsyntax.ts)
      if (!touches(state, active, ref.from, ref.to)) {
        const mark = name === 'Strikethrough' ? 'StrikethroughMark' : name === 'Highlight' ? 'HighlightMark' : 'EmphasisMark';
        for (const mk of node.getChildren(mark)) hideRange(c, mk.from, mk.to);
      }
      return;
    case 'InlineCode': {
      const marks = node.getChildren('CodeMark');
      const from = marks[0]?.to ?? ref.from;
      const to = marks.length > 1 ? marks[marks.length - 1].from : ref.to;
      if (to > from) c.out.push(Decoration.mark({ class: 'cm-lp-icode' }).range(from, to));
      if (!touches(state, active, ref.from, ref.to)) for (const mk of marks) hideRange(c, mk.from, mk.to);
      return false;
    }
    case 'Link': {
      const url = node.getChild('URL');
      const marks = node.getChildren('LinkMark');
      // [x] alone (no URL): a reference, or half of a [[wikilink]] (handled per line).
      if (!url || marks.length < 2) return false;
      const textFrom = marks[0].to;
      const textTo = marks[1].from;
      if (textTo <= textFrom) return false;
      c.out.push(Decoration.mark({ class: 'cm-lp-link', attributes: { 'data-href': state.sliceDoc(url.from, url.to) } }).range(textFrom, textTo));
      if (!touches(state, active, ref.from, ref.to)) {
        hideRange(c, ref.from, textFrom);
        hideRange(c, textTo, ref.to);
      }
      return;
    }
    case 'Image': {
      const url = node.getChild('URL');
      const marks = node.getChildren('LinkMark');
      if (!url) return false;
      const alt = marks.length > 1 ? state.sliceDoc(marks[0].to, marks[1].from) : '';
      const widget = new ImageWidget(state.sliceDoc(url.from, url.to), alt);
      if (touches(state, active, ref.from, ref.to)) c.out.push(Decoration.widget({ widget, side: 1 }).range(ref.to));
      else c.out.push(Decoration.replace({ widget }).range(ref.from, ref.to));
      return false;
    }
    case 'URL':
      if (node.parent && (node.parent.name === 'Link' || node.parent.name === 'Image' || node.parent.name === 'LinkReference')) return;
      c.out.push(Decoration.mark({ class: 'cm-lp-link', attributes: { 'data-href': state.sliceDoc(ref.from, ref.to) } }).range(ref.from, ref.to));
      return;
    case 'ListMark': {
      const item = node.parent;
      if (!item || touches(state, active, ref.from, ref.to)) return;
      const task = item.getChild('Task'); // i18n-ignore: a syntax node's name
      if (task && task.from <= withSpace(c, node) + 1) {
        hideRange(c, ref.from, withSpace(c, node));
        return;
      }
      if (item.parent?.name === 'BulletList') c.out.push(bullet.range(ref.from, ref.to));
      return;
    }
    case 'Task': {
      const mk = node.getChild('TaskMarker');
      if (!mk) return;
      const checked = /x/i.test(state.sliceDoc(mk.from, mk.to));
      const head = state.selection.main.head;
      if (!(head > mk.from && head < mk.to)) c.out.push(Decoration.replace({ widget: new TaskBoxWidget(checked) }).range(mk.from, mk.to));
      if (checked && ref.to > mk.to + 1) c.out.push(Decoration.mark({ class: 'cm-lp-done' }).range(mk.to + 1, ref.to));
      return;
    }
    case 'Blockquote': {
      // Nested in another quote or callout: an inner bar (and, for a callout, its colour and title) inside the outer one.
      let depth = 1;
      for (let p = node.parent; p; p = p.parent) if (p.name === 'Blockquote') depth++;
      const first = state.doc.lineAt(ref.from);
      const cm = CALLOUT.exec(first.text);
      const callout = cm && (cm[1].match(/>/g)?.length ?? 0) === depth ? cm : null;
      const kind = callout ? (CALLOUT_KINDS.has(callout[2].toLowerCase()) ? callout[2].toLowerCase() : 'note') : '';
      const nested = depth > 1;
      linesOf(c, ref.from, ref.to, (lf, _n, i, last) => {
        if (nested) {
          lineClass(c, lf, 'cm-lp-inner');
          if (callout) lineClass(c, lf, 'cm-lp-inner-' + kind);
          return;
        }
        lineClass(c, lf, callout ? 'cm-lp-callout' : 'cm-lp-quote');
        if (callout) lineClass(c, lf, 'cm-lp-callout-' + kind);
        if (i === 0) lineClass(c, lf, 'cm-lp-quote-first');
        if (i === last) lineClass(c, lf, 'cm-lp-quote-last');
      });
      if (callout && !active.has(first.number)) {
        const from = first.from + callout[1].length;
        const to = first.from + first.text.length - callout[3].length;
        const label = callout[3] ? '' : callout[2][0].toUpperCase() + callout[2].slice(1).toLowerCase();
        lineClass(c, first.from, nested ? 'cm-lp-inner-title' : 'cm-lp-callout-title');
        c.out.push(Decoration.replace({ widget: new LabelWidget(label, 'cm-lp-callout-label') }).range(from, to));
      }
      return;
    }
    case 'QuoteMark':
      if (!touches(state, active, ref.from, ref.to)) hideRange(c, ref.from, withSpace(c, node));
      return;
    case 'HorizontalRule':
      lineClass(c, ref.from, 'cm-lp-hr');
      if (!touches(state, active, ref.from, ref.to)) hideRange(c, ref.from, ref.to);
      return false;
    case 'FencedCode': {
      const open = !touches(state, active, ref.from, ref.to);
      linesOf(c, ref.from, ref.to, (lf, _n, i, last) => {
        lineClass(c, lf, 'cm-lp-code');
        if (i === 0) lineClass(c, lf, 'cm-lp-code-first');
        if (i === last) lineClass(c, lf, 'cm-lp-code-last');
      });
      const info = node.getChild('CodeInfo');
      const lang = info ? state.sliceDoc(info.from, info.to).trim() : '';
      if (open) {
        const first = state.doc.lineAt(ref.from);
        const last = state.doc.lineAt(ref.to);
        c.out.push(Decoration.replace({ widget: new LabelWidget(lang, 'cm-lp-code-lang') }).range(first.from, first.to));
        lineClass(c, first.from, 'cm-lp-fence');
        if (last.number > first.number && /^\s*(`{3,}|~{3,})\s*$/.test(last.text)) {
          hideRange(c, last.from, last.to);
          lineClass(c, last.from, 'cm-lp-fence');
        }
      }
      const text = node.getChild('CodeText');
      if (text && lang) {
        for (const r of codeRuns(state.sliceDoc(text.from, text.to), lang)) {
          c.out.push(Decoration.mark({ class: r.cls }).range(text.from + r.from, text.from + r.to));
        }
      }
      return false;
    }
    case 'Table':
      linesOf(c, ref.from, ref.to, (lf) => lineClass(c, lf, 'cm-lp-table-src'));
      return false;
    case 'CodeBlock':
    case 'HTMLBlock':
    case 'CommentBlock':
      return false;
  }
}

function inCode(tree: Tree, pos: number): boolean {
  return inNode(tree, pos, ['InlineCode', 'FencedCode', 'CodeBlock']);
}

function inNode(tree: Tree, pos: number, names: readonly string[]): boolean {
  for (let n: SyntaxNode | null = tree.resolveInner(pos, 1); n; n = n.parent) {
    if (names.includes(n.name)) return true;
  }
  return false;
}

/** [[wikilinks]] of the lines in [from, to): shown as their target (or alias) and clickable. */
function wikilinks(c: Ctx, tree: Tree, from: number, to: number): void {
  const doc = c.state.doc;
  for (let pos = from; pos <= to; ) {
    const line = doc.lineAt(pos);
    pos = line.to + 1;
    if (line.text.indexOf('[[') < 0 || line.from < c.fm || c.seen.has('w:' + line.from)) continue;
    c.seen.add('w:' + line.from);
    const shown = !c.active.has(line.number);
    for (const l of linksInLine(line.text)) {
      if (l.kind !== 'wiki') continue;
      const a = line.from + l.from;
      const b = line.from + l.to;
      if (inCode(tree, a)) continue;
      const inner = line.text.slice(l.from + 2, l.to - 2);
      if (line.text[l.from - 1] === '!' && l.target) {
        // An embed: an image shown (in place of its markup, or after it
        // on the line being edited); a file or a note as its link.
        const kind = embedKind(l.target);
        if (kind === 'image') {
          if (shown && inNode(tree, a, ['Table'])) continue; // i18n-ignore: a syntax node's name (the drawn table shows it)
          const size = embedSize(l.alias);
          const name = l.target.slice(l.target.lastIndexOf('/') + 1);
          const widget = new ImageWidget(l.target, size ? name : l.alias || name, true, size?.width ?? 0);
          if (shown) c.out.push(Decoration.replace({ widget }).range(a - 1, b));
          else c.out.push(Decoration.widget({ widget, side: 1 }).range(b));
          continue;
        }
        if (shown) hideRange(c, a - 1, a);
      }
      const bar = inner.indexOf('|');
      const textFrom = bar >= 0 ? a + 2 + bar + 1 : a + 2;
      const textTo = b - 2;
      if (textTo <= textFrom) continue;
      c.out.push(Decoration.mark({ class: 'cm-lp-link cm-lp-wikilink' }).range(textFrom, textTo));
      if (shown) {
        hideRange(c, a, textFrom);
        hideRange(c, textTo, b);
      }
    }
  }
}

/**
 * The inline decorations of the given parts of the note: the visible
 * ranges, or the parts of them in the blocks an update changed (whole
 * blocks: what a block draws lies in its own lines).
 */
export function inlineDecorations(state: EditorState, ranges: readonly { from: number; to: number }[]): Range<Decoration>[] {
  const c: Ctx = {
    state,
    fm: frontMatterEnd(state),
    active: activeLines(state),
    out: [],
    lines: new Map(),
    seen: new Set(),
  };
  const tree = syntaxTree(state);
  for (const { from, to } of ranges) {
    tree.iterate({ from, to, enter: (ref) => onNode(c, ref) });
    wikilinks(c, tree, from, to);
  }
  for (const [from, cls] of c.lines) c.out.push(Decoration.line({ class: cls.join(' ') }).range(from));
  return c.out;
}

/** The inline decorations of the visible ranges, all drawn again. */
export function liveDecorations(state: EditorState, visible: readonly { from: number; to: number }[]): DecorationSet {
  return Decoration.set(inlineDecorations(state, visible), true);
}

/**
 * The decorations after an update, drawn again only where it changed
 * something (lib/blocks.ts): in the blocks it edited and the ones the
 * selection left, reached or moved in, within the visible ranges; mapped
 * elsewhere.
 * null: draw everything again (the tree is not complete, the front matter
 * ended elsewhere).
 */
export function updateLiveDecorations(
  deco: DecorationSet,
  start: EditorState,
  state: EditorState,
  changes: ChangeDesc,
  visible: readonly { from: number; to: number }[],
): DecorationSet | null {
  const fm = frontMatterEnd(start);
  if ((fm || frontMatterEnd(state)) && changes.mapPos(fm, 1) !== frontMatterEnd(state)) return null;
  // The selection's blocks too: the lines it left or reached show or hide their markup (a task box, the cursor in it).
  const selection = !changes.empty || !start.selection.eq(state.selection);
  return redrawBlocks(deco, start, state, changes, visible, selection, (r) => inlineDecorations(state, r));
}

const inline = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    private timer: ReturnType<typeof setTimeout> | null = null;
    private stale = false;

    constructor(readonly view: EditorView) {
      this.decorations = this.make();
    }

    private make(): DecorationSet {
      this.stale = false;
      return liveDecorations(this.view.state, this.view.visibleRanges);
    }

    /** Redraws soon, not while composing. */
    later(): void {
      if (this.timer) return;
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.view.composing || this.view.compositionStarted) return this.later();
        if (this.stale) this.view.dispatch({ effects: refresh.of(null) });
      }, 30);
    }

    update(u: ViewUpdate): void {
      const refreshed = u.transactions.some((tr) => tr.effects.some((e) => e.is(refresh)));
      if (u.view.composing || u.view.compositionStarted) {
        // Under an IME: keep everything where it is (mapped), redraw after.
        if (u.docChanged) this.decorations = this.decorations.map(u.changes);
        this.stale = true;
        return;
      }
      if (refreshed || this.stale || u.viewportMoved) {
        this.decorations = this.make();
        return;
      }
      if (!(u.selectionSet || u.docChanged || u.viewportChanged || syntaxTree(u.startState) !== syntaxTree(u.state))) return;
      // Only where the update changed something; everything when that cannot be told.
      this.decorations = updateLiveDecorations(this.decorations, u.startState, u.state, u.changes, u.view.visibleRanges) ?? this.make();
    }

    destroy(): void {
      if (this.timer) clearTimeout(this.timer);
    }
  },
  {
    decorations: (p) => p.decorations,
    eventHandlers: {
      compositionend(this: { later(): void }) {
        this.later();
      },
    },
  },
);

// ---- tables and note embeds (block widgets: from a state field) ------------------------

/** A note embedded on a line of its own (![[缓存设计]], ![[缓存设计#结果]]): the note under its link, as the preview shows it (LiveHooks.showEmbeds). */
class NoteEmbedWidget extends WidgetType {
  constructor(readonly inner: string) {
    super();
  }
  override eq(o: NoteEmbedWidget): boolean {
    return o.inner === this.inner;
  }
  override get estimatedHeight(): number {
    return 120;
  }
  toDOM(view: EditorView): HTMLElement {
    const d = document.createElement('div');
    d.className = ['cm-lp-embed', 'md'].join(' ');
    const p = wikiParts(this.inner);
    const a = document.createElement('a');
    a.className = ['md-wikilink', 'md-embed-note'].join(' ');
    a.setAttribute('data-wiki', this.inner);
    a.textContent = p.alias || (p.heading ? `${p.target} › ${p.heading}` : p.target);
    d.append(a);
    const hooks = view.state.facet(liveHooks);
    hooks.showEmbeds?.(d);
    new MutationObserver(() => view.requestMeasure()).observe(d, { childList: true, subtree: true });
    d.addEventListener('mousedown', (e) => {
      e.preventDefault();
      const link = (e.target as Element | null)?.closest?.('a');
      const wiki = link?.getAttribute('data-wiki');
      if (link && wiki !== null && wiki !== undefined && e.button === 0 && hooks.openLink) {
        hooks.openLink({ kind: 'wiki', from: 0, to: 0, ...wikiParts(wiki) });
        return;
      }
      view.dispatch({ selection: { anchor: view.posAtDOM(d) } });
      view.focus();
    });
    d.addEventListener('click', (e) => e.preventDefault());
    return d;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

const EMBED_LINE = /^!\[\[([^[\]\n]+?)\]\][ \t]*$/;

/** The rendered tables and note embeds among the top-level blocks in [from, to] (whole blocks): the ones the selection is not in. */
function tablesIn(state: EditorState, from: number, to: number, out: Range<Decoration>[]): void {
  const sel = state.selection.ranges;
  for (let n = syntaxTree(state).topNode.childAfter(from - 1); n && n.from <= to; n = n.nextSibling) {
    if (n.name !== 'Table' && n.name !== 'Paragraph') continue;
    const a = state.doc.lineAt(n.from).from;
    const b = state.doc.lineAt(n.to).to;
    if (sel.some((r) => r.to >= a && r.from <= b)) continue;
    if (n.name === 'Table') {
      out.push(Decoration.replace({ widget: new TableWidget(state.sliceDoc(a, b)), block: true }).range(a, b));
      continue;
    }
    const mt = b - a < 1000 && state.sliceDoc(a, a + 3) === '![[' ? EMBED_LINE.exec(state.sliceDoc(a, b)) : null;
    const target = mt ? wikiParts(mt[1]).target : '';
    if (mt && target && embedKind(target) === 'note') out.push(Decoration.replace({ widget: new NoteEmbedWidget(mt[1]), block: true }).range(a, b));
  }
}

/** The rendered tables of the whole note. */
export function tables(state: EditorState): DecorationSet {
  const out: Range<Decoration>[] = [];
  tablesIn(state, 0, state.doc.length, out);
  return Decoration.set(out);
}

/**
 * The rendered tables after an update: drawn again only in the blocks it
 * edited and the ones the selection left or reached (selection: it was
 * set), mapped elsewhere. null: look at the whole note again.
 */
export function updateTables(deco: DecorationSet, start: EditorState, state: EditorState, changes: ChangeDesc, selection: boolean): DecorationSet | null {
  return redrawBlocks(deco, start, state, changes, [{ from: 0, to: state.doc.length }], selection, (ranges) => {
    const out: Range<Decoration>[] = [];
    for (const r of ranges) tablesIn(state, r.from, r.to, out);
    return out;
  });
}

const tableField = StateField.define<DecorationSet>({
  create: tables,
  update(deco, tr) {
    if (!tr.docChanged && !tr.selection && syntaxTree(tr.state) === syntaxTree(tr.startState)) return deco;
    return updateTables(deco, tr.startState, tr.state, tr.changes, !!tr.selection) ?? tables(tr.state);
  },
  provide: (f) => EditorView.decorations.from(f),
});

// ---- clicks on links ---------------------------------------------------------------------

const linkClicks = EditorView.domEventHandlers({
  mousedown(e: MouseEvent, view: EditorView) {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return false;
    const tag = (e.target as HTMLElement | null)?.closest?.<HTMLElement>('.' + TAG_CLASS);
    const openTag = view.state.facet(liveHooks).openTag;
    // (On a line being edited a click only puts the cursor.)
    if (tag?.dataset.tag && openTag && !activeLines(view.state).has(view.state.doc.lineAt(view.posAtDOM(tag)).number)) {
      e.preventDefault();
      openTag(tag.dataset.tag);
      return true;
    }
    const el = (e.target as HTMLElement | null)?.closest?.('.cm-lp-link');
    if (!(el instanceof HTMLElement)) return false;
    const hooks = view.state.facet(liveHooks);
    if (!hooks.openLink) return false;
    const pos = view.posAtDOM(el);
    const line = view.state.doc.lineAt(pos);
    const link = linkAt(line.text, pos - line.from + 1) ?? (el.dataset.href ? ({ kind: 'md', from: 0, to: 0, href: el.dataset.href } as const) : null);
    if (!link) return false;
    e.preventDefault();
    hooks.openLink(link);
    return true;
  },
});

// ---- looks -------------------------------------------------------------------------------

const theme = EditorView.theme({
  '.cm-content': { padding: '18px 0 40vh' },
  '.cm-line': { padding: '0 28px' },
  '.cm-lp-h': { fontWeight: '700', lineHeight: '1.35' },
  '.cm-lp-h1': { fontSize: '1.75em', padding: '0.5em 28px 0.2em' },
  '.cm-lp-h2': { fontSize: '1.45em', padding: '0.45em 28px 0.15em' },
  '.cm-lp-h3': { fontSize: '1.25em', padding: '0.35em 28px 0.1em' },
  '.cm-lp-h4': { fontSize: '1.1em' },
  '.cm-lp-h5, .cm-lp-h6': { fontSize: '1em', color: 'var(--fg-muted)' },
  '.cm-lp-h span': { fontSize: 'inherit' },
  '.cm-lp-link': { color: 'var(--accent)', textDecoration: 'underline', textDecorationColor: 'color-mix(in srgb, var(--accent) 40%, transparent)', textUnderlineOffset: '3px', cursor: 'pointer' },
  '.cm-link-unresolved .cm-lp-link': { color: 'inherit', textDecoration: 'inherit' }, // cmlinks.ts styles the unresolved
  '.cm-lp-icode': { fontFamily: 'var(--mono)', fontSize: '0.9em', background: 'var(--bg-subtle)', borderRadius: '4px', padding: '1px 4px', color: 'var(--hl-string)' },
  '.cm-lp-task': { margin: '0 6px 0 0', verticalAlign: 'middle', width: '14px', height: '14px', cursor: 'pointer', accentColor: 'var(--accent)' },
  '.cm-lp-done': { color: 'var(--fg-subtle)', textDecoration: 'line-through' },
  '.cm-lp-bullet': { color: 'var(--fg-muted)', display: 'inline-block', width: '0.6em', textAlign: 'center', fontWeight: '700' },
  '.cm-lp-img': { maxWidth: '100%', maxHeight: '480px', verticalAlign: 'bottom', borderRadius: '4px', margin: '4px 0' },
  '.cm-lp-img-missing': { color: 'var(--fg-subtle)', fontStyle: 'italic' },
  '.cm-lp-quote': { borderLeft: '3px solid var(--border-strong)', paddingLeft: '14px !important', marginLeft: '28px', color: 'var(--fg-muted)' },
  '.cm-lp-callout': { borderLeft: '3px solid var(--lp-callout, var(--accent))', background: 'color-mix(in srgb, var(--lp-callout, var(--accent)) 9%, transparent)', paddingLeft: '14px !important', marginLeft: '28px', marginRight: '28px' },
  '.cm-lp-callout.cm-lp-quote-first': { borderTopRightRadius: '6px', paddingTop: '4px !important' },
  '.cm-lp-callout.cm-lp-quote-last': { borderBottomRightRadius: '6px', paddingBottom: '4px !important' },
  '.cm-lp-callout-title': { fontWeight: '650', color: 'var(--lp-callout, var(--accent))' },
  '.cm-lp-callout-label': { fontWeight: '650' },
  '.cm-lp-callout-warning, .cm-lp-callout-caution, .cm-lp-callout-attention': { '--lp-callout': 'var(--warn)' },
  '.cm-lp-callout-danger, .cm-lp-callout-error, .cm-lp-callout-failure, .cm-lp-callout-fail, .cm-lp-callout-bug, .cm-lp-callout-missing': { '--lp-callout': 'var(--err, #d9534f)' },
  '.cm-lp-callout-tip, .cm-lp-callout-hint, .cm-lp-callout-success, .cm-lp-callout-check, .cm-lp-callout-done': { '--lp-callout': 'var(--ok, #3fa46a)' },
  '.cm-lp-hr': { position: 'relative' },
  '.cm-lp-hr::after': { content: '""', position: 'absolute', left: '28px', right: '28px', top: '50%', borderTop: '1px solid var(--border-strong)' },
  '.cm-lp-code': { fontFamily: 'var(--mono)', fontSize: '0.9em', background: 'var(--bg-subtle)', marginLeft: '28px', marginRight: '28px', paddingLeft: '12px !important', paddingRight: '12px !important' },
  '.cm-lp-code-first': { borderTopLeftRadius: '6px', borderTopRightRadius: '6px', paddingTop: '4px !important' },
  '.cm-lp-code-last': { borderBottomLeftRadius: '6px', borderBottomRightRadius: '6px', paddingBottom: '4px !important' },
  '.cm-lp-code-lang': { float: 'right', color: 'var(--fg-subtle)', fontFamily: 'var(--font)' },
  '.cm-lp-table-src': { fontFamily: 'var(--mono)', fontSize: '0.9em' },
  '.cm-lp-table': { padding: '4px 28px', cursor: 'text', whiteSpace: 'normal' },
  '.cm-lp-embed': { padding: '2px 28px', cursor: 'text', whiteSpace: 'normal' },
  '.cm-lp-quote span, .cm-lp-callout span': { fontStyle: 'normal' },
  // A quote or callout inside another: its own bar inside the outer one (the outer's colour stays on the line).
  '.cm-lp-inner': { paddingLeft: '30px !important', backgroundImage: 'linear-gradient(to right, transparent 12px, var(--lp-inner, var(--border-strong)) 12px, var(--lp-inner, var(--border-strong)) 15px, transparent 15px)' },
  '.cm-lp-inner-title': { fontWeight: '650', color: 'var(--lp-inner, var(--accent))' },
  '.cm-lp-inner-note, .cm-lp-inner-info, .cm-lp-inner-important, .cm-lp-inner-question, .cm-lp-inner-help, .cm-lp-inner-faq, .cm-lp-inner-example, .cm-lp-inner-quote, .cm-lp-inner-cite, .cm-lp-inner-abstract, .cm-lp-inner-summary, .cm-lp-inner-tldr, .cm-lp-inner-todo': { '--lp-inner': 'var(--accent)' },
  '.cm-lp-inner-warning, .cm-lp-inner-caution, .cm-lp-inner-attention': { '--lp-inner': 'var(--warn)' },
  '.cm-lp-inner-danger, .cm-lp-inner-error, .cm-lp-inner-failure, .cm-lp-inner-fail, .cm-lp-inner-bug, .cm-lp-inner-missing': { '--lp-inner': 'var(--err, #d9534f)' },
  '.cm-lp-inner-tip, .cm-lp-inner-hint, .cm-lp-inner-success, .cm-lp-inner-check, .cm-lp-inner-done': { '--lp-inner': 'var(--ok, #3fa46a)' },
  '.cm-lp-fence': { fontSize: '11px', lineHeight: '1.5' },
  '.cm-lp-table table': { margin: '0' },
});

/** Live preview, for a state's mode compartment. */
export function livePreview(): Extension {
  return [inline, tableField, linkClicks, theme];
}
