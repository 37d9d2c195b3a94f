// Whether a link finds a note, answered at once from the note paths the
// app knows (the file tree), by the notes index's rules (notes/search.go
// pick): [[Name]] is a note whose file name without .md is Name,
// case-insensitively; [[folder/Name]] one whose path ends so; a relative
// Markdown link to a .md file is that exact path. The source editor marks
// the links that find none (cm-link-unresolved, lib/cmlinks.ts) and the
// live preview does the same with this module. Links to attachments
// (![[a.png]], ![](a.png)), URLs and anything else that is not a note link
// are neither resolved nor unresolved: null.

import type { TreeNode } from '../api/types';
import { isKnownExt, extOf } from './rename';
import { isMarkdown } from './tree';
import { relativeLinkPath, type LineLink } from './links';

/** The CSS class of an unresolved link, everywhere it is shown (source, live preview, preview, chat). */
export const UNRESOLVED_CLASS = 'cm-link-unresolved';

/** Whether a wikilink's target names an attachment (a file that is no note: "a.png", "report.pdf"), as the index tells them (notes/parse.go isFileTarget). */
export function isFileTarget(target: string): boolean {
  const ext = extOf(target.split('/').pop() ?? '');
  return !!ext && !isMarkdown('x' + ext) && isKnownExt(ext);
}

/** What an embed ![[target]] shows: an image inline (the kinds files.image reads), another file as a link that opens it, a note as a link to it. */
export function embedKind(target: string): 'image' | 'file' | 'note' {
  if (!isFileTarget(target)) return 'note';
  return /\.(png|jpe?g|gif|webp)$/i.test(target) ? 'image' : 'file';
}

/** An image embed's size, as Obsidian writes it after the bar (![[a.png|300]], ![[a.png|300x200]]); null when that is alt text. */
export function embedSize(alias: string): { width: number; height?: number } | null {
  const mt = /^(\d{1,4})(?:x(\d{1,4}))?$/.exec(alias.trim());
  if (!mt) return null;
  return mt[2] ? { width: Number(mt[1]), height: Number(mt[2]) } : { width: Number(mt[1]) };
}

function stemLower(path: string): string {
  return path.toLowerCase().replace(/\.(md|markdown)$/, '');
}

/** The notes of a folder by lower-case name (file name without .md), to resolve links without asking Go. */
export class NoteNames {
  private readonly byName = new Map<string, string[]>();
  readonly size: number;

  constructor(paths: Iterable<string>) {
    let n = 0;
    for (const p of paths) {
      if (!isMarkdown(p)) continue;
      const k = stemLower(p.split('/').pop() ?? p);
      const list = this.byName.get(k);
      if (list) list.push(p);
      else this.byName.set(k, [p]);
      n++;
    }
    this.size = n;
  }

  /** The note [[target]] in the note `from` opens ("" when none): beside `from` first, then the shortest path. */
  wiki(from: string, target: string): string {
    const lt = target.trim().replace(/\.md$/i, '').toLowerCase();
    if (!lt) return from;
    const name = lt.split('/').pop() ?? lt;
    const ok = (this.byName.get(name) ?? []).filter((c) => {
      const s = stemLower(c);
      return s === lt || s.endsWith('/' + lt);
    });
    if (!ok.length) return '';
    const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
    const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
    ok.sort((a, b) => {
      const ia = dirOf(a) === dir,
        ib = dirOf(b) === dir;
      if (ia !== ib) return ia ? -1 : 1;
      if (a.length !== b.length) return a.length - b.length;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    return ok[0];
  }

  /** The note at a workspace path (case-insensitive), "" when none. */
  path(rel: string): string {
    const lr = rel.toLowerCase();
    const name = stemLower(rel.split('/').pop() ?? rel);
    return (this.byName.get(name) ?? []).find((c) => c.toLowerCase() === lr) ?? '';
  }
}

/**
 * Whether a link in the note `from` finds a note: true, false (unresolved:
 * show it apart, a click offers to create it), or null when it is no link
 * to a note (a URL, an attachment) or the notes are not known yet.
 */
export function linkResolves(names: NoteNames | null, from: string, link: LineLink): boolean | null {
  if (!names) return null;
  if (link.kind === 'wiki') {
    if (!link.target) return true; // [[#Heading]]: this note
    if (isFileTarget(link.target)) return null;
    return names.wiki(from, link.target) !== '';
  }
  const rel = relativeLinkPath(from, link.href);
  if (!rel || !isMarkdown(rel)) return null;
  return names.path(rel) !== '';
}

/** The Markdown note paths of a file tree (workspace.tree's nodes), depth first. */
export function notePathsOf(root: TreeNode | null): string[] {
  const out: string[] = [];
  const walk = (n: TreeNode) => {
    if (n.dir || n.children) for (const c of n.children ?? []) walk(c);
    else if (isMarkdown(n.path)) out.push(n.path);
  };
  if (root) walk(root);
  return out;
}
