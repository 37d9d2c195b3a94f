// The open notes: tabs, each a buffer on the Go side (files.open), so an
// agent's fs/read_text_file sees unsaved edits. What the user types is
// pushed with files.update (debounced), saved with files.save (Ctrl/Cmd+S,
// or autosave — on unless turned off), and kept in step with the disk through the
// buffer events of workspace:changed:
//
//   reloaded / restored / written  the editor takes the new content (an
//                                  agent's write included); typed edits Go
//                                  has not seen yet are merged into it line
//                                  by line (lib/merge.ts), or, when both
//                                  changed the same lines, it is a conflict
//                                  held here
//   merged                         an agent wrote the file while it had
//                                  unsaved edits: Go merged them, the tab
//                                  stays unsaved and says so (the disk holds
//                                  the agent's text until the next save)
//   conflict                       the disk changed under unsaved edits:
//                                  Keep mine / Take theirs / Show diff
//   deleted                        the tab is marked; saving writes it again
//   moved                          the tab follows a rename
//
// A buffer state older than the tab's (its version) is ignored: events and
// call answers may arrive in either order.

import { ApiError, type Client } from '../api';
import type { BufferEvent, BufferState, PromptContext } from '../api/types';
import { m } from '../lib/i18n.svelte';
import { merge3 } from '../lib/merge';
import { readBool, readPref, writeBool, writePref } from '../lib/prefs';
import { baseName, isUnder } from '../lib/tree';
import type { ConfirmStore } from './confirm.svelte';
import type { ToastStore } from './toasts.svelte';

const AUTOSAVE_KEY = 'mnote.autosave';
const VIEW_KEY = 'mnote.editor.view';

/** What a tab shows: the editor's source, its live preview (the default), the source and its preview side by side, or the preview. */
export type ViewMode = 'edit' | 'live' | 'split' | 'preview';
const VIEW_MODES: readonly ViewMode[] = ['edit', 'live', 'split', 'preview'];

/** The editor's text: a string, or anything that turns into one (CodeMirror's Text). */
export type TextSource = string | { toString(): string };

export interface Selection {
  path: string;
  text: string;
  /** 1-based, inclusive. */
  fromLine: number;
  toLine: number;
}

/** Unsaved lines an agent's write removed (BufferEvent.dropped) and the texts before the write. */
export interface Dropped {
  lines: string[];
  previous: string;
  previousDisk: string;
}

/** What "Show diff" shows: two texts (a conflict held here) or Go's unified diff. */
export type DiffShown =
  | { path: string; state: 'loading' }
  | { path: string; state: 'pair'; theirs: string; mine: string }
  | { path: string; state: 'unified'; text: string }
  | { path: string; state: 'error'; message: string };

let tabIds = 0;
let revealSeq = 0;

/** A line to show: the editor of that tab scrolls there and puts the cursor at its start. */
export interface Insertion {
  path: string;
  text: string;
  seq: number;
}

export interface Reveal {
  path: string;
  /** 1-based. */
  line: number;
  seq: number;
}

export class Tab {
  /** Stable across renames (the key of the tab strip and the editor's cached state). */
  readonly id = ++tabIds;
  path = $state('');
  /** The content the editor takes on (bumped `replaced`): what Go gave when the tab opened or the content was replaced. */
  content: string = $state.raw('');
  /** Bumped whenever the editor must take `content` (reload, an agent's write, take theirs). */
  replaced = $state(0);
  /** Bumped when the text changes (pushed, replaced): the preview re-renders. */
  textTick = $state(0);
  /** Go holds unsaved edits. */
  goDirty = $state(false);
  /** Typed edits not pushed to Go yet. */
  pending = $state(false);
  conflict = $state(false);
  /** The disk's content, when it changed while typed edits were not yet pushed (a conflict Go has not seen). */
  theirs: string | null = $state.raw(null);
  /** A Keep mine / Take theirs on its way to Go: a save waits for it. */
  resolving: Promise<void> | null = null;
  deleted = $state(false);
  saving = $state(false);
  /** The view chosen for this tab (split shows one at a time when the pane is narrow). */
  mode: ViewMode = $state('live');
  /** When an agent last wrote the file (ms): the tab flashes. */
  agentWrote = $state(0);
  /** An agent's write was merged into unsaved edits (the bar says so until the tab is saved or replaced). */
  merged = $state(false);
  /** Unsaved lines an agent's write removed, with the texts before it (the bar offers to put them back). */
  dropped: Dropped | null = $state.raw(null);
  /** The text Go's buffer holds as far as the tab knows (the base its typed edits are merged from). */
  synced = '';
  /** The last buffer version applied. */
  version = 0;
  /** The editor's text since the last replacement (null: `content`). */
  draft: TextSource | null = null;
  /** Bumped by every edit (to know whether an answer covers the latest; the preview beside the editor follows it). */
  editSeq = $state(0);
  closed = false;

  constructor(st: BufferState) {
    this.path = st.path;
    this.content = st.content;
    this.synced = st.content;
    this.goDirty = st.dirty;
    this.conflict = !!st.conflict;
    this.deleted = !!st.deleted;
    this.version = st.version;
  }

  get dirty(): boolean {
    return this.pending || this.goDirty;
  }

  /** The preview shows (alone or beside the editor). */
  get preview(): boolean {
    return this.mode === 'split' || this.mode === 'preview';
  }

  get name(): string {
    return baseName(this.path);
  }

  /** The text the editor holds now. */
  text(): string {
    return this.draft === null ? this.content : String(this.draft);
  }
}

export interface EditorOptions {
  /** Delay before typed edits go to Go (ms). */
  updateDelayMs?: number;
  /** Delay after typing stops before autosave saves (ms). */
  autosaveDelayMs?: number;
}

export class EditorStore {
  tabs: Tab[] = $state.raw([]);
  activePath: string | null = $state(null);
  /** On unless the user turned it off (Settings, or the editor's status line). */
  autosave = $state(readBool(AUTOSAVE_KEY, true));
  /** The selection in the active editor (empty selections are null). */
  selection: Selection | null = $state.raw(null);
  /** The path whose chip the user removed from the composer. */
  contextOff: string | null = $state(null);
  diff: DiffShown | null = $state.raw(null);
  /** A line the editor is to show (openAt); cleared by the editor once shown. */
  reveal: Reveal | null = $state.raw(null);
  /** Text to insert at the cursor of a tab's editor (insertAtCursor); cleared by the editor once inserted. */
  insertion: Insertion | null = $state.raw(null);
  /** The view new tabs open in: the last one chosen (kept). */
  viewMode: ViewMode = $state(viewPref());
  /** The note pane is too narrow for split (the editor pane says): split shows the editor. */
  narrow = $state(false);

  private pushTimers = new Map<Tab, ReturnType<typeof setTimeout>>();
  private saveTimers = new Map<Tab, ReturnType<typeof setTimeout>>();
  private opening = new Map<string, Promise<Tab | null>>();
  private readonly updateDelayMs: number;
  private readonly autosaveDelayMs: number;

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
    private readonly confirm: ConfirmStore,
    opts: EditorOptions = {},
  ) {
    this.updateDelayMs = opts.updateDelayMs ?? 300;
    this.autosaveDelayMs = opts.autosaveDelayMs ?? 1000;
  }

  get active(): Tab | undefined {
    const p = this.activePath;
    return p === null ? undefined : this.tabs.find((t) => t.path === p);
  }

  byPath(path: string): Tab | undefined {
    return this.tabs.find((t) => t.path === path);
  }

  get anyDirty(): boolean {
    return this.tabs.some((t) => t.dirty);
  }

  /** The open file (and selection) to offer the agent, unless the user removed it. */
  get context(): PromptContext | null {
    const t = this.active;
    if (!t || this.contextOff === t.path) return null;
    const s = this.selection;
    if (s && s.path === t.path && s.text) {
      return { path: t.path, selection: { text: s.text, fromLine: s.fromLine, toLine: s.toLine } };
    }
    return { path: t.path };
  }

  dismissContext(): void {
    this.contextOff = this.activePath;
  }

  restoreContext(): void {
    this.contextOff = null;
  }

  setSelection(sel: Selection | null): void {
    const cur = this.selection;
    if (sel === null ? cur === null : cur && cur.path === sel.path && cur.text === sel.text && cur.fromLine === sel.fromLine && cur.toLine === sel.toLine) return;
    this.selection = sel && sel.text ? sel : null;
  }

  setAutosave(on: boolean): void {
    this.autosave = on;
    writeBool(AUTOSAVE_KEY, on);
    if (!on) for (const t of [...this.saveTimers.keys()]) this.clearTimer(this.saveTimers, t);
  }

  /** Shows tab in a view (and remembers it for the tabs opened next). */
  setMode(tab: Tab | undefined, mode: ViewMode): void {
    this.viewMode = mode;
    writePref(VIEW_KEY, mode);
    if (tab) tab.mode = mode;
  }

  /** The next view (Ctrl+Shift+V): source → live → split → preview → source; split is skipped while the pane is narrow. */
  cycleMode(tab: Tab | undefined = this.active): void {
    if (!tab) return;
    const cur = tab.mode === 'split' && this.narrow ? 'edit' : tab.mode;
    let next = VIEW_MODES[(VIEW_MODES.indexOf(cur) + 1) % VIEW_MODES.length];
    if (next === 'split' && this.narrow) next = 'preview';
    this.setMode(tab, next);
  }

  activate(path: string): void {
    if (!this.byPath(path) || this.activePath === path) return;
    this.activePath = path;
    if (this.contextOff !== path) this.contextOff = null;
  }

  /** Asks the editor of path's tab to show line (1-based), out of the preview. */
  revealLine(path: string, line: number): void {
    const tab = this.byPath(path);
    if (!tab) return;
    if (tab.mode === 'preview') tab.mode = 'live';
    this.reveal = { path, line: Math.max(1, Math.floor(line) || 1), seq: ++revealSeq };
  }

  /** Asks the editor of path's tab to insert text at its cursor (out of the preview); false when no tab shows path. */
  insertAtCursor(path: string, text: string): boolean {
    const tab = this.byPath(path);
    if (!tab) return false;
    if (tab.mode === 'preview') tab.mode = 'edit';
    this.insertion = { path, text, seq: ++revealSeq };
    return true;
  }

  /** The editor inserted the insertion seq. */
  inserted(seq: number): void {
    if (this.insertion?.seq === seq) this.insertion = null;
  }

  /** The editor showed the reveal seq. */
  revealed(seq: number): void {
    if (this.reveal?.seq === seq) this.reveal = null;
  }

  // ---- opening and closing ------------------------------------------------------

  /** Opens path in a tab (or shows its tab); null when it cannot be opened (a toast says why). */
  open(path: string): Promise<Tab | null> {
    const have = this.byPath(path);
    if (have) {
      this.activate(path);
      return Promise.resolve(have);
    }
    const inflight = this.opening.get(path);
    if (inflight) return inflight;
    const p = (async () => {
      try {
        const st = await this.client.files.open(path);
        const again = this.byPath(st.path);
        if (again) {
          this.activate(st.path);
          return again;
        }
        const tab = new Tab(st);
        tab.mode = this.viewMode;
        this.tabs = [...this.tabs, tab];
        this.activate(tab.path);
        return tab;
      } catch (e) {
        const err = ApiError.from(e);
        // Not text (a PDF, a document, a picture, audio, video): the
        // desktop's program for it shows it, as a file manager would.
        if (err.reason === 'not_utf8' && (await this.openInApp(path))) return null;
        this.toasts.error(m.editor_open_failed({ name: baseName(path), error: err.message }));
        return null;
      } finally {
        this.opening.delete(path);
      }
    })();
    this.opening.set(path, p);
    return p;
  }

  /** Opens path in the desktop's program for it; false when mnote does not open that kind of file so (the caller says why it is not text). */
  private async openInApp(path: string): Promise<boolean> {
    const name = baseName(path);
    try {
      await this.client.files.openInApp(path);
      this.toasts.show({ message: () => m.editor_opened_in_app({ name }) });
      return true;
    } catch (e) {
      const err = ApiError.from(e);
      if (err.reason === 'not_openable') return false;
      this.toasts.error(m.editor_open_failed({ name, error: err.message }));
      return true;
    }
  }

  /** Closes a tab; a dirty one asks first (Save / Don't save / Cancel). Resolves false when it stays open. */
  async close(tab: Tab | undefined = this.active): Promise<boolean> {
    if (!tab || tab.closed) return true;
    if (tab.dirty) {
      const v = await this.confirm.ask({
        title: m.editor_confirm_save_title({ name: tab.name }),
        message: tab.deleted ? m.editor_confirm_deleted() : m.editor_confirm_lost(),
        buttons: [
          { label: m.common_save(), value: 'save', kind: 'primary' },
          { label: m.editor_dont_save(), value: 'discard', kind: 'danger' },
          { label: m.common_cancel(), value: 'cancel' },
        ],
      });
      if (v === 'cancel') return false;
      if (v === 'save' && !(await this.save(tab))) return false;
    }
    this.drop(tab);
    try {
      await this.client.files.close(tab.path);
    } catch {
      /* the buffer is gone either way */
    }
    return true;
  }

  /** Closes every tab (another folder is opening). Unsaved ones ask once: Save all / Discard / Cancel. */
  async closeAll(): Promise<boolean> {
    const dirty = this.tabs.filter((t) => t.dirty);
    if (dirty.length > 0) {
      const v = await this.confirm.ask({
        title: dirty.length === 1 ? m.editor_confirm_save_title({ name: dirty[0].name }) : m.editor_confirm_save_many_title({ count: dirty.length }),
        message: dirty.map((t) => t.path).join('\n'),
        buttons: [
          { label: dirty.length === 1 ? m.common_save() : m.editor_save_all(), value: 'save', kind: 'primary' },
          { label: m.editor_discard(), value: 'discard', kind: 'danger' },
          { label: m.common_cancel(), value: 'cancel' },
        ],
      });
      if (v === 'cancel') return false;
      if (v === 'save') {
        for (const t of dirty) if (!(await this.save(t))) return false;
      }
    }
    const all = this.tabs;
    for (const t of all) this.drop(t);
    await Promise.all(all.map((t) => this.client.files.close(t.path).catch(() => {})));
    return true;
  }

  /** Forgets the tabs without asking (the folder they belonged to is gone). */
  forgetAll(): void {
    for (const t of this.tabs) this.drop(t);
  }

  private drop(tab: Tab): void {
    tab.closed = true;
    this.clearTimer(this.pushTimers, tab);
    this.clearTimer(this.saveTimers, tab);
    const i = this.tabs.indexOf(tab);
    this.tabs = this.tabs.filter((t) => t !== tab);
    if (this.activePath === tab.path) {
      const next = this.tabs[Math.min(i, this.tabs.length - 1)];
      this.activePath = next?.path ?? null;
    }
    if (this.selection?.path === tab.path) this.selection = null;
    if (this.diff?.path === tab.path) this.diff = null;
  }

  // ---- editing -----------------------------------------------------------------------

  /** The user changed the text (the editor calls this on every change). */
  edited(tab: Tab, source: TextSource): void {
    if (tab.closed) return;
    tab.draft = source;
    tab.editSeq++;
    if (!tab.pending) tab.pending = true;
    this.setTimer(this.pushTimers, tab, this.updateDelayMs, () => void this.push(tab));
    if (this.autosave && !tab.conflict) this.setTimer(this.saveTimers, tab, this.autosaveDelayMs, () => void this.save(tab, true));
  }

  /** Puts back the unsaved lines an agent's write removed, beside what it wrote (the tab is unsaved until saved). */
  putBack(tab: Tab): void {
    const d = tab.dropped;
    if (tab.closed || !d) return;
    tab.dropped = null;
    // Where the person's lines and the agent's touch the same place (both
    // added at the end), the person's go after the agent's: both stay.
    const now = tab.text();
    const text = merge3(d.previousDisk, d.previous, now) ?? (now === '' || now.endsWith('\n') ? now : now + '\n') + d.lines.join('\n');
    if (text === tab.text()) return;
    this.clearTimer(this.pushTimers, tab);
    tab.content = text;
    tab.draft = null;
    tab.replaced++;
    tab.textTick++;
    tab.pending = true;
    tab.editSeq++;
    void this.push(tab);
    if (this.autosave && !tab.conflict) this.setTimer(this.saveTimers, tab, this.autosaveDelayMs, () => void this.save(tab, true));
  }

  /** Sends typed edits to Go now (files.update). */
  /** Sends every tab's typed edits Go has not had yet, now (before a prompt: the agent reads and writes the notes as the person has them). */
  async pushPending(): Promise<void> {
    await Promise.all(this.tabs.filter((t) => t.pending && !t.closed).map((t) => this.push(t)));
  }

  async push(tab: Tab): Promise<void> {
    this.clearTimer(this.pushTimers, tab);
    if (tab.closed || !tab.pending) return;
    const seq = tab.editSeq;
    const text = tab.text();
    let st: BufferState;
    try {
      st = await this.client.files.update(tab.path, text);
    } catch (e) {
      if (!tab.closed) this.toasts.error(m.editor_push_failed({ name: tab.name, error: ApiError.from(e).message }));
      return;
    }
    if (tab.closed) return;
    if (tab.editSeq === seq) tab.pending = false;
    if (st.version >= tab.version) tab.synced = text;
    this.applyOwn(tab, st);
    tab.textTick++;
  }

  /** Saves (files.save). Resolves true when the file on disk holds the tab's text. */
  async save(tab: Tab | undefined = this.active, auto = false): Promise<boolean> {
    if (!tab || tab.closed) return false;
    if (tab.resolving) await tab.resolving; // Ctrl+S just after Keep mine saves what was kept
    if (tab.closed) return false;
    this.clearTimer(this.saveTimers, tab);
    if (tab.conflict) {
      if (!auto) this.toasts.error(m.editor_save_conflict({ name: tab.name }));
      return false;
    }
    if (tab.saving) return false;
    this.clearTimer(this.pushTimers, tab);
    const seq = tab.editSeq;
    const text = tab.text();
    tab.saving = true;
    let st: BufferState;
    try {
      st = await this.client.files.save(tab.path, text);
    } catch (e) {
      const err = ApiError.from(e);
      if (tab.closed) return false;
      if (err.code === 'conflict') {
        tab.conflict = true;
        tab.goDirty = true;
        if (!auto) this.toasts.error(m.editor_save_conflict_opened({ name: tab.name }));
      } else {
        this.toasts.error(m.editor_save_failed({ name: tab.name, error: err.message }));
      }
      if (tab.pending) this.setTimer(this.pushTimers, tab, this.updateDelayMs, () => void this.push(tab));
      return false;
    } finally {
      tab.saving = false;
    }
    if (tab.closed) return false;
    if (tab.editSeq === seq) tab.pending = false;
    else this.setTimer(this.pushTimers, tab, this.updateDelayMs, () => void this.push(tab));
    if (st.version >= tab.version) tab.synced = text;
    this.applyOwn(tab, st);
    if (!st.dirty) tab.merged = false;
    tab.textTick++;
    return !tab.dirty;
  }

  /** A state answering our own update or save: its content is the editor's, so it is not put back. */
  private applyOwn(tab: Tab, st: BufferState): void {
    if (st.version < tab.version) return; // an event already told us more
    tab.version = st.version;
    tab.goDirty = st.dirty;
    tab.conflict = !!st.conflict || tab.theirs !== null;
    tab.deleted = !!st.deleted;
  }

  /** The editor takes content (the typed edits it replaces were seen by Go, or given up). */
  private replace(tab: Tab, content: string): void {
    this.clearTimer(this.pushTimers, tab);
    this.clearTimer(this.saveTimers, tab);
    tab.content = content;
    tab.synced = content;
    tab.draft = null;
    tab.pending = false;
    tab.replaced++;
    tab.textTick++;
  }

  // ---- the disk changed ------------------------------------------------------------

  /** Applies the buffer events of a workspace:changed batch. */
  applyBuffers(events: readonly BufferEvent[] | null | undefined): void {
    for (const ev of events ?? []) {
      const st = ev?.buffer;
      if (!st || typeof st.path !== 'string') continue;
      if (ev.kind === 'moved') {
        this.moved(ev.from ?? '', st);
        continue;
      }
      const tab = this.byPath(st.path);
      if (!tab || tab.closed) continue;
      if (typeof st.version === 'number' && st.version <= tab.version) continue;
      tab.version = st.version;
      switch (ev.kind) {
        case 'reloaded':
        case 'restored':
        case 'written':
        case 'merged': {
          const typed = tab.pending && st.content !== tab.text() ? merge3(tab.synced, tab.text(), st.content) : st.content;
          if (typed === null) {
            // Typed edits Go has not seen change the same lines: keep them and let the user choose.
            tab.theirs = st.content;
            tab.conflict = true;
            tab.deleted = false;
            tab.goDirty = st.dirty;
          } else {
            this.replace(tab, typed);
            tab.synced = st.content;
            tab.goDirty = st.dirty;
            tab.conflict = !!st.conflict;
            tab.theirs = null;
            tab.deleted = !!st.deleted;
            if (typed !== st.content) {
              // Typed edits merged here: Go gets them next.
              tab.pending = true;
              tab.editSeq++;
              void this.push(tab);
            }
            const agent = ev.kind === 'written' || ev.kind === 'merged';
            tab.merged = (agent && (ev.kind === 'merged' || typed !== st.content)) || (tab.merged && st.dirty);
            if (tab.merged && this.autosave) this.setTimer(this.saveTimers, tab, this.autosaveDelayMs, () => void this.save(tab, true));
          }
          if (ev.kind === 'written' || ev.kind === 'merged') {
            tab.agentWrote = Date.now();
            tab.dropped = ev.dropped?.length
              ? { lines: ev.dropped, previous: ev.previous ?? '', previousDisk: ev.previousDisk ?? '' }
              : null;
          }
          if (this.diff?.path === tab.path && !tab.conflict) this.diff = null;
          break;
        }
        case 'conflict':
          tab.conflict = true;
          tab.theirs = null;
          tab.goDirty = true;
          tab.deleted = false;
          break;
        case 'deleted':
          tab.deleted = true;
          tab.goDirty = st.dirty;
          break;
        default:
          tab.goDirty = st.dirty;
          tab.conflict = !!st.conflict || tab.theirs !== null;
          tab.deleted = !!st.deleted;
      }
    }
  }

  private moved(from: string, st: BufferState): void {
    const tab = this.byPath(from);
    if (!tab || tab.closed) return;
    const wasActive = this.activePath === from;
    tab.path = st.path;
    tab.version = Math.max(tab.version, st.version);
    if (wasActive) this.activePath = st.path;
    if (this.selection?.path === from) this.selection = { ...this.selection, path: st.path };
    if (this.contextOff === from) this.contextOff = st.path;
    this.tabs = [...this.tabs];
  }

  /** Tabs follow a rename done here before its event arrives (idempotent with `moved`). */
  renamed(from: string, to: string): void {
    for (const t of this.tabs) {
      if (!isUnder(t.path, from)) continue;
      this.moved(t.path, { path: to + t.path.slice(from.length), content: '', dirty: t.goDirty, version: t.version });
    }
  }

  // ---- conflicts ------------------------------------------------------------------

  /** Resolves a conflict: "mine" keeps the editor's text (the next save writes it), "theirs" takes the disk's. */
  async resolve(tab: Tab, take: 'mine' | 'theirs'): Promise<void> {
    if (tab.closed || !tab.conflict || tab.resolving) return;
    const done = this.resolveNow(tab, take);
    tab.resolving = done;
    try {
      await done;
    } finally {
      tab.resolving = null;
    }
    // Autosave on: what was kept is saved as any edit would be.
    if (take === 'mine' && this.autosave && !tab.closed && !tab.conflict && tab.dirty) {
      this.setTimer(this.saveTimers, tab, this.autosaveDelayMs, () => void this.save(tab, true));
    }
  }

  private async resolveNow(tab: Tab, take: 'mine' | 'theirs'): Promise<void> {
    if (this.diff?.path === tab.path) this.diff = null;
    if (tab.theirs !== null) {
      const theirs = tab.theirs;
      tab.theirs = null;
      tab.conflict = false;
      if (take === 'theirs') {
        this.replace(tab, theirs);
        tab.pending = true; // Go may hold pushed edits: give it the disk's text back
      }
      await this.push(tab);
      return;
    }
    let st: BufferState;
    try {
      if (take === 'mine' && tab.pending) await this.push(tab);
      st = await this.client.files.resolve(tab.path, take);
    } catch (e) {
      this.toasts.error(m.editor_resolve_failed({ name: tab.name, error: ApiError.from(e).message }));
      return;
    }
    if (tab.closed) return;
    if (take === 'theirs') this.replace(tab, st.content);
    tab.version = Math.max(tab.version, st.version);
    tab.goDirty = st.dirty;
    tab.conflict = !!st.conflict;
    tab.deleted = !!st.deleted;
  }

  /** Keep both: the person's text stays, the disk's version follows it
   * below a marker line (unsaved: the person joins them and saves). */
  async keepBoth(tab: Tab): Promise<void> {
    if (tab.closed || !tab.conflict) return;
    if (this.diff?.path === tab.path) this.diff = null;
    const mine = tab.text();
    let theirs = tab.theirs;
    if (theirs === null) {
      try {
        if (tab.pending) await this.push(tab);
        const st = await this.client.files.resolve(tab.path, 'theirs');
        theirs = st.content;
        tab.version = Math.max(tab.version, st.version);
        tab.deleted = !!st.deleted;
      } catch (e) {
        this.toasts.error(m.editor_resolve_failed({ name: tab.name, error: ApiError.from(e).message }));
        return;
      }
      if (tab.closed) return;
    }
    tab.theirs = null;
    tab.conflict = false;
    this.replace(tab, `${mine.replace(/\s+$/, '')}\n\n<!-- ${m.editor_cp_keep_both_marker()} -->\n\n${theirs}`);
    tab.pending = true;
    await this.push(tab);
  }

  /** Shows the difference between the disk's version and the editor's. */
  async showDiff(tab: Tab): Promise<void> {
    if (tab.theirs !== null) {
      this.diff = { path: tab.path, state: 'pair', theirs: tab.theirs, mine: tab.text() };
      return;
    }
    const path = tab.path;
    this.diff = { path, state: 'loading' };
    try {
      if (tab.pending) await this.push(tab);
      const text = await this.client.files.diff(path);
      if (this.diff?.path === path) this.diff = { path, state: 'unified', text };
    } catch (e) {
      if (this.diff?.path === path) this.diff = { path, state: 'error', message: ApiError.from(e).message };
    }
  }

  hideDiff(): void {
    this.diff = null;
  }

  /** After a reconnect: asks Go for every tab's buffer again (events may have been missed). */
  async resync(): Promise<void> {
    for (const tab of [...this.tabs]) {
      let st: BufferState;
      try {
        st = await this.client.files.open(tab.path);
      } catch (e) {
        if (ApiError.from(e).code === 'not_found' && !tab.closed) tab.deleted = true;
        continue;
      }
      if (tab.closed) continue;
      tab.version = st.version; // Go may have started again, its versions with it
      if (tab.dirty) {
        tab.pending = true;
        await this.push(tab);
      } else if (st.content !== tab.text()) {
        this.replace(tab, st.content);
        tab.goDirty = st.dirty;
        tab.deleted = !!st.deleted;
      }
    }
  }

  // ---- timers ---------------------------------------------------------------------

  private setTimer(m: Map<Tab, ReturnType<typeof setTimeout>>, tab: Tab, ms: number, fn: () => void): void {
    const t = m.get(tab);
    if (t) clearTimeout(t);
    m.set(
      tab,
      setTimeout(() => {
        m.delete(tab);
        fn();
      }, ms),
    );
  }

  private clearTimer(m: Map<Tab, ReturnType<typeof setTimeout>>, tab: Tab): void {
    const t = m.get(tab);
    if (t) clearTimeout(t);
    m.delete(tab);
  }
}

function viewPref(): ViewMode {
  const v = readPref(VIEW_KEY);
  return VIEW_MODES.find((m) => m === v) ?? 'live';
}
