// The app's stores, wired to the client's events, and the actions that span
// several stores (new session, open, send, delete).

import { ApiError, getClient, type Client } from '../api';
import type { PromptExtras, ThreadEvent, WorkspaceChanged } from '../api/types';
import type { Scheduler } from '../lib/frame';
import { m } from '../lib/i18n.svelte';
import { planRename } from '../lib/rename';
import { baseName, isMarkdown } from '../lib/tree';
import { AgentsStore, offersAgentCopy } from './agents.svelte';
import { CheckpointsStore, fsRefusedMessage } from './checkpoints.svelte';
import { ConfirmStore } from './confirm.svelte';
import { EditorStore, type EditorOptions } from './editor.svelte';
import { LayoutStore } from './layout.svelte';
import { NotesStore } from './notes.svelte';
import { SearchStore } from './search.svelte';
import type { SessionStore } from './session.svelte';
import { SessionsStore } from './sessions.svelte';
import { TabsStore } from './tabs.svelte';
import { ToastStore } from './toasts.svelte';
import { UiStore } from './ui.svelte';
import { WorkspaceStore, type WorkspaceOptions } from './workspace.svelte';
import { AttachmentsStore } from './attachments.svelte';

export class AppState {
  readonly toasts = new ToastStore();
  readonly agents: AgentsStore;
  readonly sessions: SessionsStore;
  /** The chat side's tabs (several sessions open at once). */
  readonly tabs: TabsStore;
  readonly search: SearchStore;
  readonly ui: UiStore;
  readonly confirm = new ConfirmStore();
  readonly layout = new LayoutStore();
  readonly workspace: WorkspaceStore;
  readonly editor: EditorStore;
  readonly checkpoints: CheckpointsStore;
  readonly notes: NotesStore;
  readonly attachments: AttachmentsStore;
  /** A session is being created (the new-session button waits). */
  creating = $state(false);
  private offs: (() => void)[] = [];

  constructor(
    readonly client: Client,
    opts: { schedule?: Scheduler; maxTabs?: number; searchDelayMs?: number; notesDelayMs?: number; workspace?: WorkspaceOptions; editor?: EditorOptions; checkpointsDelayMs?: number } = {},
  ) {
    this.agents = new AgentsStore(client);
    this.sessions = new SessionsStore(client, this.toasts);
    this.tabs = new TabsStore(client, this.confirm, this.sessions, { schedule: opts.schedule, max: opts.maxTabs });
    this.search = new SearchStore(client, opts.searchDelayMs);
    this.ui = new UiStore(client);
    this.attachments = new AttachmentsStore(client, this.toasts);
    this.workspace = new WorkspaceStore(client, this.toasts, opts.workspace);
    this.editor = new EditorStore(client, this.toasts, this.confirm, opts.editor);
    this.checkpoints = new CheckpointsStore(
      client,
      this.toasts,
      // The shown tab's session.
      { order: () => this.session.order, turnOf: (id) => this.session.entry(id)?.turn },
      opts.checkpointsDelayMs,
    );
    this.notes = new NotesStore(
      client,
      this.toasts,
      this.confirm,
      {
        open: (path, line) => this.openAt(path, line),
        create: async (path) => {
          const i = path.lastIndexOf('/');
          return this.workspace.create(i < 0 ? '' : path.slice(0, i), i < 0 ? path : path.slice(i + 1), false);
        },
        openExternal: (url) => this.ui.openExternal(url),
        notePaths: () => ({ version: this.workspace.version, paths: () => this.workspace.notePaths() }),
      },
      opts.notesDelayMs,
    );
    this.sessions.onRefresh = (items) => {
      for (const st of this.tabs.stores()) {
        const open = items.find((s) => s.id === st.id);
        if (open) st.updateSummary(open);
      }
    };
  }

  /** The session shown: the active tab's (an empty store when no tab is open). */
  get session(): SessionStore {
    return this.tabs.active;
  }

  /** Subscribes to events and loads the lists. */
  start(): void {
    const c = this.client;
    this.offs.push(
      c.on('thread:event', (ev: ThreadEvent) => {
        // Every open tab applies its session's events; the others' mark History.
        const took = this.tabs.handleEvent(ev);
        if (!took) this.sessions.noteEvent(ev);
        else if (took === 'active' && ev.type === 'turn' && ev.payload?.state === 'ended') this.checkpoints.scheduleRefresh();
      }),
      c.on('workspace:changed', (p) => this.applyWorkspaceChanged(p)),
      c.on('sessions:changed', (p) => {
        this.sessions.applyChange(p);
        // Deleted elsewhere: its tab closes.
        for (const id of p?.removed ?? []) this.tabs.drop(id);
      }),
      c.on('agent:status', (ev) => this.agents.applyStatus(ev)),
      c.on('agent:start', (ev) => this.agents.applyStart(ev)),
      c.on('agent:install', (ev) => this.agents.applyInstall(ev)),
      c.on('notes:index', (st) => this.notes.applyStatus(st)),
      c.on('fs:refused', (p) => this.toasts.show({ message: fsRefusedMessage(p), level: 'error', timeoutMs: 8000 })),
      c.onReconnect(() => {
        void this.sessions.refresh();
        void this.agents.refresh();
        for (const st of this.tabs.stores()) void st.resync();
        void this.workspace.refresh();
        void this.editor.resync();
        void this.checkpoints.refresh();
        void this.notes.loadStatus();
        this.notes.refreshBacklinks(0);
      }),
      c.onConnection((s) => (this.ui.connection = s)),
    );
    // The tabs of the last run come back once the list says which sessions still exist.
    void this.sessions.refresh().then(() => this.tabs.restore());
    void this.agents.refresh();
    void this.workspace.load().then(() => this.openSelected());
    void this.notes.loadStatus();
  }

  /** Opens the note named on the command line (`mnote ~/notes/todo.md`,
   * or a second launch with one): workspace.get gives it once. */
  private async openSelected(): Promise<void> {
    const sel = this.workspace.info?.select;
    if (sel) await this.openFile(sel);
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
  }

  async openSession(id: string, entryId?: string): Promise<void> {
    this.sessions.attention.delete(id);
    await this.tabs.open(id);
    if (entryId) this.ui.revealEntry(entryId);
  }

  /** Starts a session with the given (or the picked) agent and opens it. */
  async newSession(agent?: string): Promise<boolean> {
    const name = agent ?? this.agents.current?.name;
    if (!name) {
      this.ui.runtimeOpen = true;
      this.toasts.error(m.app_pick_agent_first);
      return false;
    }
    if (this.creating) return false;
    this.creating = true;
    try {
      const s = await this.sessions.create(name);
      await this.tabs.open(s.id);
      return true;
    } catch (e) {
      const err = ApiError.from(e);
      // The user's own Cancel: nothing to say.
      if (this.agents.takeCancelled(name)) return false;
      const agentTitle = this.agents.byName(name)?.title || name;
      this.toasts.error(() => m.app_start_failed({ agent: agentTitle, error: err.message }));
      void this.agents.refresh();
      // A start that failed shows its stderr where the user waits
      // (AgentStarting); the Agents dialog is for installing or signing in.
      if (err.code === 'agent_missing' || err.code === 'needs_auth') this.ui.runtimeOpen = true;
      return false;
    } finally {
      this.creating = false;
    }
  }

  /** Sends a prompt (with the offered file and the @-mentions), starting a session first when none is open. */
  async send(text: string, extra?: PromptExtras): Promise<boolean> {
    if (!text.trim() && !extra?.images?.length) return false;
    if (!this.session.id && !(await this.newSession())) return false;
    // What was just typed in a note reaches Go first: the agent reads the
    // note as the person has it, and a write that would drop those words is
    // shown before it is allowed (not pushed yet, Go would not know them).
    await this.editor.pushPending();
    // A session shared with this account has no agent here until its first
    // prompt: this machine's own agent (the one picked) runs it.
    const sum = this.session.summary;
    if (sum && !sum.agent && this.agents.current && !(await this.session.switchAgent(this.agents.current.name))) return false;
    // The tab shown now (the new session's when one started).
    return this.session.prompt(text, extra);
  }

  /** Applies a workspace:changed event: the tree, the open tabs, the turns' changes. */
  applyWorkspaceChanged(p: WorkspaceChanged | null | undefined): void {
    if (!p) return;
    this.workspace.applyChanges(p.changes, !!p.rescan);
    this.editor.applyBuffers(p.buffers);
    if (p.warning) this.toasts.show({ message: p.warning, timeoutMs: 8000 });
    if (p.changes?.some((c) => c?.turn)) this.checkpoints.scheduleRefresh();
    this.notes.applyWorkspaceChanged(p);
  }

  /** Opens a note in the editor and shows it in the tree. */
  async openFile(path: string): Promise<boolean> {
    const tab = await this.editor.open(path);
    if (tab) this.workspace.reveal(tab.path);
    return !!tab;
  }

  /** Opens a note with its editor at a 1-based line (search results, headings, backlinks). */
  async openAt(path: string, line?: number): Promise<boolean> {
    const ok = await this.openFile(path);
    if (ok && line) this.editor.revealLine(this.editor.activePath ?? path, line);
    return ok;
  }

  /** Opens another folder: the open notes close first (unsaved ones ask). */
  async openFolder(dir: string): Promise<boolean> {
    if (!dir.trim()) return false;
    if (!(await this.editor.closeAll())) return false;
    try {
      await this.workspace.openFolder(dir.trim());
      this.notes.reset();
      return true;
    } catch (e) {
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.app_open_dir_failed({ dir: dir.trim(), error }));
      return false;
    }
  }

  /** The native folder dialog (in the window). Resolves false when cancelled or refused. */
  async pickFolder(): Promise<boolean> {
    if (!(await this.editor.closeAll())) return false;
    try {
      const w = await this.workspace.pick();
      if (w) this.notes.reset();
      return !!w;
    } catch (e) {
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.app_open_folder_failed({ error }));
      return false;
    }
  }

  /**
   * Renames a file or folder in place; open tabs follow, and the links that
   * pointed at it are offered for update. The extension stays unless
   * another kind of file was clearly typed (then asked: lib/rename.ts).
   */
  async renamePath(path: string, typed: string): Promise<boolean> {
    const dir = !!this.workspace.node(path)?.dir;
    const plan = planRename(baseName(path), typed, dir);
    if (plan.kind === 'none') return false;
    let name = plan.kind === 'rename' ? plan.name : '';
    if (plan.kind === 'ask') {
      const { keep, other, keepExt, otherExt } = plan;
      const note = isMarkdown(keep);
      const v = await this.confirm.ask({
        title: () => m.notes_ln_rename_ext_title({ name: baseName(path), ext: otherExt }),
        message: () => (note ? m.notes_ln_rename_ext_note({ other, keep }) : m.notes_ln_rename_ext_file({ other, keep })),
        buttons: [
          { label: () => m.notes_ln_rename_ext_keep({ ext: keepExt }), value: 'keep', kind: 'primary' },
          { label: () => m.notes_ln_rename_ext_use({ ext: otherExt }), value: 'use' },
          { label: m.common_cancel, value: 'cancel' },
        ],
      });
      if (v !== 'keep' && v !== 'use') return false;
      name = v === 'keep' ? keep : other;
    }
    const done = await this.workspace.rename(path, name);
    if (done) {
      this.editor.renamed(path, done);
      void this.notes.afterRename(path, done, dir);
    }
    return !!done;
  }

  /** Starts renaming path in the tree (a tab's double-click, F2 in the editor): the notes panel shows it, the name selected. */
  startRename(path: string): void {
    if (!this.workspace.info) return;
    if (!this.ui.notesOpen) this.ui.toggleNotes();
    this.notes.hideSearch();
    this.workspace.requestRename(path);
  }

  /** Renames or moves a file or folder; open tabs follow. */
  async movePath(path: string, to: string): Promise<boolean> {
    const dir = !!this.workspace.node(path)?.dir;
    const done = await this.workspace.move(path, to);
    if (done) {
      this.editor.renamed(path, done);
      void this.notes.afterRename(path, done, dir);
    }
    return !!done;
  }

  /** Sends the last prompt again (after a crash or a login). */
  async retry(): Promise<boolean> {
    const s = this.session;
    // The last prompt may be among the earlier entries, still on their way.
    if (!s.lastPrompt) await s.whenComplete();
    if (!s.lastPrompt && !s.entries().some((e) => e.kind === 'user_message')) {
      await s.resync();
      return false;
    }
    // The same prompt, with the context and mentions it had (session.retry).
    return s.retry();
  }

  async deleteSession(id: string): Promise<void> {
    // An agent that deletes its own sessions (ACP session/delete) is
    // offered to: the person chooses mnote's copy only, or both.
    const s = this.sessions.byId(id);
    // What the agent advertised is learnt when it starts: the list read
    // before that does not know it yet.
    if (s && !this.agents.byName(s.agent)?.capabilities) await this.agents.refresh();
    const agent = this.agents.byName(s?.agent);
    let agentCopy = false;
    if (s && offersAgentCopy(agent)) {
      const name = agent!.title || agent!.name;
      const v = await this.confirm.ask({
        title: () => m.app_delete_agent_copy_title({ title: s.title || m.common_untitled_session() }),
        message: () => m.app_delete_agent_copy_message({ agent: name }),
        buttons: [
          { label: m.app_delete_mnote_only, value: 'trash', kind: 'primary' },
          { label: () => m.app_delete_with_agent_copy({ agent: name }), value: 'both', kind: 'danger' },
          { label: m.common_cancel, value: 'cancel' },
        ],
      });
      if (v !== 'trash' && v !== 'both') return;
      agentCopy = v === 'both';
    }
    const ok = await this.sessions.remove(id, agentCopy);
    // Its tab closes (deleting stops it: nothing to ask).
    if (ok) this.tabs.drop(id);
    if (ok && this.tabs.empty.id === id) this.tabs.empty.clear();
  }
}

let app: AppState | null = null;

/** The app's state, created (and started) on first use. */
export function getApp(): AppState {
  if (!app) {
    app = new AppState(getClient());
    app.start();
  }
  return app;
}

/** Installs an app state (tests). */
export function setApp(a: AppState | null): void {
  app = a;
}
