// Links between notes, as the notes index reads them (notes/parse.go):
// [[Note]], [[Note#Heading]], [[Note|alias]], [[#Heading]] and relative
// Markdown links [text](../b.md#Heading). Pure helpers for the editor
// (completion context, Ctrl/Cmd+click), the preview and the search view.

import type { NoteHit } from '../api/types';
import { baseName, dirName, joinPath } from './tree';

/** The parts of [[target#heading|alias]] (trimmed; ".md" dropped from the target). */
export interface WikiParts {
  target: string;
  heading: string;
  alias: string;
}

export function wikiParts(inner: string): WikiParts {
  const bar = inner.indexOf('|');
  const head = bar >= 0 ? inner.slice(0, bar) : inner;
  const alias = bar >= 0 ? inner.slice(bar + 1).trim() : '';
  const hash = head.indexOf('#');
  const target = (hash >= 0 ? head.slice(0, hash) : head).trim().replace(/\.md$/i, '');
  const heading = hash >= 0 ? head.slice(hash + 1).trim() : '';
  return { target, heading, alias };
}

/** A piece of plain text (a user's message): text, or a [[wikilink]] with what it shows. */
export type TextPiece = { text: string; wiki?: undefined } | { text: string; wiki: string };

/** Splits plain text at its [[wikilinks]] (text shown: the alias, else target › heading). */
export function wikiPieces(text: string): TextPiece[] {
  const out: TextPiece[] = [];
  let i = 0;
  for (const mt of text.matchAll(/\[\[([^[\]\n]+?)\]\]/g)) {
    const p = wikiParts(mt[1]);
    if (!p.target) continue;
    if (mt.index > i) out.push({ text: text.slice(i, mt.index) });
    out.push({ text: p.alias || (p.heading ? `${p.target} › ${p.heading}` : p.target), wiki: mt[1] });
    i = mt.index + mt[0].length;
  }
  if (i < text.length) out.push({ text: text.slice(i) });
  return out;
}

/** A link found in a line: [from, to) are offsets in the line. */
export type LineLink =
  | ({ kind: 'wiki'; from: number; to: number } & WikiParts)
  | { kind: 'md'; from: number; to: number; href: string };

const WIKI = /\[\[([^[\]\n]+?)\]\]/g;
// [text](target "title"), not images' ![alt](src).
const MDLINK = /(^|[^!])\[[^\]\n]*\]\(([^()\s]+)(?:\s+"[^"\n]*")?\)/g;

/** Every wikilink and Markdown link of one line, in order. */
export function linksInLine(line: string): LineLink[] {
  const out: LineLink[] = [];
  for (const m of line.matchAll(WIKI)) {
    const p = wikiParts(m[1]);
    if (!p.target && !p.heading) continue;
    out.push({ kind: 'wiki', from: m.index, to: m.index + m[0].length, ...p });
  }
  for (const m of line.matchAll(MDLINK)) {
    const from = m.index + m[1].length;
    out.push({ kind: 'md', from, to: m.index + m[0].length, href: m[2] });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** The link under offset `col` of a line, if any. */
export function linkAt(line: string, col: number): LineLink | null {
  return linksInLine(line).find((l) => col >= l.from && col <= l.to) ?? null;
}

/** What the editor completes at the cursor: a note name after [[, or one of its headings after [[Note#. */
export type LinkCompletion =
  | { kind: 'note'; query: string; from: number }
  | { kind: 'heading'; note: string; query: string; from: number };

/**
 * The completion context of the text before the cursor on its line: inside
 * an unclosed [[ (no ]] or | since), `from` being where the replaced text
 * starts (after [[, or after #). Null elsewhere.
 */
export function linkCompletion(before: string): LinkCompletion | null {
  const open = before.lastIndexOf('[[');
  if (open < 0) return null;
  const inner = before.slice(open + 2);
  if (inner.includes(']]') || inner.includes('|') || inner.includes('[') || inner.includes(']')) return null;
  const hash = inner.indexOf('#');
  if (hash >= 0) {
    return { kind: 'heading', note: inner.slice(0, hash).trim(), query: inner.slice(hash + 1), from: open + 2 + hash + 1 };
  }
  return { kind: 'note', query: inner, from: open + 2 };
}

/** A note's link name: its file name without .md. */
export function noteName(path: string): string {
  return baseName(path).replace(/\.(md|markdown)$/i, '');
}

/**
 * A relative Markdown link's workspace path, resolved against the linking
 * note's folder; null for URLs, anchors, absolute paths or ../ past the top.
 */
export function relativeLinkPath(fromNote: string, href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//') || href.startsWith('#') || href.startsWith('/') || href.startsWith('\\')) {
    return null;
  }
  let clean: string;
  try {
    clean = decodeURIComponent(href.split('#')[0].split('?')[0]);
  } catch {
    return null;
  }
  if (!clean) return null;
  const out: string[] = [];
  for (const p of joinPath(dirName(fromNote), clean).split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (!out.length) return null;
      out.pop();
    } else out.push(p);
  }
  return out.join('/') || null;
}

/**
 * Whether a Markdown link's href names a note relatively (a .md or
 * .markdown path, not a URL, an anchor or an absolute path), as written:
 * it is resolved where it is shown.
 */
export function isNoteHref(href: string): boolean {
  const h = href.trim();
  if (!h || /^[a-z][a-z0-9+.-]*:/i.test(h) || h.startsWith('//') || h.startsWith('#') || h.startsWith('/') || h.startsWith('\\')) return false;
  let p = h.split('#')[0].split('?')[0];
  try {
    p = decodeURIComponent(p);
  } catch {
    return false;
  }
  return /\.(md|markdown)$/i.test(p);
}

/** The #fragment of a Markdown link (decoded), "" when none. */
export function linkFragment(href: string): string {
  const i = href.indexOf('#');
  if (i < 0) return '';
  try {
    return decodeURIComponent(href.slice(i + 1));
  } catch {
    return href.slice(i + 1);
  }
}

/**
 * Where a note created from an unresolved wikilink goes: a target with a
 * folder is a path from the top; a bare name goes beside the linking note.
 * Null when the name cannot be a note's (empty, "..", a hidden name).
 */
export function newNotePath(fromNote: string, target: string): string | null {
  const t = target.trim().replace(/\\/g, '/');
  if (!t) return null;
  const parts = t.split('/').filter((p) => p !== '' && p !== '.');
  if (!parts.length || parts.some((p) => p === '..' || p.startsWith('.'))) return null;
  let rel = parts.join('/');
  if (!/\.(md|markdown)$/i.test(rel)) rel += '.md';
  return t.includes('/') ? rel : joinPath(dirName(fromNote), rel);
}

/** A piece of a search snippet: text, marked (between « and ») or not. */
export interface SnippetPart {
  text: string;
  mark: boolean;
}

/** Splits a snippet of notes.search at its « » marks (an unbalanced mark is text). */
export function snippetParts(snippet: string): SnippetPart[] {
  const out: SnippetPart[] = [];
  let i = 0;
  while (i < snippet.length) {
    const a = snippet.indexOf('«', i);
    const b = a < 0 ? -1 : snippet.indexOf('»', a + 1);
    if (a < 0 || b < 0) {
      out.push({ text: snippet.slice(i), mark: false });
      break;
    }
    if (a > i) out.push({ text: snippet.slice(i, a), mark: false });
    if (b > a + 1) out.push({ text: snippet.slice(a + 1, b), mark: true });
    i = b + 1;
  }
  return out;
}

/** Search hits grouped by note, in the order of each note's best hit. */
export function groupHits(hits: readonly NoteHit[]): { path: string; hits: NoteHit[] }[] {
  const groups = new Map<string, NoteHit[]>();
  for (const h of hits) {
    const g = groups.get(h.path);
    if (g) g.push(h);
    else groups.set(h.path, [h]);
  }
  return [...groups].map(([path, hs]) => ({ path, hits: hs.sort((a, b) => a.line - b.line) }));
}

// Kept for the modules that import it from here; the one implementation is lib/ime.ts.
export { isComposing } from './ime';
