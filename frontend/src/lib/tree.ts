// The workspace's file tree as the UI holds it: the nodes workspace.tree
// returned, patched in place by workspace:changed (insert, remove, move),
// and flattened into the rows the tree view shows (only open folders, or
// the matches of a name filter and the folders leading to them).
//
// Order: folders first, then names in the interface locale's collation,
// case-insensitive, runs of digits by value ("Note 2" < "Note 10"; in
// Chinese, names by pinyin: "笔记2" < "笔记10" < "中文"). Go sends the tree
// in its own natural order (workspace/tree.go), which for most names is
// this order already: sortTree checks each folder in one pass and sorts
// only those that differ (a tree of 10,000 notes costs one comparison per
// node, not n·log n); the store runs it on every fetched tree and again
// when the interface language changes.

import type { TreeNode } from '../api/types';
import { locale } from './i18n.svelte';

/** The drag data of a row of the file tree (FileTree.svelte): its workspace path, and "dir" for a folder (a drop into a note links it: lib/paste.ts). */
export const TREE_PATH = 'text/x-mnote-path';
export const TREE_KIND = 'text/x-mnote-kind';

/** Markdown extensions, as Go's workspace.IsMarkdown. */
const MD_EXT = new Set(['.md', '.markdown', '.mdown', '.mkd', '.mkdn', '.mdx']);

export function isMarkdown(name: string): boolean {
  const i = name.lastIndexOf('.');
  return i > 0 && MD_EXT.has(name.slice(i).toLowerCase());
}

/** Editors' temporary and backup files (Go's isTempName) and dot files: never listed. */
export function isHiddenName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.endsWith('~') ||
    name.includes('.mnote-tmp-') ||
    (name.length > 1 && name.startsWith('#') && name.endsWith('#')) ||
    name === '4913'
  );
}

export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

export function dirName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function joinPath(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

/** The folders leading to path, outermost first ("a/b/c.md" → ["a", "a/b"]). */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

/** path is base or inside it. */
export function isUnder(path: string, base: string): boolean {
  return base === '' || path === base || path.startsWith(base + '/');
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/** Go's naturalCompare: case-insensitive, runs of digits by value. */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      const si = i;
      const sj = j;
      while (i < a.length && isDigit(a.charCodeAt(i))) i++;
      while (j < b.length && isDigit(b.charCodeAt(j))) j++;
      const na = a.slice(si, i).replace(/^0+/, '');
      const nb = b.slice(sj, j).replace(/^0+/, '');
      if (na.length !== nb.length) return na.length < nb.length ? -1 : 1;
      if (na !== nb) return na < nb ? -1 : 1;
      continue;
    }
    const la = lower(ca);
    const lb = lower(cb);
    if (la !== lb) return la < lb ? -1 : 1;
    i++;
    j++;
  }
  const ra = a.length - i;
  const rb = b.length - j;
  return ra === rb ? 0 : ra < rb ? -1 : 1;
}

let collator: Intl.Collator | null = null;
let collatorLocale = '';

/** The collator of the interface locale (numeric, case-insensitive). */
function nameCollator(): Intl.Collator {
  const l = locale();
  if (!collator || collatorLocale !== l) {
    collator = new Intl.Collator(l, { numeric: true, sensitivity: 'base' });
    collatorLocale = l;
  }
  return collator;
}

/** Names in the interface locale's natural order; ties by code units. */
export function compareNames(a: string, b: string): number {
  return nameCollator().compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Folders first, then names (compareNames). */
export function compareNodes(a: TreeNode, b: TreeNode): number {
  if (!!a.dir !== !!b.dir) return a.dir ? -1 : 1;
  return compareNames(a.name, b.name);
}

/**
 * Sorts every folder's children (compareNodes) in place, leaving folders
 * already in order untouched (one comparison per child to find out);
 * returns the locale it sorted for.
 */
export function sortTree(root: TreeNode): string {
  // compareNodes with the collator looked up once, not per comparison.
  const coll = nameCollator();
  const cmp = (a: TreeNode, b: TreeNode): number => {
    if (!!a.dir !== !!b.dir) return a.dir ? -1 : 1;
    return coll.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  };
  const stack: TreeNode[] = [root];
  for (let n = stack.pop(); n; n = stack.pop()) {
    const ch = n.children;
    if (!ch) continue;
    for (let i = 1; i < ch.length; i++) {
      if (cmp(ch[i - 1], ch[i]) > 0) {
        ch.sort(cmp);
        break;
      }
    }
    for (const c of ch) if (c.children) stack.push(c);
  }
  return collatorLocale;
}

/** The node at path ("" is the root), walking from the root. */
export function findNode(root: TreeNode, path: string): TreeNode | undefined {
  if (path === '') return root;
  let n: TreeNode | undefined = root;
  for (const seg of path.split('/')) {
    n = n?.children?.find((c) => c.name === seg);
    if (!n) return undefined;
  }
  return n;
}

/** Index at which node goes in sorted children (binary search). */
function slot(children: TreeNode[], node: TreeNode): number {
  let lo = 0;
  let hi = children.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareNodes(children[mid], node) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Puts node at its path (missing folders on the way are made). A node
 * already there is kept (a folder keeps its children); returns whether
 * the tree changed.
 */
export function insertNode(root: TreeNode, node: TreeNode): boolean {
  const segs = node.path.split('/');
  let parent = root;
  let changed = false;
  for (let k = 0; k < segs.length - 1; k++) {
    const path = segs.slice(0, k + 1).join('/');
    let next = parent.children?.find((c) => c.name === segs[k]);
    if (!next) {
      next = { name: segs[k], path, dir: true, children: [] };
      const ch = (parent.children ??= []);
      ch.splice(slot(ch, next), 0, next);
      changed = true;
    } else if (!next.dir) {
      return changed; // a file where a folder should be: leave it for a refetch
    }
    parent = next;
  }
  const ch = (parent.children ??= []);
  const existing = ch.find((c) => c.name === node.name);
  if (existing) {
    if (!!existing.dir === !!node.dir) return changed;
    ch.splice(ch.indexOf(existing), 1); // a file became a folder (or back)
  }
  ch.splice(slot(ch, node), 0, node);
  return true;
}

/** Takes the node at path (and what it holds) out of the tree. */
export function removeNode(root: TreeNode, path: string): TreeNode | undefined {
  const parent = findNode(root, dirName(path));
  const ch = parent?.children;
  if (!ch) return undefined;
  const i = ch.findIndex((c) => c.name === baseName(path));
  if (i < 0) return undefined;
  return ch.splice(i, 1)[0];
}

function repath(n: TreeNode, path: string): void {
  n.path = path;
  n.name = baseName(path);
  for (const c of n.children ?? []) repath(c, joinPath(path, c.name));
}

/** Moves the node at from (with its children) to to. */
export function moveNode(root: TreeNode, from: string, to: string, fallback?: TreeNode): boolean {
  const n = removeNode(root, from) ?? fallback;
  if (!n) return false;
  repath(n, to);
  insertNode(root, n);
  return true;
}

/** Number of nodes below root (files and folders). */
export function countNodes(root: TreeNode): number {
  let n = 0;
  const walk = (x: TreeNode) => {
    for (const c of x.children ?? []) {
      n++;
      walk(c);
    }
  };
  walk(root);
  return n;
}

/** A row of the tree view. */
export interface Row {
  node: TreeNode;
  depth: number;
  /** A folder shown open. */
  open: boolean;
  /** Where the filter matched the name: [start, end). */
  match?: [number, number];
}

/** The rows to show: children of open folders, depth-first. */
export function flatten(root: TreeNode, open: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  const walk = (n: TreeNode, depth: number) => {
    for (const c of n.children ?? []) {
      const isOpen = !!c.dir && open.has(c.path);
      rows.push({ node: c, depth, open: isOpen });
      if (isOpen) walk(c, depth + 1);
    }
  };
  walk(root, 0);
  return rows;
}

/**
 * The rows for a name filter (case-insensitive substring of the name):
 * matching files and folders, with every folder leading to one shown open.
 * A matching folder is shown closed unless something inside it matches too.
 */
export function filterRows(root: TreeNode, query: string, limit = 5000): Row[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const rows: Row[] = [];
  let count = 0;
  // Returns the rows of n's subtree that match (folders included when
  // something below them does).
  const walk = (n: TreeNode, depth: number): Row[] => {
    const out: Row[] = [];
    for (const c of n.children ?? []) {
      if (count >= limit) break;
      const i = c.name.toLowerCase().indexOf(q);
      const match: [number, number] | undefined = i >= 0 ? [i, i + q.length] : undefined;
      if (c.dir) {
        const inner = walk(c, depth + 1);
        if (inner.length > 0 || match) {
          out.push({ node: c, depth, open: inner.length > 0, match });
          out.push(...inner);
          if (match && inner.length === 0) count++;
        }
      } else if (match) {
        out.push({ node: c, depth, open: false, match });
        count++;
      }
    }
    return out;
  };
  rows.push(...walk(root, 0));
  return rows;
}
