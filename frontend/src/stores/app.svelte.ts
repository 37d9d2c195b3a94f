// The app's stores, wired to the client's events, and the actions that span
// several stores (new session, open, send, delete).

import { ApiError, getClient, type Client } from '../api';
import type { ThreadEvent } from '../api/types';
import type { Scheduler } from '../lib/frame';
import { AgentsStore } from './agents.svelte';
import { SearchStore } from './search.svelte';
import { SessionStore } from './session.svelte';
import { SessionsStore } from './sessions.svelte';
import { ToastStore } from './toasts.svelte';
import { UiStore } from './ui.svelte';

export class AppState {
  readonly toasts = new ToastStore();
  readonly agents: AgentsStore;
  readonly sessions: SessionsStore;
  readonly session: SessionStore;
  readonly search: SearchStore;
  readonly ui: UiStore;
  /** A session is being created (the new-session button waits). */
  creating = $state(false);
  private offs: (() => void)[] = [];

  constructor(
    readonly client: Client,
    opts: { schedule?: Scheduler; searchDelayMs?: number } = {},
  ) {
    this.agents = new AgentsStore(client);
    this.sessions = new SessionsStore(client, this.toasts);
    this.session = new SessionStore(client, opts.schedule);
    this.search = new SearchStore(client, opts.searchDelayMs);
    this.ui = new UiStore(client);
    this.sessions.onRefresh = (items) => {
      const open = items.find((s) => s.id === this.session.id);
      if (open) this.session.updateSummary(open);
    };
  }

  /** Subscribes to events and loads the lists. */
  start(): void {
    const c = this.client;
    this.offs.push(
      c.on('thread:event', (ev: ThreadEvent) => {
        if (!this.session.handleEvent(ev)) this.sessions.noteEvent(ev);
      }),
      c.on('sessions:changed', (p) => this.sessions.applyChange(p)),
      c.on('agent:status', (ev) => this.agents.applyStatus(ev)),
      c.onReconnect(() => {
        void this.sessions.refresh();
        void this.agents.refresh();
        void this.session.resync();
      }),
      c.onConnection((s) => (this.ui.connection = s)),
    );
    void this.sessions.refresh();
    void this.agents.refresh();
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
  }

  async openSession(id: string, entryId?: string): Promise<void> {
    this.sessions.attention.delete(id);
    await this.session.open(id);
    if (entryId) this.ui.revealEntry(entryId);
  }

  /** Starts a session with the given (or the picked) agent and opens it. */
  async newSession(agent?: string): Promise<boolean> {
    const name = agent ?? this.agents.current?.name;
    if (!name) {
      this.ui.runtimeOpen = true;
      this.toasts.error('Pick an agent first.');
      return false;
    }
    if (this.creating) return false;
    this.creating = true;
    try {
      const s = await this.sessions.create(name);
      await this.session.open(s.id);
      return true;
    } catch (e) {
      const err = ApiError.from(e);
      this.toasts.error(`Could not start ${this.agents.byName(name)?.title || name}: ${err.message}`);
      if (err.code === 'agent_missing' || err.code === 'needs_auth' || err.code === 'agent_failed') {
        void this.agents.refresh();
        this.ui.runtimeOpen = true;
      }
      return false;
    } finally {
      this.creating = false;
    }
  }

  /** Sends a prompt, starting a session first when none is open. */
  async send(text: string): Promise<boolean> {
    if (!text.trim()) return false;
    if (!this.session.id && !(await this.newSession())) return false;
    return this.session.prompt(text);
  }

  /** Sends the last prompt again (after a crash or a login). */
  async retry(): Promise<boolean> {
    const s = this.session;
    let text = s.lastPrompt;
    if (!text) {
      const users = s.entries().filter((e) => e.kind === 'user_message');
      text = users[users.length - 1]?.text ?? '';
    }
    if (!text) {
      await s.resync();
      return false;
    }
    return s.prompt(text);
  }

  async deleteSession(id: string): Promise<void> {
    const wasOpen = this.session.id === id;
    const ok = await this.sessions.remove(id);
    if (ok && wasOpen) this.session.clear();
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
