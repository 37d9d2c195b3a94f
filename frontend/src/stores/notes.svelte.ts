// The notes index in the window: search over the notes (debounced, the
// answers to older queries dropped), the index's progress (notes:index),
// the backlinks of the open note and its unresolved links (kept current),
// every unresolved link of the folder (while the list shows), whether a
// link finds a note (at once, from the tree: lib/unresolved.ts), what a
// clicked link opens (a missing note is offered for creation), and, after
// a note or attachment is renamed or moved, the offer to update the links
// that pointed at it (with an Undo).

import { ApiError, type Client } from '../api';
import type { NoteHeading, NoteHit, NoteLink, NotesIndexStatus, WorkspaceChanged } from '../api/types';
import { m } from '../lib/i18n.svelte';
import { isSafeHref } from '../lib/markdown';
import { baseName, dirName, isMarkdown } from '../lib/tree';
import { extOf } from '../lib/rename';
import { readBool, writeBool } from '../lib/prefs';
import type { Command } from '../lib/commands.svelte';
import { linkFragment, newNotePath, noteName, relativeLinkPath, wikiParts, type LineLink, type LinkCompletion } from '../lib/links';
import { isFileTarget, linkResolves, NoteNames } from '../lib/unresolved';
import type { ConfirmStore } from './confirm.svelte';
import type { ToastStore } from './toasts.svelte';

const UNRESOLVED_OPEN_KEY = 'mnote.unresolvedOpen';

/** The open linking-update offer: "Update N links in M notes?". */
export interface LinkOffer {
  from: string;
  to: string;
  links: number;
  notes: number;
  /** A folder moved: the links point into it. */
  folder?: boolean;
}

/** How many matching lines of each note the search lists (its count says how many there are). */
export const LINES_PER_NOTE = 50;

export interface NotesDeps {
  /** Opens a note (at a 1-based line). */
  open(path: string, line?: number): Promise<boolean>;
  /** Creates a note (the tree's create: toasts on failure); its path or null. */
  create(path: string): Promise<string | null>;
  /** Opens a web or mailto link outside the app (Ctrl/Cmd+click in the editor). */
  openExternal?(url: string): void;
  /** The Markdown notes the app knows (the file tree), and a number that changes when they do (reactive). */
  notePaths?(): { version: number; paths: () => Iterable<string> | null };
}

export class NotesStore {
  status: NotesIndexStatus | null = $state.raw(null);

  // ---- search view
  /** The notes area shows the search view instead of the tree. */
  searchOpen = $state(false);
  /** Bumped to focus the search field. */
  focusTick = $state(0);
  query = $state('');
  folder = $state('');
  hits: NoteHit[] = $state.raw([]);
  /** The query the hits answer. */
  answered = $state('');
  searching = $state(false);
  searchError: ApiError | null = $state.raw(null);
  /** Index of the selected hit (in `hits` order). */
  selected = $state(0);

  // ---- backlinks
  backlinksPath: string | null = $state(null);
  backlinks: NoteLink[] = $state.raw([]);
  backlinksLoading = $state(false);

  /** The open note's links that find no note (notes.unresolved of backlinksPath). */
  noteUnresolved: NoteLink[] = $state.raw([]);

  // ---- every unresolved link of the folder (the notes panel's list)
  /** The list is shown (remembered): kept current while it is. */
  unresolvedOpen = $state(readBool(UNRESOLVED_OPEN_KEY, false));
  unresolved: NoteLink[] = $state.raw([]);
  unresolvedLoading = $state(false);

  /** Bumped when notes appear, go or move (links may resolve differently). */
  linksTick = $state(0);

  offer: LinkOffer | null = $state.raw(null);

  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private blSeq = 0;
  /** The note whose backlinks were last answered: refreshing them (after each save) shows them on, not "finding links…". */
  private blAnswered: string | null = null;
  /** The folder's unresolved links were answered once (refreshes show them on meanwhile). */
  private urAnswered = false;
  private blTimer: ReturnType<typeof setTimeout> | null = null;
  private urSeq = 0;
  private urTimer: ReturnType<typeof setTimeout> | null = null;
  private names: NoteNames | null = null;
  private namesVersion = -1;

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
    private readonly confirm: ConfirmStore,
    private readonly deps: NotesDeps,
    private readonly delayMs = 150,
  ) {}

  // ---- index status -----------------------------------------------------------

  async loadStatus(): Promise<void> {
    try {
      this.applyStatus(await this.client.notes.status());
    } catch {
      this.status = null; // no folder, or not indexed: the view says nothing about it
    }
  }

  applyStatus(s: NotesIndexStatus | null | undefined): void {
    if (!s || typeof s !== 'object') return;
    const wasReady = this.status?.ready;
    this.status = s;
    if (s.ready && !wasReady) {
      this.linksTick++;
      if (this.query.trim()) this.schedule(0);
      this.refreshBacklinks(0);
    }
  }

  /** "Indexing": the first build is running. */
  get indexing(): boolean {
    return !!this.status && !this.status.ready;
  }

  // ---- search -----------------------------------------------------------------

  showSearch(): void {
    this.searchOpen = true;
    this.focusTick++;
  }

  hideSearch(): void {
    this.searchOpen = false;
  }

  setQuery(q: string): void {
    this.query = q;
    this.schedule(this.delayMs);
  }

  setFolder(f: string): void {
    this.folder = f.trim().replace(/^\/+|\/+$/g, '');
    this.schedule(this.delayMs);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    if (!this.query.trim()) {
      this.seq++;
      this.hits = [];
      this.answered = '';
      this.searching = false;
      this.searchError = null;
      return;
    }
    this.searching = true;
    this.timer = setTimeout(() => void this.run(), ms);
  }

  async run(): Promise<void> {
    const q = this.query.trim();
    const n = ++this.seq;
    if (!q) return;
    this.searching = true;
    try {
      const hits = await this.client.notes.search(q, { folder: this.folder || undefined, limit: 200, lines: LINES_PER_NOTE });
      if (n !== this.seq) return;
      this.hits = hits;
      this.answered = q;
      this.selected = 0;
      this.searchError = null;
    } catch (e) {
      if (n !== this.seq) return;
      this.hits = [];
      this.searchError = ApiError.from(e);
    } finally {
      if (n === this.seq) this.searching = false;
    }
  }

  move(delta: number): void {
    if (!this.hits.length) return;
    this.selected = (this.selected + delta + this.hits.length) % this.hits.length;
  }

  openHit(h: NoteHit | undefined = this.hits[this.selected]): void {
    if (h) void this.deps.open(h.path, h.line);
  }

  // ---- backlinks ----------------------------------------------------------------

  /** Shows the backlinks of path (the open note; null: none). */
  setBacklinksPath(path: string | null): void {
    if (path === this.backlinksPath) return;
    this.backlinksPath = path;
    this.backlinks = [];
    this.noteUnresolved = [];
    this.blAnswered = null;
    this.refreshBacklinks(0);
  }

  refreshBacklinks(ms = 300): void {
    if (this.unresolvedOpen) this.refreshUnresolved(ms);
    if (this.blTimer) clearTimeout(this.blTimer);
    const path = this.backlinksPath;
    if (!path) {
      this.blSeq++;
      this.backlinksLoading = false;
      return;
    }
    this.backlinksLoading = this.blAnswered !== path;
    this.blTimer = setTimeout(async () => {
      const n = ++this.blSeq;
      try {
        const [ls, un] = await Promise.all([this.client.notes.backlinks(path), this.client.notes.unresolved(path).catch(() => [])]);
        if (n === this.blSeq && this.backlinksPath === path) {
          this.backlinks = ls;
          this.noteUnresolved = un;
        }
      } catch {
        if (n === this.blSeq) {
          this.backlinks = [];
          this.noteUnresolved = [];
        }
      } finally {
        if (n === this.blSeq) {
          this.backlinksLoading = false;
          if (this.backlinksPath === path) this.blAnswered = path;
        }
      }
    }, ms);
  }

  /** Shows (or hides) the folder's unresolved links; shown, they are fetched and kept current. */
  showUnresolved(open: boolean): void {
    if (open !== this.unresolvedOpen) writeBool(UNRESOLVED_OPEN_KEY, open);
    this.unresolvedOpen = open;
    if (open) this.refreshUnresolved(0);
  }

  refreshUnresolved(ms = 300): void {
    if (this.urTimer) clearTimeout(this.urTimer);
    this.unresolvedLoading = !this.urAnswered;
    this.urTimer = setTimeout(async () => {
      const n = ++this.urSeq;
      try {
        const ls = await this.client.notes.unresolved();
        if (n === this.urSeq) this.unresolved = ls;
      } catch {
        if (n === this.urSeq) this.unresolved = [];
      } finally {
        if (n === this.urSeq) {
          this.unresolvedLoading = false;
          this.urAnswered = true;
        }
      }
    }, ms);
  }

  /** The notes the app knows, by name (null until the tree is read). Reactive on the tree. */
  noteNames(): NoteNames | null {
    const src = this.deps.notePaths?.();
    if (!src) return null;
    if (src.version !== this.namesVersion || !this.names) {
      const paths = src.paths();
      this.names = paths ? new NoteNames(paths) : null;
      this.namesVersion = paths ? src.version : -1;
    }
    return this.names;
  }

  /** Whether a link in the note `from` finds a note, at once (lib/unresolved.ts): null when it is no note link or the notes are not known yet. */
  linkResolves(from: string, link: LineLink): boolean | null {
    return linkResolves(this.noteNames(), from, link);
  }

  /** A workspace:changed batch: Markdown files changed, so links and backlinks may have. */
  applyWorkspaceChanged(p: WorkspaceChanged): void {
    const md = (p.changes ?? []).filter((c) => c && (c.dir || isMarkdown(c.path) || (c.from !== undefined && isMarkdown(c.from))));
    if (!md.length && !p.rescan) return;
    if (p.rescan || md.some((c) => c.op !== 'changed')) this.linksTick++;
    // The index follows the watcher; give it a moment before asking.
    this.refreshBacklinks(400);
  }

  // ---- links in the editor and Quick Open ------------------------------------------

  /** Completions of a link being typed in the note `from`: note names after [[, the resolved note's headings after [[Note#. */
  async linkOptions(from: string, c: LinkCompletion): Promise<{ label: string; detail?: string; insert: string }[]> {
    try {
      if (c.kind === 'note') {
        const hits = await this.client.workspace.find(c.query, 20);
        return hits
          .filter((h) => !h.dir && isMarkdown(h.path))
          .map((h) => ({ label: noteName(h.path), detail: dirName(h.path), insert: noteName(h.path) }));
      }
      const path = c.note ? await this.client.notes.resolve(from, c.note, true) : from;
      if (!path) return [];
      const q = c.query.trim().toLowerCase();
      return (await this.client.notes.outline(path))
        .filter((h) => !q || h.text.toLowerCase().includes(q))
        .map((h) => ({ label: h.text, detail: 'H' + h.level, insert: h.text }));
    } catch {
      return [];
    }
  }

  /** Headings matching query across the notes (Quick Open's #). */
  async headings(query: string, limit = 30): Promise<NoteHeading[]> {
    return this.client.notes.headings(query, limit);
  }

  // ---- following links ------------------------------------------------------------

  /** The note a link in the note `from` points at ("" when none); null when it is not a link to a note or cannot be resolved (quiet: without a toast). */
  async resolve(from: string, link: LineLink, quiet = false): Promise<{ path: string; target: string; heading: string } | null> {
    try {
      if (link.kind === 'wiki') {
        if (!link.target) return { path: from, target: noteName(from), heading: link.heading };
        return { path: await this.client.notes.resolve(from, link.target, true), target: link.target, heading: link.heading };
      }
      const rel = relativeLinkPath(from, link.href);
      if (!rel) return null;
      // Not a note (a picture, a PDF…): opened as it is, never offered for creation.
      if (!isMarkdown(rel)) return { path: rel, target: rel, heading: '' };
      return { path: await this.client.notes.resolve(from, rel, false), target: rel, heading: linkFragment(link.href) };
    } catch (e) {
      const error = ApiError.from(e).message;
      if (!quiet) this.toasts.error(() => m.notes_link_failed({ error }));
      return null;
    }
  }

  /** Opens what a link points at (at its heading); a missing note is offered for creation. Resolves false when nothing opened. */
  async follow(from: string, link: LineLink): Promise<boolean> {
    if (link.kind === 'md' && !relativeLinkPath(from, link.href)) {
      if (!/^(https?:|mailto:)/i.test(link.href) || !isSafeHref(link.href) || !this.deps.openExternal) return false;
      this.deps.openExternal(link.href);
      return true;
    }
    const r = await this.resolve(from, link);
    if (!r) return false;
    if (r.path) return this.openAtHeading(r.path, r.heading);
    if (link.kind === 'wiki' && isFileTarget(link.target)) {
      // [[report.pdf]], ![[图.png]]: an attachment no file answers, never a note to create.
      const name = link.target;
      this.toasts.error(() => m.notes_attachment_missing({ name }));
      return false;
    }
    return this.offerCreate(link.kind === 'wiki' ? newNotePath(from, r.target) : r.target, r.target);
  }

  /** Creates the note an unresolved link (notes.unresolved) names, after asking, and opens it. */
  createMissing(l: NoteLink): Promise<boolean> {
    return this.offerCreate(l.wiki ? newNotePath(l.from, l.target) : l.target, l.target);
  }

  /** Asks to create the note at path (null: the name target cannot be a note's), creates and opens it. */
  private async offerCreate(path: string | null, target: string): Promise<boolean> {
    if (!path) {
      const name = target;
      this.toasts.error(() => m.notes_bad_name({ name }));
      return false;
    }
    const v = await this.confirm.ask({
      title: () => m.notes_create_title({ name: noteName(path) }),
      message: () => m.notes_create_message({ path }),
      buttons: [
        { label: m.notes_create, value: 'create', kind: 'primary' },
        { label: m.common_cancel, value: 'cancel' },
      ],
    });
    if (v !== 'create') return false;
    const made = await this.deps.create(path);
    if (!made) return false;
    this.linksTick++;
    this.refreshBacklinks(400);
    return this.deps.open(made);
  }

  private async openAtHeading(path: string, heading: string): Promise<boolean> {
    let line: number | undefined;
    if (heading) {
      try {
        const want = heading.toLowerCase();
        line = (await this.client.notes.outline(path)).find((h) => h.text.toLowerCase() === want)?.line;
      } catch {
        line = undefined;
      }
    }
    return this.deps.open(path, line);
  }

  // ---- links after a rename ---------------------------------------------------------

  /** After a note (or, dir, a folder) moved from → to: counts the links that pointed at it (into it), and offers to update them. */
  async afterRename(from: string, to: string, dir = false): Promise<void> {
    // A note that became another kind of file (or back) has no links to update; an attachment has (![](a.png), ![[a.png]]).
    if (!dir && (isMarkdown(from) !== isMarkdown(to) || (!isMarkdown(from) && (!extOf(baseName(from)) || !extOf(baseName(to)))))) return;
    try {
      const r = await this.client.notes.updateLinks(from, to, true);
      this.offer = r.links > 0 ? { from, to, links: r.links, notes: r.changed.length, ...(dir ? { folder: true } : {}) } : null;
    } catch {
      this.offer = null; // not indexed: nothing to offer
    }
  }

  dismissOffer(): void {
    this.offer = null;
  }

  async acceptOffer(): Promise<void> {
    const o = this.offer;
    if (!o) return;
    this.offer = null;
    let r;
    try {
      r = await this.client.notes.updateLinks(o.from, o.to);
    } catch (e) {
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.notes_links_update_failed({ error }));
      return;
    }
    const undo = r.undo;
    const skipped = r.skipped?.length ?? 0;
    const counts = { links: r.links, notes: r.changed.length };
    this.toasts.show({
      message: () => (skipped ? m.notes_links_updated_skipped({ ...counts, skipped }) : m.notes_links_updated(counts)),
      timeoutMs: 12000,
      action: undo
        ? {
            label: m.common_undo,
            run: async () => {
              try {
                const restored = await this.client.notes.undoUpdateLinks(undo);
                this.toasts.show({ message: () => m.notes_links_undone({ count: restored.length }) });
              } catch (e) {
                const err = ApiError.from(e);
                this.toasts.error(err.code === 'conflict' ? m.notes_links_undo_conflict : () => m.notes_links_undo_failed({ error: err.message }));
              }
            },
          }
        : undefined,
    });
    this.refreshBacklinks(400);
  }

  // ---- links in the chat -----------------------------------------------------------

  private chatFound = new Map<string, Promise<boolean>>();
  private chatTick = -1;

  /** A note link shown in the chat (a wikilink's inside, or a relative link's href), resolved from the folder's top; null when it cannot name a note. */
  chatLink(l: { wiki: string } | { href: string }): LineLink | null {
    if ('wiki' in l) {
      const p = wikiParts(l.wiki);
      return p.target ? { kind: 'wiki', from: 0, to: 0, ...p } : null;
    }
    const rel = relativeLinkPath('', l.href);
    return rel && isMarkdown(rel) ? { kind: 'md', from: 0, to: 0, href: l.href } : null;
  }

  /** Whether a note link in the chat finds a note (asked once per name until notes appear, go or move). */
  chatLinkFinds(l: { wiki: string } | { href: string }): Promise<boolean> {
    const link = this.chatLink(l);
    if (!link) return Promise.resolve(false);
    if (this.chatTick !== this.linksTick) {
      this.chatFound.clear();
      this.chatTick = this.linksTick;
    }
    const key = link.kind === 'wiki' ? 'w:' + link.target.toLowerCase() : 'm:' + link.href.split('#')[0];
    let p = this.chatFound.get(key);
    if (!p) {
      p = this.resolve('', link, true).then((r) => !!r && r.path !== '');
      this.chatFound.set(key, p);
    }
    return p;
  }

  /** Opens the note a link in the chat names (at its heading); a missing one is offered for creation. */
  async openFromChat(l: { wiki: string } | { href: string }): Promise<boolean> {
    const link = this.chatLink(l);
    return link ? this.follow('', link) : false;
  }

  /** Another folder opened: what was shown belongs to the old one. */
  reset(): void {
    this.seq++;
    this.hits = [];
    this.answered = '';
    this.query = '';
    this.status = null;
    this.offer = null;
    this.unresolved = [];
    this.urAnswered = false;
    this.chatFound.clear();
    this.setBacklinksPath(null);
    void this.loadStatus();
  }
}

/** What the command palette (lib/commands.svelte.ts) offers of renames and links: rename the open note (F2: through the tree, with the link update), show the unresolved links. */
export function linkCommands(app: {
  editor: { activePath: string | null };
  ui: { notesOpen: boolean; toggleNotes(): void };
  notes: NotesStore;
  startRename(path: string): void;
}): Command[] {
  return [
    {
      id: 'notes.rename',
      group: 'notes',
      label: m.notes_ln_cmd_rename,
      keys: ['F2'], // i18n-ignore: key names
      // Not while typing elsewhere (the tree, a tab and the editor take F2 first).
      when: (e) => !!app.editor.activePath && !(e?.target as Element | null)?.closest?.('input, textarea, [contenteditable="true"]'),
      run: () => {
        if (app.editor.activePath) app.startRename(app.editor.activePath);
      },
    },
    {
      id: 'notes.unresolved',
      group: 'notes',
      label: m.notes_ln_cmd_unresolved,
      run: () => {
        if (!app.ui.notesOpen) app.ui.toggleNotes();
        app.notes.hideSearch();
        app.notes.showUnresolved(true);
      },
    },
  ];
}
