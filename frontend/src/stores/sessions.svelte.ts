// The sessions list (newest first), with rename / delete (+ undo) / restore,
// and the trash (restore, delete for good).

import { ApiError, type Client } from '../api';
import type { AgentSessions, ForkResult, SessionSummary, SessionsChanged, ThreadEvent, TrashedSession } from '../api/types';
import { SvelteSet } from 'svelte/reactivity';
import { locale, m } from '../lib/i18n.svelte';
import type { ToastStore } from './toasts.svelte';

const PAGE = 200;

export class SessionsStore {
  items: SessionSummary[] = $state.raw([]);
  loading = $state(false);
  loaded = $state(false);
  error: ApiError | null = $state.raw(null);
  /** More sessions than shown may exist. */
  hasMore = $state(false);
  /** Sessions (not the open one) that wait for a permission answer. */
  attention = new SvelteSet<string>();
  /** Sessions just deleted (hidden until the list catches up). */
  private hidden = new Set<string>();
  private limit = PAGE;
  private inflight: Promise<void> | null = null;
  private again = false;
  /** The sessions in the trash (loadTrash), the most recently deleted first. */
  trash: TrashedSession[] = $state.raw([]);
  trashLoaded = $state(false);
  trashError: ApiError | null = $state.raw(null);
  /** The trash is on screen: deletions elsewhere reload it. */
  private trashShown = false;
  /** Called with each fresh list (the app keeps the open session's summary current). */
  onRefresh: ((items: SessionSummary[]) => void) | null = null;

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
  ) {}

  byId(id: string | null | undefined): SessionSummary | undefined {
    return id ? this.items.find((s) => s.id === id) : undefined;
  }

  /** Fetches the list; calls made while one runs coalesce into one more. */
  refresh(): Promise<void> {
    if (this.inflight) {
      this.again = true;
      return this.inflight;
    }
    this.inflight = (async () => {
      do {
        this.again = false;
        this.loading = true;
        try {
          const list = await this.client.sessions.list({ limit: this.limit + 1 });
          this.hasMore = list.length > this.limit;
          this.items = list.slice(0, this.limit).filter((s) => !this.hidden.has(s.id));
          this.error = null;
          this.loaded = true;
          this.onRefresh?.(this.items);
        } catch (e) {
          this.error = ApiError.from(e);
        } finally {
          this.loading = false;
        }
      } while (this.again);
      this.inflight = null;
    })();
    return this.inflight;
  }

  /** Patches the list from a sessions:changed payload (no round trip);
   * an empty payload fetches the list again. */
  applyChange(p: SessionsChanged | null | undefined): void {
    const changed = p?.changed ?? [];
    const removed = p?.removed ?? [];
    if (changed.length === 0 && removed.length === 0) {
      void this.refresh();
      return;
    }
    if (!this.loaded || this.inflight) {
      // A fetch is coming or running: let it carry the change.
      void this.refresh();
      return;
    }
    const gone = new Set(removed);
    const byId = new Map(changed.filter((s) => !this.hidden.has(s.id)).map((s) => [s.id, s]));
    let items = this.items.filter((s) => !gone.has(s.id)).map((s) => byId.get(s.id) ?? s);
    const fresh = [...byId.values()].filter((s) => !this.items.some((x) => x.id === s.id));
    if (fresh.length > 0) items = [...fresh, ...items];
    this.items = items.sort((a, b) => b.updatedMs - a.updatedMs || (a.id < b.id ? 1 : -1));
    for (const id of removed) this.attention.delete(id);
    this.onRefresh?.(this.items);
    if (removed.length > 0 && this.trashShown) void this.loadTrash();
  }

  loadMore(): Promise<void> {
    this.limit += PAGE;
    return this.refresh();
  }

  /** Events of sessions that are not open: remember who waits for an answer. */
  noteEvent(ev: ThreadEvent): void {
    if (ev.type === 'permission' || ev.type === 'elicitation') this.attention.add(ev.sessionId);
    else if (ev.type === 'turn' && ev.payload?.state === 'ended') this.attention.delete(ev.sessionId);
  }

  /** The agent's own sessions in the open workspace (to import). */
  listAgentSessions(agent: string): Promise<AgentSessions> {
    return this.client.agents.listSessions(agent);
  }

  /** Brings one of the agent's own sessions in (session/load). */
  async importSession(agent: string, agentSessionId: string, title?: string): Promise<SessionSummary> {
    const s = await this.client.sessions.import(agent, agentSessionId, title);
    this.items = [s, ...this.items.filter((x) => x.id !== s.id)];
    return s;
  }

  /** Edit and resend turn `turn`'s prompt of a session: a new session
   * (listed first) with the turns before it, `text` its new prompt. */
  async fork(sessionId: string, turn: number, text: string): Promise<ForkResult> {
    const r = await this.client.sessions.fork(sessionId, turn, text, locale());
    this.items = [r.session, ...this.items.filter((x) => x.id !== r.session.id)];
    return r;
  }

  async create(agent: string, cwd?: string): Promise<SessionSummary> {
    const s = await this.client.sessions.create(cwd ? { agent, cwd } : { agent });
    this.items = [s, ...this.items.filter((x) => x.id !== s.id)];
    return s;
  }

  async rename(id: string, title: string): Promise<void> {
    const t = title.trim();
    const prev = this.items;
    const cur = prev.find((s) => s.id === id);
    if (!cur || !t || t === cur.title) return;
    this.items = prev.map((s) => (s.id === id ? { ...s, title: t } : s));
    try {
      const s = await this.client.sessions.rename(id, t);
      this.items = this.items.map((x) => (x.id === id ? s : x));
      this.onRefresh?.(this.items);
    } catch (e) {
      this.items = prev;
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.app_rename_failed({ error }));
    }
  }

  /** Moves a session to the trash, with an Undo toast; agentCopy: the
   * agent deletes its own copy first (nothing is deleted when it cannot). */
  async remove(id: string, agentCopy = false): Promise<boolean> {
    const prev = this.items;
    const s = prev.find((x) => x.id === id);
    this.hidden.add(id);
    this.items = prev.filter((x) => x.id !== id);
    try {
      await this.client.sessions.delete(id, agentCopy);
    } catch (e) {
      this.hidden.delete(id);
      this.items = prev;
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.app_delete_failed({ error }));
      return false;
    }
    this.toasts.show({
      message: () => m.app_deleted({ title: s?.title || m.common_untitled_session() }),
      action: {
        label: m.common_undo,
        run: async () => {
          await this.restore(id);
        },
      },
    });
    return true;
  }

  /** Brings a deleted session back into the list, in its place by last activity. */
  async restore(id: string): Promise<boolean> {
    this.hidden.delete(id);
    let ok = true;
    try {
      const s = await this.client.sessions.restore(id);
      this.items = [s, ...this.items.filter((x) => x.id !== id)].sort((a, b) => b.updatedMs - a.updatedMs || (a.id < b.id ? 1 : -1));
      this.trash = this.trash.filter((t) => t.id !== id);
    } catch (e) {
      ok = false;
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.app_restore_failed({ error }));
    }
    void this.refresh();
    return ok;
  }

  /** Shows the trash (or stops following it when shown is false). */
  showTrash(shown: boolean): Promise<void> {
    this.trashShown = shown;
    return shown ? this.loadTrash() : Promise.resolve();
  }

  /** Fetches the sessions in the trash. */
  async loadTrash(): Promise<void> {
    try {
      this.trash = await this.client.sessions.trash();
      this.trashError = null;
      this.trashLoaded = true;
    } catch (e) {
      this.trashError = ApiError.from(e);
    }
  }

  /** Deletes a session in the trash for good. */
  async purge(id: string): Promise<boolean> {
    const prev = this.trash;
    this.trash = prev.filter((t) => t.id !== id);
    try {
      await this.client.sessions.purge(id);
      return true;
    } catch (e) {
      this.trash = prev;
      const error = ApiError.from(e).message;
      this.toasts.error(() => m.app_delete_failed({ error }));
      return false;
    }
  }
}
