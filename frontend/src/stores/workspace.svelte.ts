// The open folder (workspace.get / open / pick) and its file tree: fetched
// once, then patched in place from workspace:changed (a rescan, or a batch
// too big to patch, fetches it again, debounced), flattened into the rows
// the tree view shows. Tree operations (create, rename, move, delete with
// undo) go through files.*; their own workspace:changed events find the
// tree already patched (every patch is idempotent).

import { ApiError, type Client } from '../api';
import type { FindHit, TreeNode, WorkspaceChange, WorkspaceInfo } from '../api/types';
import {
  ancestors,
  baseName,
  countNodes,
  dirName,
  filterRows,
  findNode,
  flatten,
  insertNode,
  isHiddenName,
  isMarkdown,
  isUnder,
  joinPath,
  moveNode,
  removeNode,
  sortTree,
  type Row,
} from '../lib/tree';
import { locale, m } from '../lib/i18n.svelte';
import { readBool, writeBool } from '../lib/prefs';
import { notePathsOf } from '../lib/unresolved';
import { SvelteMap } from 'svelte/reactivity';
import type { ToastStore } from './toasts.svelte';

const ALL_KEY = 'mnote.treeAll';
/** How long a file an agent changed stays marked in the tree. */
export const MARK_MS = 4000;
/** Batches with more changes than this fetch the tree again instead. */
const PATCH_MAX = 300;

export interface WorkspaceOptions {
  /** Delay before a refetch the events asked for (ms). */
  refetchDelayMs?: number;
  /** Delay before the name filter applies (ms). */
  filterDelayMs?: number;
}

export class WorkspaceStore {
  info: WorkspaceInfo | null = $state.raw(null);
  /** workspace.get has answered. */
  loaded = $state(false);
  loading = $state(false);
  error: ApiError | null = $state.raw(null);
  /** Every file, not only Markdown ones. */
  showAll = $state(readBool(ALL_KEY, false));
  /** The filter box's text; `query` is what the rows use (debounced). */
  filter = $state('');
  query = $state('');
  /** The focused row's path. */
  selected: string | null = $state(null);
  /** Bumped on every change of the tree or of the open folders. */
  version = $state(0);
  /** Files (and their folders) an agent changed lately: path → until (ms). */
  marks = new SvelteMap<string, number>();
  /** The tree's root, patched in place (read `rows`, or read `version` first). */
  root: TreeNode | null = $state.raw(null);
  /** Open folders. */
  readonly open = new Set<string>();
  /** Number of files and folders in the tree (for the header). */
  count = $state(0);
  /** A rename asked for from elsewhere (a tab, the editor's F2): the tree starts it in place. */
  renameRequest: { path: string; seq: number } | null = $state.raw(null);

  /** The locale the tree's children are sorted for (lib/tree sortTree). */
  private sortedFor = '';

  readonly rows: Row[] = $derived.by(() => {
    void this.version;
    const root = this.root;
    if (!root) return [];
    if (locale() !== this.sortedFor) this.sortedFor = sortTree(root); // the interface language changed
    return this.query ? filterRows(root, this.query) : flatten(root, this.open);
  });

  private treeToken = 0;
  private inflight: Promise<void> | null = null;
  private again = false;
  private refetchTimer: ReturnType<typeof setTimeout> | null = null;
  private filterTimer: ReturnType<typeof setTimeout> | null = null;
  private markTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly refetchDelayMs: number;
  private readonly filterDelayMs: number;

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
    opts: WorkspaceOptions = {},
  ) {
    this.refetchDelayMs = opts.refetchDelayMs ?? 150;
    this.filterDelayMs = opts.filterDelayMs ?? 80;
  }

  get name(): string {
    return this.info?.name ?? '';
  }

  /**
   * Asks Go which folder is open, and fetches its tree: both requests go
   * at once (the tree does not wait for workspace.get's answer); the tree
   * is used when a folder is open.
   */
  async load(): Promise<void> {
    const token = this.treeToken;
    const tree = this.fetchTree();
    tree.catch(() => {}); // no folder open: workspace.get says so
    try {
      this.info = await this.client.workspace.get();
      this.error = null;
    } catch (e) {
      this.error = ApiError.from(e);
    } finally {
      this.loaded = true;
    }
    if (!this.info) return;
    // A refresh started meanwhile (an event, a reconnect) asked for a newer
    // tree; a tree that failed is asked for again (the folder may have
    // opened between the two requests).
    const fresh = token === this.treeToken && !this.inflight;
    await this.refresh(fresh ? tree.catch(() => this.fetchTree()) : undefined);
  }

  private fetchTree(): Promise<TreeNode> {
    return this.client.workspace.tree(this.showAll ? { all: true } : {});
  }

  /** Opens another folder (the caller has dealt with open editors). Throws ApiError. */
  async openFolder(dir: string): Promise<WorkspaceInfo> {
    const info = await this.client.workspace.open(dir);
    this.use(info);
    await this.refresh();
    return info;
  }

  /** The native folder dialog: null when cancelled. Throws ApiError. */
  /** "Open folder…" uses the native folder dialog: in the window always,
   * also on first launch, before any folder is open (no info yet). */
  get canPick(): boolean {
    return this.info?.canPick ?? this.client.transportKind === 'wails';
  }

  async pick(): Promise<WorkspaceInfo | null> {
    const info = await this.client.workspace.pick(locale());
    if (!info) return null;
    this.use(info);
    await this.refresh();
    return info;
  }

  private use(info: WorkspaceInfo): void {
    this.info = info;
    this.root = null;
    this.open.clear();
    this.marks.clear();
    this.selected = null;
    this.setFilter('');
    this.count = 0;
    this.version++;
  }

  /**
   * Fetches the tree (the first round takes `fetched`, a request already
   * sent, when given); calls made while one runs coalesce into one more.
   */
  refresh(fetched?: Promise<TreeNode>): Promise<void> {
    if (this.refetchTimer) {
      clearTimeout(this.refetchTimer);
      this.refetchTimer = null;
    }
    if (this.inflight) {
      this.again = true;
      return this.inflight;
    }
    this.inflight = (async () => {
      do {
        this.again = false;
        const token = ++this.treeToken;
        this.loading = true;
        try {
          const req = fetched ?? this.fetchTree();
          fetched = undefined;
          const root = await req;
          if (token !== this.treeToken) continue;
          this.sortedFor = sortTree(root);
          this.root = root;
          this.count = countNodes(root);
          this.error = null;
          this.version++;
        } catch (e) {
          if (token === this.treeToken) this.error = ApiError.from(e);
        } finally {
          this.loading = false;
        }
      } while (this.again);
      this.inflight = null;
    })();
    return this.inflight;
  }

  /** A refetch soon (several requests in a row make one). */
  scheduleRefresh(): void {
    if (this.refetchTimer) clearTimeout(this.refetchTimer);
    this.refetchTimer = setTimeout(() => {
      this.refetchTimer = null;
      void this.refresh();
    }, this.refetchDelayMs);
  }

  setShowAll(all: boolean): void {
    if (all === this.showAll) return;
    this.showAll = all;
    writeBool(ALL_KEY, all);
    void this.refresh();
  }

  setFilter(text: string): void {
    this.filter = text;
    if (this.filterTimer) clearTimeout(this.filterTimer);
    if (!text.trim()) {
      this.query = '';
      return;
    }
    this.filterTimer = setTimeout(() => (this.query = text.trim()), this.filterDelayMs);
  }

  // ---- open folders and selection -------------------------------------------

  isOpen(path: string): boolean {
    return this.open.has(path);
  }

  setOpen(path: string, open: boolean): void {
    if (open === this.open.has(path)) return;
    if (open) this.open.add(path);
    else this.open.delete(path);
    this.version++;
  }

  toggle(path: string): void {
    this.setOpen(path, !this.open.has(path));
  }

  /** Opens the folders leading to path and selects it. */
  reveal(path: string): void {
    let changed = false;
    for (const a of ancestors(path)) {
      if (!this.open.has(a)) {
        this.open.add(a);
        changed = true;
      }
    }
    this.selected = path;
    if (changed) this.version++;
  }

  node(path: string): TreeNode | undefined {
    return this.root ? findNode(this.root, path) : undefined;
  }

  // ---- live changes ---------------------------------------------------------------

  /** Applies a workspace:changed batch to the tree. */
  applyChanges(changes: readonly WorkspaceChange[] | null | undefined, rescan = false): void {
    const list = changes ?? [];
    if (rescan || list.length > PATCH_MAX) {
      this.scheduleRefresh();
      this.markAgent(list);
      return;
    }
    if (!this.root || list.length === 0) return;
    if (locale() !== this.sortedFor) this.sortedFor = sortTree(this.root); // patches insert in the current order
    let changed = false;
    for (const c of list) {
      if (!c || typeof c.path !== 'string' || c.path === '') continue;
      try {
        changed = this.patch(c) || changed;
      } catch (e) {
        console.error('mnote: could not patch the tree', c, e);
        this.scheduleRefresh();
      }
    }
    this.markAgent(list);
    if (changed) {
      this.count = countNodes(this.root);
      this.version++;
    }
  }

  /** Whether a path belongs in this tree (dot files, temporary files and, unless all files are shown, non-Markdown files stay out). */
  shows(path: string, dir: boolean): boolean {
    if (path.split('/').some(isHiddenName)) return false;
    return dir || this.showAll || isMarkdown(baseName(path));
  }

  private patch(c: WorkspaceChange): boolean {
    const root = this.root!;
    const dir = !!c.dir;
    switch (c.op) {
      case 'created':
        if (!this.shows(c.path, dir)) return false;
        return insertNode(root, { name: baseName(c.path), path: c.path, dir, ...(dir ? { children: [] } : {}) });
      case 'removed':
        this.forget(c.path);
        return !!removeNode(root, c.path);
      case 'renamed': {
        const from = c.from ?? '';
        if (!this.shows(c.path, dir)) {
          this.forget(from);
          return !!(from && removeNode(root, from));
        }
        if (from && findNode(root, from)) {
          this.moveOpen(from, c.path);
          return moveNode(root, from, c.path);
        }
        return insertNode(root, { name: baseName(c.path), path: c.path, dir, ...(dir ? { children: [] } : {}) });
      }
      default:
        return false; // changed: nothing to move
    }
  }

  /** Drops open folders and the selection under a path that went away. */
  private forget(path: string): void {
    if (!path) return;
    for (const p of [...this.open]) if (isUnder(p, path)) this.open.delete(p);
    if (this.selected && isUnder(this.selected, path)) this.selected = dirName(path) || null;
  }

  /** Open folders (and the selection) under from follow a move to to. */
  private moveOpen(from: string, to: string): void {
    for (const p of [...this.open]) {
      if (isUnder(p, from)) {
        this.open.delete(p);
        this.open.add(to + p.slice(from.length));
      }
    }
    if (this.selected && isUnder(this.selected, from)) this.selected = to + this.selected.slice(from.length);
  }

  /** Marks what an agent changed (fs/write_text_file, or a file written during its turn) for a few seconds. */
  private markAgent(changes: readonly WorkspaceChange[]): void {
    const until = Date.now() + MARK_MS;
    let any = false;
    for (const c of changes) {
      if (!c?.path || c.op === 'removed') continue;
      if (c.origin !== 'agent' && !(c.turn && c.origin !== 'app')) continue;
      this.marks.set(c.path, until);
      for (const a of ancestors(c.path)) this.marks.set(a, until);
      any = true;
    }
    if (any) this.sweepMarksLater();
  }

  private sweepMarksLater(): void {
    if (this.markTimer) return;
    this.markTimer = setTimeout(() => {
      this.markTimer = null;
      const now = Date.now();
      for (const [p, until] of this.marks) if (until <= now) this.marks.delete(p);
      if (this.marks.size > 0) this.sweepMarksLater();
    }, MARK_MS);
  }

  isMarked(path: string): boolean {
    return this.marks.has(path);
  }

  /** Files matching a name query, best first (the @-mention picker); [] when none or on failure. */
  async find(query: string, limit = 12): Promise<FindHit[]> {
    if (!this.info) return [];
    try {
      return await this.client.workspace.find(query, limit);
    } catch {
      return [];
    }
  }

  // ---- tree operations ----------------------------------------------------------------

  /** The Markdown notes of the tree (null until it is read). */
  notePaths(): string[] | null {
    return this.root ? notePathsOf(this.root) : null;
  }

  /** Asks the tree to rename path in place (shown and revealed). */
  requestRename(path: string): void {
    this.reveal(path);
    this.renameRequest = { path, seq: (this.renameRequest?.seq ?? 0) + 1 };
  }

  /** Creates a file (".md" added when the name has no extension) or a folder in dir; returns its path, or null on failure (a toast says why). */
  async create(dir: string, name: string, isDir: boolean): Promise<string | null> {
    const clean = name.trim().replace(/^\/+|\/+$/g, '');
    if (!clean) return null;
    if (clean.split('/').some((s) => s === '..' || s === '.')) {
      this.toasts.error(m.notes_name_dots);
      return null;
    }
    const file = isDir || /\.[^/.]+$/.test(clean) ? clean : clean + '.md';
    const path = joinPath(dir, file);
    try {
      await this.client.files.create(path, isDir);
    } catch (e) {
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.notes_create_failed({ name: file, error }));
      return null;
    }
    this.applyChanges([{ path, op: 'created', dir: isDir, origin: 'app' }]);
    if (!isDir && !this.shows(path, false)) this.toasts.show({ message: () => m.notes_not_markdown({ name: file }) });
    this.reveal(path);
    return path;
  }

  /** Renames in place; returns the new path or null. */
  rename(path: string, newName: string): Promise<string | null> {
    const name = newName.trim();
    if (!name || name === baseName(path)) return Promise.resolve(null);
    if (name.includes('/') || name === '.' || name === '..') {
      this.toasts.error(m.notes_name_slash);
      return Promise.resolve(null);
    }
    return this.move(path, joinPath(dirName(path), name));
  }

  /** Moves path to to (another folder, or a new name); returns to, or null. */
  async move(path: string, to: string): Promise<string | null> {
    if (path === to) return null;
    if (isUnder(to, path)) {
      this.toasts.error(m.notes_move_into_itself);
      return null;
    }
    const n = this.node(path);
    try {
      await this.client.files.rename(path, to);
    } catch (e) {
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.notes_move_failed({ name: baseName(path), error }));
      return null;
    }
    this.applyChanges([{ path: to, from: path, op: 'renamed', dir: !!n?.dir, origin: 'app' }]);
    this.reveal(to);
    return to;
  }

  /** Moves path into the folder dir ("" = the top). */
  moveInto(path: string, dir: string): Promise<string | null> {
    const to = joinPath(dir, baseName(path));
    if (dirName(path) === dir) return Promise.resolve(null);
    return this.move(path, to);
  }

  /** Moves path to the trash, with an Undo toast. */
  async remove(path: string): Promise<boolean> {
    const n = this.node(path);
    let trash;
    try {
      trash = await this.client.files.delete(path);
    } catch (e) {
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.notes_delete_failed({ name: baseName(path), error }));
      return false;
    }
    this.applyChanges([{ path, op: 'removed', dir: !!n?.dir, origin: 'app' }]);
    this.toasts.show({
      message: () => m.notes_deleted({ name: baseName(path) }),
      action: {
        label: m.common_undo,
        run: async () => {
          try {
            await this.client.files.restore(trash);
            this.applyChanges([{ path, op: 'created', dir: !!n?.dir, origin: 'app' }]);
            if (n?.dir) this.scheduleRefresh(); // its contents came back too
          } catch (e) {
            const error = ApiError.from(e).message;
            this.toasts.error(() => m.notes_restore_failed({ name: baseName(path), error }));
          }
        },
      },
    });
    return true;
  }
}
