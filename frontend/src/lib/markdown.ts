// Markdown → sanitized HTML.
//
// marked turns Markdown into HTML, raw HTML in the source is shown as text
// (only <br> passes), code blocks are highlighted and get a copy button,
// and DOMPurify, with a strict allow-list and hooks, has the last word: no
// scripts, styles, frames, forms, event handlers, or links other than
// http(s), mailto and relative ones. [[Wikilinks]] become
// <a class="md-wikilink" data-wiki="…"> (the inner text, shown text
// escaped) and relative links to .md notes <a class="md-notelink"
// data-note="…"> (the href as written): neither has an href, so neither can
// navigate; the chat and the notes preview open the note (handleMarkdownClick).
//
// Messages render block by block (top-level Markdown blocks), each block's
// HTML cached by its source, so a streaming message re-renders only its last
// block and a long transcript renders a message once however often it is
// scrolled past.
//
// The HTML carries interface text (the copy button, a code block's
// language when it has none, remote-image links) in the locale in use when
// it was rendered: the cache is per locale, and MarkdownStream.update reads
// the locale (so a $derived calling it re-runs) and renders again when it
// changed.

import { Marked, type Token, type Tokens } from 'marked';
import DOMPurify, { type Config } from 'dompurify';
import markedCjkFriendly from 'marked-cjk-friendly';
import { escapeHtml } from './html';
import { highlight } from './highlight';
import { locale, m } from './i18n.svelte';
import { isNoteHref, wikiParts, type LineLink } from './links';
import { joinsTight } from './cjk';
import { embedKind, embedSize } from './unresolved';
import { writePrefs } from './writeprefs.svelte';

export interface MarkdownOptions {
  /**
   * Load images from http(s) URLs. Off by default: an image URL written by an
   * agent (perhaps prompt-injected by a file it read) is fetched without a
   * click and can carry data out in its query string. When off, remote images
   * render as links.
   */
  remoteImages: boolean;
}

const options: MarkdownOptions = { remoteImages: false };

export function setMarkdownOptions(o: Partial<MarkdownOptions>): void {
  Object.assign(options, o);
  cache.clear();
}

// Line breaks: by default each line break inside a paragraph shows as one,
// as Obsidian does; with strict Markdown line breaks (the setting) a single
// one joins the lines, with nothing between two CJK characters and a space
// otherwise. The same rule as the Go renderer's (internal/inertmd).
let strictInUse = false;

/** The line-break mode in use (reactive: a $derived rendering Markdown re-runs when it changes). */
function strictBreaks(): boolean {
  const s = writePrefs.strictBreaks;
  if (s !== strictInUse) {
    strictInUse = s;
    md.setOptions({ breaks: !s });
  }
  return s;
}

// ---- URL rules ---------------------------------------------------------------
//
// A URL is judged by what the browser will make of it, not by its text:
// it is resolved against the page with the URL parser the browser uses
// (`/\host`, `\\host` and `//host` are other hosts; tabs and newlines
// vanish, so `java\tscript:` is javascript:). Images are written back in
// that resolved form, so what was checked is what loads.

/** src resolved against the page; null when it does not parse. */
function resolve(src: string): URL | null {
  try {
    return new URL(src, window.location.href);
  } catch {
    return null;
  }
}

/** The page's own scheme and host (this also holds for the window's custom scheme, whose origin is "null"). */
function sameOrigin(u: URL): boolean {
  const page = new URL(window.location.href);
  return u.protocol === page.protocol && u.host === page.host && u.host !== '';
}

function isWeb(u: URL): boolean {
  return u.protocol === 'http:' || u.protocol === 'https:';
}

/** http(s), mailto and links within the page's origin only. */
export function isSafeHref(href: string): boolean {
  const u = resolve(href);
  return u !== null && (isWeb(u) || u.protocol === 'mailto:' || sameOrigin(u));
}

const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp|avif);base64,[a-z0-9+/=\s]+$/i;

/**
 * The URL an image may load from, or null: data:image (raster), the page's
 * own origin, and any http(s) URL when remote images are on.
 */
export function safeImageSrc(src: string): string | null {
  const s = src.trim();
  if (DATA_IMAGE.test(s)) return s;
  const u = resolve(s);
  if (!u) return null;
  if (sameOrigin(u) || (isWeb(u) && options.remoteImages)) return u.href;
  return null;
}

export function isSafeImageSrc(src: string): boolean {
  return safeImageSrc(src) !== null;
}

/** A relative path with no scheme, host or query: a file beside the note (an attachment). */
export function isLocalPath(href: string): boolean {
  const h = href.trim();
  return h !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(h) && !/^[/\\]/.test(h) && !/[?#]/.test(h);
}

/** The relative path an image of the preview names (its data-src), null for another image. */
export function localImageSrc(img: Element): string | null {
  return img.classList.contains('md-local') ? img.getAttribute('data-src') : null;
}

/** An http(s) image from another origin: shown as a link when not loaded. */
function remoteURL(src: string): URL | null {
  const u = resolve(src.trim());
  return u && isWeb(u) && !sameOrigin(u) ? u : null;
}

// ---- marked ------------------------------------------------------------------

/** Code blocks longer than this are shown without highlighting. */
export const MAX_HIGHLIGHT = 32 * 1024;

/** A top-level block longer than this is shown as plain text in pieces. */
export const HUGE_BLOCK = 64 * 1024;
/** While streaming, a paragraph longer than this grows as plain pieces
 * (lexing it again on every frame costs more the longer it gets); it is
 * rendered as Markdown once the message is complete. */
export const STREAM_PLAIN = 16 * 1024;
const PIECE = 8 * 1024;
/** Text that starts a Markdown block other than a paragraph. */
const BLOCK_START = /^\s{0,3}(#|>|[-*+]\s|\d+[.)]\s|```|~~~|\||<|={3,}|-{3,})/;

/** The most text a huge block grows by in one update (see update()). */
export const MAX_FRAME_APPEND = 32 * 1024;

/**
 * Plain-text pieces of a huge block, each its own element, so that a block
 * growing by appends only re-renders (and re-lays out) its last piece. The
 * pieces end at a space where possible; a finished piece never changes.
 */
export function plainPieces(raw: string, prev?: PlainPieces): string[] {
  return piecesOf(raw, prev).html;
}

/** The pieces of a huge block and where each ends, to extend them. */
export interface PlainPieces {
  raw: string;
  html: string[];
  ends: number[];
}

/** piecesOf is plainPieces keeping the boundaries: when raw extends
 * prev.raw, only the last piece and the new ones are built. */
export function piecesOf(raw: string, prev?: PlainPieces): PlainPieces {
  const out: string[] = [];
  const ends: number[] = [];
  let i = 0;
  if (prev && prev.html.length > 1 && raw.length >= prev.raw.length && raw.startsWith(prev.raw)) {
    // Every piece but the last is final.
    out.push(...prev.html.slice(0, -1));
    ends.push(...prev.ends.slice(0, -1));
    i = ends[ends.length - 1];
  }
  while (i < raw.length) {
    let end = Math.min(raw.length, i + PIECE);
    if (end < raw.length) {
      const sp = raw.lastIndexOf(' ', end);
      if (sp > i + PIECE / 2) end = sp + 1;
      else if (end < raw.length && /[\uDC00-\uDFFF]/.test(raw[end])) end--; // keep surrogate pairs whole
    }
    out.push('<p class="md-plain">' + escapeHtml(raw.slice(i, end)) + '</p>');
    ends.push(end);
    i = end;
  }
  return { raw, html: out, ends };
}

function codeBlock(text: string, lang: string): string {
  const language = (lang.match(/^\S*/)?.[0] ?? '').toLowerCase();
  // Highlighting a very long block would hold the page for seconds.
  const body = (text.length <= MAX_HIGHLIGHT ? highlight(text, language) : undefined) ?? escapeHtml(text);
  const cls = language ? ` language-${escapeHtml(language.replace(/[^\w+-]/g, ''))}` : '';
  return (
    '<div class="code-block">' +
    '<div class="code-head">' +
    `<span class="code-lang">${escapeHtml(language || m.chat_code_text())}</span>` +
    `<button type="button" class="copy-btn" aria-label="${escapeHtml(m.chat_code_copy())}">${escapeHtml(m.common_copy())}</button>` +
    '</div>' +
    `<pre><code class="hljs${cls}">${body}</code></pre>` +
    '</div>'
  );
}

const md = new Marked({
  gfm: true,
  breaks: true, // see MarkdownOptions.strictBreaks
  async: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      return codeBlock(text, lang ?? '');
    },
    // A task-list box, with its line in the block's source (see taskLines):
    // the notes preview ticks it in the note.
    checkbox(tok: Tokens.Checkbox): string {
      const line = (tok as TaskCheckbox).line;
      const at = typeof line === 'number' ? ` data-line="${line}"` : '';
      return `<input type="checkbox" class="md-task"${tok.checked ? ' checked=""' : ''}${at} disabled=""> `;
    },
    // Obsidian's callouts: "> [!tip] 标题" and what follows in the quote (see calloutOf).
    blockquote(tok: Tokens.Blockquote): string | false {
      const c = calloutOf(tok);
      if (!c) return false;
      const title = c.title.length ? this.parser.parseInline(c.title) : escapeHtml(c.kind[0].toUpperCase() + c.kind.slice(1));
      const body = (c.rest.length ? `<p>${this.parser.parseInline(c.rest)}</p>` : '') + this.parser.parse(tok.tokens.slice(1));
      return `<div class="md-callout md-callout-${c.kind}"><div class="md-callout-title">${title}</div>${body}</div>`;
    },
    // Raw HTML is shown as text: agents write "<details>" in prose far more
    // often than they mean markup. <br> (common in tables) passes.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return /^<br\s*\/?>$/i.test(text.trim()) ? '<br>' : escapeHtml(text);
    },
    image({ href, title, text }: Tokens.Image): string {
      const alt = escapeHtml(text || '');
      const t = title ? ` title="${escapeHtml(title)}"` : '';
      // A file of the notes folder (a relative path: an attachment): the
      // notes preview loads it (data-src, as written; see localImageSrc).
      if (isLocalPath(href)) return `<img class="md-local" data-src="${escapeHtml(href)}" alt="${alt}"${t}>`;
      const src = safeImageSrc(href);
      if (src !== null) return `<img src="${escapeHtml(src)}" alt="${alt}"${t}>`;
      const remote = remoteURL(href);
      if (remote) {
        return `<a href="${escapeHtml(remote.href)}" class="md-remote-image"${t}>${m.chat_md_remote_image({ alt: alt || escapeHtml(remote.href) })}</a>`;
      }
      return alt;
    },
  },
});

// Emphasis next to Chinese: "**重点：**内容" and "这是**“引用”**" are bold, as
// a Chinese writer means them. CommonMark leaves the ** as text there (a
// delimiter between a CJK character and punctuation is not "flanking");
// CJK characters count as punctuation for that rule (the CJK-friendly
// amendment; the editor's parser (lib/mdsyntax.ts) and the Go renderer
// (internal/inertmd) follow it too).
md.use(markedCjkFriendly());

/** The inside of a rendered wikilink's [[…]]; null for another link. */
export function wikiInner(a: Element): string | null {
  if (!a.classList.contains('md-wikilink')) return null;
  return a.getAttribute('data-wiki');
}

/** The href, as written, of a rendered relative link to a note; null for another link. */
export function noteHref(a: Element): string | null {
  if (!a.classList.contains('md-notelink')) return null;
  return a.getAttribute('data-note');
}

/** The HTML of an embed ![[inner]]: an image loaded by the notes preview (img.md-embed, data-embed: see embedTarget), another file or a note as a link to open. */
function embedHtml(inner: string): string {
  const p = wikiParts(inner);
  const kind = embedKind(p.target);
  const name = p.target.slice(p.target.lastIndexOf('/') + 1);
  if (kind === 'image') {
    const size = embedSize(p.alias);
    const dims = size ? ` width="${size.width}"` + (size.height ? ` height="${size.height}"` : '') : '';
    const alt = size ? name : p.alias || name;
    return `<img class="md-embed" data-embed="${escapeHtml(inner)}" alt="${escapeHtml(alt)}"${dims}>`;
  }
  const shown = p.alias || (kind === 'file' ? name : p.heading ? `${p.target} › ${p.heading}` : p.target);
  const title = p.target + (p.heading ? '#' + p.heading : '');
  return `<a class="md-wikilink md-embed-${kind}" data-wiki="${escapeHtml(inner)}" title="${escapeHtml(title)}">${escapeHtml(shown)}</a>`;
}

/** The wikilink target an embedded image of the preview names (its data-embed), null for another image. */
export function embedTarget(img: Element): string | null {
  if (!img.classList.contains('md-embed')) return null;
  const inner = img.getAttribute('data-embed');
  return inner === null ? null : wikiParts(inner).target || null;
}

md.use({
  extensions: [
    {
      // ![[图 1.png]], ![[a.png|300]], ![[report.pdf]], ![[Note]] (Obsidian's embeds).
      name: 'embed',
      level: 'inline',
      start(src: string) {
        const i = src.indexOf('![[');
        return i < 0 ? undefined : i;
      },
      tokenizer(src: string) {
        const m = /^!\[\[([^[\]\n]+?)\]\]/.exec(src);
        if (!m || !wikiParts(m[1]).target) return undefined;
        return { type: 'embed', raw: m[0], inner: m[1] };
      },
      renderer(tok) {
        return embedHtml(String((tok as { inner?: unknown }).inner ?? ''));
      },
    },
    {
      // ==highlight== (Obsidian's; the editor reads it too: mdsyntax.ts).
      name: 'highlight',
      level: 'inline',
      start(src: string) {
        const i = src.indexOf('==');
        return i < 0 ? undefined : i;
      },
      tokenizer(src: string) {
        const m = /^==(?!=)(\S(?:[^\n]*?\S)?)==(?!=)/.exec(src);
        if (!m) return undefined;
        return { type: 'highlight', raw: m[0], text: m[1], tokens: this.lexer.inlineTokens(m[1]) };
      },
      renderer(tok) {
        return `<mark>${this.parser.parseInline((tok as { tokens?: Token[] }).tokens ?? [])}</mark>`;
      },
    },
    {
      name: 'wikilink',
      level: 'inline',
      start(src: string) {
        const i = src.indexOf('[[');
        return i < 0 ? undefined : i;
      },
      tokenizer(src: string) {
        const m = /^\[\[([^[\]\n]+?)\]\]/.exec(src);
        if (!m) return undefined;
        const p = wikiParts(m[1]);
        if (!p.target && !p.heading) return undefined;
        return { type: 'wikilink', raw: m[0], inner: m[1] };
      },
      renderer(tok) {
        const inner = String((tok as { inner?: unknown }).inner ?? '');
        const p = wikiParts(inner);
        const shown = p.alias || (p.target && p.heading ? `${p.target} › ${p.heading}` : p.target || p.heading);
        const title = p.target + (p.heading ? '#' + p.heading : '');
        return `<a class="md-wikilink" data-wiki="${escapeHtml(inner)}" title="${escapeHtml(title)}">${escapeHtml(shown)}</a>`;
      },
    },
  ],
});

// ---- soft line breaks (strict mode) --------------------------------------------
//
// With strict line breaks a soft break stays a newline in the HTML, which
// the browser shows as a space: between two CJK characters it is taken
// out, across inline tokens too ("命中率。↵**第一次**").

type Inline = Token & { tokens?: Token[]; text?: string };

function leaves(tokens: readonly Token[], out: Inline[]): Inline[] {
  for (const t of tokens as Inline[]) {
    if (t.tokens && t.tokens.length) leaves(t.tokens, out);
    else out.push(t);
  }
  return out;
}

function shown(t: Inline | undefined): string {
  return t && (t.type === 'text' || t.type === 'escape' || t.type === 'codespan') ? (t.text ?? '') : '';
}

/** Joins the CJK soft breaks of one run of inline tokens. */
function joinInline(tokens: readonly Token[]): void {
  const ls = leaves(tokens, []);
  ls.forEach((t, i) => {
    if (t.type !== 'text' || !t.text || t.text.indexOf('\n') < 0) return;
    const text = t.text;
    t.text = text.replace(/[ \t]*\n[ \t]*/g, (br: string, at: number) => {
      const before = at > 0 ? text.slice(0, at) : shown(ls[i - 1]);
      const after = at + br.length < text.length ? text.slice(at + br.length) : shown(ls[i + 1]);
      return joinsTight(before, after) ? '' : br;
    });
  });
}

/** Joins the CJK soft breaks of every paragraph in tokens (strict mode). */
function joinSoftBreaks(tokens: readonly Token[]): void {
  for (const t of tokens) {
    switch (t.type) {
      case 'paragraph':
      case 'text':
        if ((t as Inline).tokens) joinInline((t as Inline).tokens ?? []);
        break;
      case 'blockquote':
        joinSoftBreaks((t as Tokens.Blockquote).tokens);
        break;
      case 'list':
        for (const item of (t as Tokens.List).items) joinSoftBreaks(item.tokens);
        break;
    }
  }
}

// ---- callouts ------------------------------------------------------------------
//
// "> [!tip] 提示" opens a callout of that kind, titled by the rest of the
// line (by its kind when there is none); the quote's other lines are its
// body. The kinds are Obsidian's (live preview knows the same: an unknown
// one is a note); "[!faq]-" (folded in Obsidian) shows open.

const CALLOUT_MARK = /^\[!([A-Za-z-]+)\][-+]?[ \t]*/;
export const CALLOUT_KINDS: ReadonlySet<string> = new Set(['note', 'info', 'tip', 'hint', 'important', 'success', 'check', 'done', 'question', 'help', 'faq', 'warning', 'caution', 'attention', 'failure', 'fail', 'missing', 'danger', 'error', 'bug', 'example', 'quote', 'cite', 'abstract', 'summary', 'tldr', 'todo']);

/** A quote's callout: its kind, its title's inline tokens and the rest of its first paragraph's; null for a plain quote. */
function calloutOf(tok: Tokens.Blockquote): { kind: string; title: Token[]; rest: Token[] } | null {
  const first = tok.tokens[0];
  if (first?.type !== 'paragraph') return null;
  const inline = (first as Tokens.Paragraph).tokens ?? [];
  const head = inline[0];
  const mt = head?.type === 'text' ? CALLOUT_MARK.exec((head as Tokens.Text).text) : null;
  if (!mt) return null;
  const kind = CALLOUT_KINDS.has(mt[1].toLowerCase()) ? mt[1].toLowerCase() : 'note';
  const title: Token[] = [];
  const rest: Token[] = [];
  const after = (head as Tokens.Text).text.slice(mt[0].length);
  let inTitle = true;
  const take = (t: Token) => (inTitle ? title : rest).push(t);
  const text = (s: string) => ({ type: 'text', raw: s, text: s, escaped: false }) as Tokens.Text;
  for (const t of [text(after), ...inline.slice(1)]) {
    if (!inTitle) {
      rest.push(t);
      continue;
    }
    if (t.type === 'br') {
      inTitle = false;
      continue;
    }
    const nl = t.type === 'text' ? (t as Tokens.Text).text.indexOf('\n') : -1;
    if (nl >= 0) {
      // A line break left in the text (strict line breaks): the title ends there.
      const s = (t as Tokens.Text).text;
      if (nl > 0) title.push(text(s.slice(0, nl)));
      inTitle = false;
      if (s.slice(nl + 1)) rest.push(text(s.slice(nl + 1)));
      continue;
    }
    if (t.type !== 'text' || (t as Tokens.Text).text) take(t);
  }
  while (title.length && title[title.length - 1].type === 'text' && !(title[title.length - 1] as Tokens.Text).text.trim()) title.pop();
  return { kind, title, rest };
}

// ---- task-list lines ----------------------------------------------------------
//
// Each task box's line in its top-level block (0: the block's first line),
// found from the tokens' raw text (a block's children tile its text, line
// for line: a quote's without its >, a list item's without its marker), so
// a box can name the source line it came from.

type TaskCheckbox = Tokens.Checkbox & { line?: number };

function lineBreaks(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function taskLines(tokens: readonly Token[], line: number): void {
  for (const t of tokens) {
    switch (t.type) {
      case 'list': {
        let l = line;
        for (const item of (t as Tokens.List).items) {
          taskLines(item.tokens, l);
          l += lineBreaks(item.raw);
        }
        break;
      }
      case 'blockquote':
        taskLines((t as Tokens.Blockquote).tokens, line);
        break;
      case 'paragraph':
      case 'text': {
        // A loose item's box is the first of its paragraph's inline tokens.
        const first = (t as Tokens.Paragraph).tokens?.[0];
        if (first?.type === 'checkbox') (first as TaskCheckbox).line = line;
        break;
      }
      case 'checkbox':
        (t as TaskCheckbox).line = line;
        break;
    }
    line += lineBreaks(t.raw);
  }
}

// ---- DOMPurify ---------------------------------------------------------------

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'button', 'code', 'del', 'div', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'hr', 'i', 'img', 'input', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 's', 'span', 'strong', 'sub', 'sup',
  'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = [
  'href', 'title', 'alt', 'src', 'class', 'type', 'checked', 'disabled', 'align', 'start', 'colspan', 'rowspan',
  'aria-label', 'data-wiki', 'data-line', 'data-src', 'data-embed', 'width', 'height',
];
const CLASS_OK = /^(hljs(-[\w-]+)?|language-[\w+-]+|code-(block|head|lang)|copy-btn|md-[\w-]+)$/;

const PURIFY_CONFIG: Config = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // A wikilink's inside is a note's name, never a URL ("Meeting: notes"
  // must survive); nothing navigates to it.
  ADD_URI_SAFE_ATTR: ['data-wiki', 'data-src', 'data-embed'],
  FORBID_TAGS: ['script', 'style', 'iframe', 'frame', 'object', 'embed', 'form', 'svg', 'math', 'link', 'meta', 'base'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  RETURN_TRUSTED_TYPE: false,
};

type Purifier = ReturnType<typeof DOMPurify>;
let purifier: Purifier | null = null;

function getPurifier(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const cls = el.getAttribute('class');
    if (cls !== null) {
      const kept = cls.split(/\s+/).filter((c) => CLASS_OK.test(c));
      if (kept.length) el.setAttribute('class', kept.join(' '));
      else el.removeAttribute('class');
    }
    if (el.tagName !== 'IMG') {
      el.removeAttribute('data-src');
      el.removeAttribute('width');
      el.removeAttribute('height');
    }
    if (el.tagName !== 'IMG' || !el.classList.contains('md-embed')) el.removeAttribute('data-embed');
    switch (el.tagName) {
      case 'A': {
        const href = el.getAttribute('href');
        if (el.hasAttribute('data-wiki') && !el.classList.contains('md-wikilink')) el.removeAttribute('data-wiki');
        if (href !== null && !el.hasAttribute('data-wiki') && isNoteHref(href)) {
          // A note: opened by the click handler, never navigated to.
          el.setAttribute('data-note', href);
          el.classList.add('md-notelink');
          el.removeAttribute('href');
        } else if (href !== null && !isSafeHref(href)) el.removeAttribute('href');
        if (el.hasAttribute('data-wiki') || el.hasAttribute('data-note')) {
          el.removeAttribute('href');
          el.setAttribute('role', 'link');
          el.setAttribute('tabindex', '0');
          break;
        }
        if (el.hasAttribute('href')) {
          el.setAttribute('target', '_blank');
          el.setAttribute('rel', 'noopener noreferrer');
        }
        break;
      }
      case 'IMG': {
        for (const d of ['width', 'height']) {
          const v = el.getAttribute(d);
          if (v !== null && !/^\d{1,4}$/.test(v)) el.removeAttribute(d);
        }
        const local = el.getAttribute('data-src');
        if (local !== null && !(el.classList.contains('md-local') && isLocalPath(local))) el.removeAttribute('data-src');
        const raw = el.getAttribute('src');
        const src = raw === null ? null : safeImageSrc(raw);
        if (src === null) el.removeAttribute('src');
        else el.setAttribute('src', src);
        el.setAttribute('loading', 'lazy');
        el.setAttribute('referrerpolicy', 'no-referrer');
        break;
      }
      case 'INPUT': {
        // Only GFM task-list boxes, read-only (the notes preview enables its own).
        el.setAttribute('type', 'checkbox');
        el.setAttribute('disabled', '');
        const line = el.getAttribute('data-line');
        if (line !== null && !/^\d{1,9}$/.test(line)) el.removeAttribute('data-line');
        break;
      }
      case 'BUTTON':
        el.setAttribute('type', 'button');
        break;
    }
  });
  purifier = p;
  return p;
}

/** Sanitizes HTML with the strict configuration above. */
export function sanitize(html: string): string {
  return getPurifier().sanitize(html, PURIFY_CONFIG) as string;
}

// ---- rendering ---------------------------------------------------------------

const CACHE_MAX = 4000;
const cache = new Map<string, string>();

function cacheGet(key: string): string | undefined {
  const v = cache.get(key);
  if (v !== undefined) {
    cache.delete(key);
    cache.set(key, v);
  }
  return v;
}

function cachePut(key: string, v: string): void {
  cache.set(key, v);
  if (cache.size > CACHE_MAX) {
    const first = cache.keys().next().value;
    if (first !== undefined) cache.delete(first);
  }
}

function renderToken(t: Token, useCache: boolean): string | string[] {
  if (t.type === 'space' || t.type === 'def') return '';
  if (t.raw.length > HUGE_BLOCK && t.type !== 'code') return plainPieces(t.raw);
  const key = locale() + (strictInUse ? '\u0000s' : '') + '\u0000' + t.type + '\u0000' + t.raw;
  if (useCache) {
    const hit = cacheGet(key);
    if (hit !== undefined) return hit;
  }
  let html: string;
  try {
    taskLines([t], 0);
    if (strictInUse) joinSoftBreaks([t]);
    html = sanitize(md.parser([t]));
  } catch {
    html = `<p>${escapeHtml(t.raw)}</p>`;
  }
  if (useCache) cachePut(key, html);
  return html;
}

function clock(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function normalize(src: string): string {
  return src.indexOf('\r') >= 0 ? src.replace(/\r\n?/g, '\n') : src;
}

/** Renders a whole Markdown document to one sanitized HTML string. */
export function renderMarkdown(src: string): string {
  strictBreaks();
  return md
    .lexer(normalize(src))
    .map((t) => renderToken(t, true))
    .join('');
}

/**
 * Renders one message incrementally: update() with the message's current
 * text returns the HTML of each top-level block. When the text grew by an
 * append, only the last block(s) are lexed and rendered again.
 */
export class MarkdownStream {
  private src = '';
  private tokens: Token[] = [];
  private starts: number[] = [];
  private htmls: (string | string[])[] = [];
  /** When update() skipped rendering the newest text (throttled), how
   * soon (ms) the caller should call it again so the text catches up. */
  retryIn = 0;
  private incremental = true;
  private lastCost = 0;
  private lastAt = 0;
  private wasStreaming = false;
  private huge: PlainPieces | undefined; // the last block's pieces, when huge
  private lang = '';

  /** @param streaming the text may still grow (skip caching its last block,
   * and throttle re-rendering a last block that is slow to render). */
  update(text: string, streaming = false): (string | string[])[] {
    const src = normalize(text);
    this.retryIn = 0;
    // Another interface language: every block is rendered again (its copy
    // button speaks the language).
    const lang = locale() + (strictBreaks() ? '\u0000strict' : '');
    if (lang !== this.lang) {
      this.lang = lang;
      this.src = '';
      this.tokens = [];
      this.starts = [];
      this.htmls = [];
      this.huge = undefined;
      this.incremental = true;
      this.lastCost = 0;
    }
    if (src === this.src && !(!streaming && this.wasStreaming)) return this.htmls;
    const lastTok = this.tokens.length > 0 ? this.tokens[this.tokens.length - 1] : undefined;
    if (src === this.src && this.huge && lastTok?.raw === this.huge.raw && lastTok.raw.length > HUGE_BLOCK) {
      // The stream ended on a huge plain block: its pieces are final as
      // they are (lexing megabytes again would hold the page).
      this.wasStreaming = streaming;
      return this.htmls;
    }
    this.wasStreaming = streaming;

    const now = clock();
    // A slow last block (a huge code block, say: over 4 ms to highlight and
    // sanitize) is re-rendered at most every 4× its own render time while
    // streaming; the text catches up on the next update.
    if (
      streaming &&
      this.lastCost > 4 &&
      this.src !== '' &&
      src.startsWith(this.src) &&
      now - this.lastAt < this.lastCost * 4
    ) {
      this.retryIn = Math.max(1, Math.ceil(this.lastCost * 4 - (now - this.lastAt)));
      return this.htmls;
    }

    // A huge plain last block that only grew by text without a line break
    // stays one block: extend it instead of lexing megabytes again.
    const n = this.tokens.length;
    if (
      this.incremental &&
      lastTok &&
      lastTok.type === 'paragraph' &&
      lastTok.raw.length > (streaming ? STREAM_PLAIN : HUGE_BLOCK) &&
      src.startsWith(this.src) &&
      !src.slice(this.src.length).includes('\n')
    ) {
      // At most MAX_FRAME_APPEND new characters a frame: a flood far
      // ahead of the screen is shown over a few frames (each one laying
      // out a bounded amount of new text) instead of in one long task.
      let upto = src.length;
      if (upto - this.src.length > MAX_FRAME_APPEND) {
        upto = this.src.length + MAX_FRAME_APPEND;
        if (/[\uD800-\uDBFF]/.test(src[upto - 1])) upto--; // keep a surrogate pair whole
        this.retryIn = 1;
      }
      const raw = lastTok.raw + src.slice(this.src.length, upto);
      const tok = { ...lastTok, raw, text: raw } as Token;
      const tokens = this.tokens.slice(0, n - 1).concat(tok);
      const htmls = this.htmls.slice(0, n - 1);
      this.huge = piecesOf(raw, this.huge?.raw === lastTok.raw ? this.huge : undefined);
      htmls.push(this.huge.html);
      this.src = src.slice(0, upto);
      this.tokens = tokens;
      this.htmls = htmls;
      this.lastCost = 0;
      this.lastAt = now;
      return htmls;
    }

    let keep = 0;
    if (this.incremental && this.src !== '' && src.startsWith(this.src) && this.tokens.length > 0) {
      // Everything before the last non-space block is final: appends can
      // only extend or split the last block.
      let i = this.tokens.length - 1;
      while (i > 0 && this.tokens[i].type === 'space') i--;
      keep = i;
    }
    const from = keep > 0 ? this.starts[keep] : 0;
    const tail = from > 0 ? src.slice(from) : src;
    // A long streaming tail of one line is one paragraph: skip lexing it
    // (marked's paragraph rules cost ~1 ms per KiB, all on one frame when a
    // flood starts); it grows as plain pieces and is lexed once complete.
    const plain = streaming && tail.length > STREAM_PLAIN && tail.indexOf('\n') < 0 && !BLOCK_START.test(tail);
    const fresh: Token[] = plain ? [{ type: 'paragraph', raw: tail, text: tail, tokens: [] } as unknown as Token] : md.lexer(tail);

    const tokens = this.tokens.slice(0, keep).concat(fresh);
    const starts = this.starts.slice(0, keep);
    let pos = from;
    for (const t of fresh) {
      starts.push(pos);
      pos += t.raw.length;
    }
    // Incremental lexing needs the raws to tile the source exactly.
    this.incremental = pos === src.length;

    const htmls = this.htmls.slice(0, keep);
    let t1 = now;
    for (let j = keep; j < tokens.length; j++) {
      const last = j === tokens.length - 1;
      const t0 = last ? clock() : 0;
      if (plain && last) {
        this.huge = piecesOf(tokens[j].raw);
        htmls.push(this.huge.html);
      } else {
        htmls.push(renderToken(tokens[j], !(streaming && last)));
      }
      if (last) {
        t1 = clock();
        this.lastCost = t1 - t0;
      }
    }
    this.lastAt = t1;

    this.src = src;
    this.tokens = tokens;
    this.starts = starts;
    this.htmls = htmls;
    return htmls;
  }

  private lineStarts: number[] | null = null;
  private lineTokens: Token[] | null = null;

  /** The source line (1-based) where each block of the last update() starts. */
  lines(): number[] {
    if (this.lineStarts && this.lineTokens === this.tokens) return this.lineStarts;
    const out: number[] = [];
    let line = 1;
    for (const t of this.tokens) {
      out.push(line);
      line += lineBreaks(t.raw);
    }
    this.lineStarts = out;
    this.lineTokens = this.tokens;
    return out;
  }
}

// ---- clicks inside rendered Markdown -----------------------------------------

export interface MarkdownActions {
  copy(text: string): Promise<void> | void;
  open(url: string): void;
  /** Opens a note a link names: a wikilink's inside, or a relative link's href (none: such links do nothing here). */
  openNote?(link: { wiki: string } | { href: string }): void;
}

/**
 * One delegated click handler for a rendered Markdown container: copy
 * buttons copy their code block; links never navigate the app's own page —
 * http(s) and mailto open outside, everything else does nothing.
 */
export function handleMarkdownClick(ev: MouseEvent, actions: MarkdownActions): void {
  const target = ev.target as Element | null;
  if (!target || typeof target.closest !== 'function') return;
  const btn = target.closest('button.copy-btn');
  if (btn) {
    ev.preventDefault();
    const code = btn.closest('.code-block')?.querySelector('pre code');
    const text = code?.textContent ?? '';
    void Promise.resolve(actions.copy(text)).then(
      () => flash(btn, m.common_copied()),
      () => flash(btn, m.common_failed()),
    );
    return;
  }
  const a = target.closest('a');
  if (a) {
    ev.preventDefault();
    const wiki = wikiInner(a);
    const note = wiki === null ? noteHref(a) : null;
    if (wiki !== null || note !== null) {
      actions.openNote?.(wiki !== null ? { wiki } : { href: note ?? '' });
      return;
    }
    const href = a.getAttribute('href');
    if (href && /^(https?:|mailto:)/i.test(href) && isSafeHref(href)) actions.open(href);
  }
}

/**
 * The link a rendered anchor stands for, as a line of source would give it:
 * a wikilink's parts, or a Markdown link's target (a note's or a URL);
 * null for an anchor that is no link (a remote image shown as a link).
 */
export function anchorLink(a: Element): LineLink | null {
  const inner = wikiInner(a);
  if (inner !== null) return { kind: 'wiki', from: 0, to: 0, ...wikiParts(inner) };
  const href = a.getAttribute('data-note') ?? a.getAttribute('href');
  if (!href || a.classList.contains('md-remote-image')) return null;
  return { kind: 'md', from: 0, to: 0, href };
}

/** Enter on a focused note link opens it, as a click does (such links have no href, so the browser does not click them). */
export function handleMarkdownKey(ev: KeyboardEvent): void {
  if (ev.key !== 'Enter' || ev.isComposing) return;
  const a = (ev.target as Element | null)?.closest?.('a.md-wikilink, a.md-notelink');
  if (!a) return;
  ev.preventDefault();
  (a as HTMLElement).click();
}

function flash(btn: Element, label: string): void {
  btn.textContent = label;
  btn.classList.add('md-copied');
  setTimeout(() => {
    btn.textContent = m.common_copy();
    btn.classList.remove('md-copied');
  }, 1200);
}
