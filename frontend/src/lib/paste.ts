// Paste and drop into a note (a CodeMirror extension):
// - files and images pasted or dropped are saved through hooks.attach (in
//   the attachments folder, or beside the note: attachPath) and linked at
//   the cursor (or where they were dropped) as relative Markdown links,
//   `![](attachments/Pasted%20image%2020261207-131500.png)` for images,
//   `[name](path)` for other files;
// - a note dragged from the file tree makes `[[its name]]`, a picture or
//   another file of the tree its link as above;
// - a URL pasted over a selection makes `[selection](url)`;
// - HTML from a browser becomes Markdown (turndown with its GFM plugin,
//   loaded the first time it is needed); HTML that is only styled text
//   (an editor's coloured spans) is pasted as its plain text, and inside a
//   code block everything is pasted as plain text.

import { syntaxTree } from '@codemirror/language';
import { type EditorState, type Extension, StateField } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { filesOf } from './images';
import { TREE_KIND, TREE_PATH } from './tree';
import { type AttachPlace } from './writeprefs.svelte';

export interface PasteHooks {
  /** The open note's path, workspace-relative. */
  notePath?(): string;
  /** Where pasted and dropped files go (Settings). */
  attachPlace?(): { place: AttachPlace; dir: string };
  /** Saves file as path (workspace-relative); the path it was saved as, or null when it was not (the hook told why). */
  attach?(file: Blob, path: string): Promise<string | null>;
  /** The base name of a pasted image with no name of its own, for a time ("Pasted image 20261207-131500"). */
  pastedImageName?(time: string): string;
  /** What [[…]] names the note at path by, from the open note: its name, or its path (no .md) when the name finds another note first. */
  wikiTarget?(path: string): string;
}

// ---- names and links -------------------------------------------------------------

/** A time as 20261207-131500 (local time). */
export function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/avif': 'avif',
  'image/bmp': 'bmp',
};

/** A file name safe on every system: no folder separators, control or reserved characters; at most 120 characters. */
export function safeFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  let s = name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, ' ').replace(/\s+/g, ' ').trim();
  s = s.replace(/^\.+/, '').trim();
  if ([...s].length > 120) {
    const ext = /\.[A-Za-z0-9]{1,8}$/.exec(s)?.[0] ?? '';
    s = [...s.slice(0, s.length - ext.length)].slice(0, 120 - ext.length).join('').trim() + ext;
  }
  return s;
}

/** The name a pasted or dropped file is saved under: its own, or for a pasted image with a generic name ("image.png") a dated one. */
export function fileNameFor(file: Blob & { name?: string }, now: Date, pastedImageName: (time: string) => string): string {
  const own = safeFileName(file.name ?? '');
  const generic = !own || /^image\.(png|jpe?g|gif|webp|bmp|avif)$/i.test(own);
  if (!generic) return own;
  const ext = EXT[file.type] ?? (/\.([A-Za-z0-9]+)$/.exec(own)?.[1] ?? 'png');
  return `${safeFileName(pastedImageName(stamp(now))) || stamp(now)}.${ext}`;
}

/** The folder of a workspace path ("" at the root). */
function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** Where a file named name is saved for the note notePath (workspace-relative). */
export function attachPath(notePath: string, name: string, where: { place: AttachPlace; dir: string }): string {
  const dir = where.place === 'beside' ? dirOf(notePath) : where.dir;
  return dir ? `${dir}/${name}` : name;
}

/** target (workspace-relative) as a path relative to the note's folder. */
export function relativePath(notePath: string, target: string): string {
  const from = dirOf(notePath).split('/').filter(Boolean);
  const to = target.split('/').filter(Boolean);
  let i = 0;
  while (i < from.length && i < to.length - 1 && from[i] === to[i]) i++;
  return [...Array(from.length - i).fill('..'), ...to.slice(i)].join('/');
}

/** A path as a Markdown link destination: spaces and the characters Markdown or URLs treat specially percent-encoded, other text (Chinese) as it is. */
export function linkDest(p: string): string {
  return p.replace(/[%\s()<>[\]#?\\^`{}|]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

/** The Markdown for a saved file: an image shown, another file linked by its name. */
export function linkFor(notePath: string, saved: string, isImage: boolean): string {
  const dest = linkDest(relativePath(notePath, saved));
  if (isImage) return `![](${dest})`;
  const name = saved.slice(saved.lastIndexOf('/') + 1).replace(/([[\]\\])/g, '\\$1');
  return `[${name}](${dest})`;
}

function isImageFile(f: Blob & { name?: string }): boolean {
  return f.type.startsWith('image/') || /\.(png|jpe?g|gif|webp|svg|avif|bmp)$/i.test(f.name ?? '');
}

// ---- text ------------------------------------------------------------------------

const URL_RE = /^(https?:\/\/|mailto:)[^\s<>]+$/i;

/** A URL pasted over selected text makes a link of it (null: not this case). */
export function linkOverSelection(selected: string, pasted: string): string | null {
  const url = pasted.trim();
  if (!selected || selected.includes('\n') || !URL_RE.test(url) || URL_RE.test(selected.trim())) return null;
  return `[${selected.replace(/([[\]\\])/g, '\\$1')}](${url.replace(/[()\s]/g, (c) => encodeURIComponent(c))})`;
}

// Tags that make HTML worth converting: anything beyond styled text.
const STRUCTURE = /<(a\s[^>]*href|h[1-6][\s>]|ul[\s>]|ol[\s>]|li[\s>]|table[\s>]|img\s|blockquote[\s>]|pre[\s>]|code[\s>]|strong[\s>]|b[\s>]|em[\s>]|i[\s>]|s[\s>]|del[\s>]|hr[\s>/])/i;

/** Whether HTML on the clipboard is more than styled plain text (then it becomes Markdown). */
export function isRichHTML(html: string): boolean {
  return STRUCTURE.test(html);
}

type Turndown = (html: string) => string;
let turndown: Promise<Turndown> | null = null;

/** HTML as Markdown (turndown and its GFM plugin, loaded on first use). */
export function htmlToMarkdown(html: string): Promise<string> {
  turndown ??= Promise.all([import('turndown'), import('turndown-plugin-gfm')]).then(([td, gfm]) => {
    const TurndownService = td.default;
    const service = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '*',
      hr: '---',
    });
    service.use(gfm.gfm);
    service.remove(['script', 'style', 'title', 'meta', 'link', 'noscript']);
    return (h: string) => service.turndown(h);
  });
  return turndown.then((f) => f(html));
}

function inCode(state: EditorState, pos: number): boolean {
  for (let n: ReturnType<ReturnType<typeof syntaxTree>['resolveInner']> | null = syntaxTree(state).resolveInner(pos, -1); n; n = n.parent) {
    if (n.name === 'FencedCode' || n.name === 'CodeBlock' || n.name === 'InlineCode') return true;
  }
  return false;
}

// ---- inserting later -------------------------------------------------------------
//
// A file is saved (and turndown loaded) asynchronously: the place to insert
// at is kept as a range mapped through the edits made meanwhile.

interface Pending {
  from: number;
  to: number;
}

/** One object per note's state lineage: a link lands only in the state it was asked in (not another tab's). */
const lineage = StateField.define<object>({ create: () => ({}), update: (v) => v });

const pending = new Set<Pending>();
const mapPending = EditorView.updateListener.of((u) => {
  if (!u.docChanged || pending.size === 0) return;
  for (const p of pending) {
    p.from = u.changes.mapPos(p.from, -1);
    p.to = Math.max(p.from, u.changes.mapPos(p.to, 1));
  }
});

async function insertLater(view: EditorView, from: number, to: number, text: Promise<string | null>): Promise<void> {
  const id = view.state.field(lineage);
  const p: Pending = { from, to };
  pending.add(p);
  try {
    const t = await text;
    if (t === null || view.state.field(lineage, false) !== id) return;
    view.dispatch({
      changes: { from: p.from, to: p.to, insert: t },
      selection: { anchor: p.from + t.length },
      userEvent: 'input.paste',
      scrollIntoView: true,
    });
  } finally {
    pending.delete(p);
  }
}

/** Saves files and inserts their links (one a line) at from–to. */
function attachFiles(view: EditorView, hooks: PasteHooks, files: File[], from: number, to: number): boolean {
  if (!hooks.attach || !hooks.notePath || files.length === 0) return false;
  const note = hooks.notePath();
  const where = hooks.attachPlace?.() ?? { place: 'folder' as const, dir: 'attachments' };
  const named = hooks.pastedImageName ?? ((t: string) => t);
  const now = new Date();
  const attach = hooks.attach;
  const links = Promise.all(
    files.map(async (f) => {
      const saved = await attach(f, attachPath(note, fileNameFor(f, now, named), where));
      return saved === null ? null : linkFor(note, saved, isImageFile(f));
    }),
  ).then((ls) => {
    const ok = ls.filter((l): l is string => l !== null);
    return ok.length ? ok.join('\n') : null;
  });
  void insertLater(view, from, to, links);
  return true;
}

function handlePaste(e: ClipboardEvent, view: EditorView, hooks: PasteHooks): boolean {
  const dt = e.clipboardData;
  if (!dt) return false;
  const sel = view.state.selection.main;
  const files = filesOf(dt);
  const text = dt.getData('text/plain');
  if (files.length && attachFiles(view, hooks, files, sel.from, sel.to)) {
    e.preventDefault();
    return true;
  }
  if (inCode(view.state, sel.from)) return false;
  const link = linkOverSelection(view.state.sliceDoc(sel.from, sel.to), text);
  if (link !== null) {
    e.preventDefault();
    view.dispatch({ changes: { from: sel.from, to: sel.to, insert: link }, selection: { anchor: sel.from + link.length }, userEvent: 'input.paste' });
    return true;
  }
  const html = dt.getData('text/html');
  if (html && isRichHTML(html)) {
    e.preventDefault();
    const md = htmlToMarkdown(html).then(
      (s) => s.trim() || text,
      () => text, // turndown failed to load: the plain text, as a plain paste
    );
    void insertLater(view, sel.from, sel.to, md);
    return true;
  }
  return false; // plain text: CodeMirror's own paste
}

/** What dropping a workspace path (dragged from the file tree) writes into the note notePath: a note as [[its name]] (its path when the name finds another note first), an image shown, another file linked; null for a folder. */
export function linkForDropped(notePath: string, path: string, dir: boolean, wikiTarget?: (path: string) => string): string | null {
  if (dir) return null;
  if (/\.(md|markdown)$/i.test(path)) {
    const target = wikiTarget?.(path) ?? path.replace(/\.(md|markdown)$/i, '');
    return `[[${target}]]`;
  }
  return linkFor(notePath, path, /\.(png|jpe?g|gif|webp)$/i.test(path));
}

function handleDrop(e: DragEvent, view: EditorView, hooks: PasteHooks): boolean {
  const at = Number.isFinite(e.clientX) && Number.isFinite(e.clientY) ? view.posAtCoords({ x: e.clientX, y: e.clientY }) : null;
  const pos = at ?? view.state.selection.main.head;
  // A note or a file dragged from the tree: a link to it, as Obsidian makes one.
  const dt = e.dataTransfer;
  const data = (type: string) => (typeof dt?.getData === 'function' ? dt.getData(type) : '');
  const dragged = data(TREE_PATH);
  if (dragged) {
    e.preventDefault();
    const link = linkForDropped(hooks.notePath?.() ?? '', dragged, data(TREE_KIND) === 'dir', hooks.wikiTarget);
    if (link === null) return true; // a folder: nothing to link
    view.dispatch({ changes: { from: pos, insert: link }, selection: { anchor: pos + link.length }, userEvent: 'input.drop' });
    view.focus();
    return true;
  }
  const files = filesOf(e.dataTransfer);
  if (files.length === 0) return false;
  if (!attachFiles(view, hooks, files, pos, pos)) return false;
  e.preventDefault();
  return true;
}


/** Paste and drop of files, links and HTML (see the top of this file). */
export function pasteAndDrop(hooks: PasteHooks): Extension {
  return [
    lineage,
    mapPending,
    EditorView.domEventHandlers({
      paste: (e, view) => handlePaste(e, view, hooks),
      drop: (e, view) => handleDrop(e, view, hooks),
    }),
  ];
}
