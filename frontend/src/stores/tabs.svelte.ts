// The chat side's tabs: several sessions open at once, each its own
// SessionStore, each applying its events while not shown. One is active
// (app.session); a background tab keeps a badge when its turn ends or fails
// while not shown (cleared when it is shown), and while it waits for a
// permission or an answer. Closing a busy tab asks (stop, or keep it
// running in the background). The open tabs and the active one are kept
// in localStorage (sessions are not per folder: one list for the app).

import { SvelteMap } from 'svelte/reactivity';
import type { Client } from '../api';
import type { ThreadEvent } from '../api/types';
import type { Scheduler } from '../lib/frame';
import { m } from '../lib/i18n.svelte';
import { readDraft, readPref, removePref, writePref } from '../lib/prefs';
import type { ConfirmStore } from './confirm.svelte';
import { SessionStore } from './session.svelte';
import type { SessionsStore } from './sessions.svelte';

/** How many tabs stay open: one more closes the least recently used idle one. */
export const MAX_TABS = 12;
const PREF = 'mnote.tabs';

export type TabStatus = 'working' | 'waiting' | 'failed' | 'idle';
/** What a background tab's badge says. */
export type TabBadge = 'waiting' | 'done' | 'failed';

/** The store is busy: closing it would leave a turn (or a question) behind. */
function busy(s: SessionStore): boolean {
  return s.running || s.pending.length > 0 || s.questions.length > 0;
}

export class TabsStore {
  /** The open tabs, left to right. */
  list: SessionStore[] = $state.raw([]);
  /** The id of the session shown (null: no tab open). */
  activeId: string | null = $state(null);
  /** Background tabs whose turn ended while not shown: done or failed. */
  readonly finished = new SvelteMap<string, 'done' | 'failed'>();
  /** What app.session is when no tab is open (the empty chat). */
  readonly empty: SessionStore;
  /** Tab views' state kept while another tab shows (ThreadView's scroll). */
  readonly views = new Map<string, unknown>();
  private used = new Map<string, number>();
  private clock = 0;
  private readonly max: number;

  constructor(
    private readonly client: Client,
    private readonly confirm: ConfirmStore,
    private readonly sessions: SessionsStore,
    private readonly opts: { schedule?: Scheduler; max?: number } = {},
  ) {
    this.empty = new SessionStore(client, opts.schedule);
    this.max = Math.max(1, opts.max ?? MAX_TABS);
  }

  /** The store shown: the active tab's, or the empty one. */
  get active(): SessionStore {
    const id = this.activeId;
    return (id && this.list.find((s) => s.id === id)) || this.empty;
  }

  find(id: string | null | undefined): SessionStore | undefined {
    return id ? this.list.find((s) => s.id === id) : undefined;
  }

  status(s: SessionStore): TabStatus {
    if (s.pending.length > 0 || s.questions.length > 0) return 'waiting';
    if (s.running) return 'working';
    if (s.lastTurnFailed) return 'failed';
    return 'idle';
  }

  /** The badge of a tab not shown (none on the active one). */
  badge(s: SessionStore): TabBadge | null {
    if (!s.id || s.id === this.activeId) return null;
    if (s.pending.length > 0 || s.questions.length > 0) return 'waiting';
    return this.finished.get(s.id) ?? null;
  }

  /** A session open in a tab not shown that waits for the user. */
  waitingInBackground(id: string): boolean {
    const s = this.find(id);
    return !!s && this.badge(s) === 'waiting';
  }

  /** Opens a session in a tab: the existing one, else a new one after the
   * active tab (in its place when that one is an untouched empty session). */
  async open(id: string): Promise<SessionStore> {
    const have = this.find(id);
    if (have) {
      this.activate(id);
      return have;
    }
    const store = new SessionStore(this.client, this.opts.schedule);
    const opening = store.open(id);
    const cur = this.find(this.activeId);
    const list = [...this.list];
    const at = cur ? list.indexOf(cur) : list.length - 1;
    if (cur && this.untouched(cur)) {
      list.splice(at, 1, store);
      this.forget(cur);
    } else list.splice(at + 1, 0, store);
    this.list = list;
    this.activate(id);
    this.evict(store);
    await opening;
    return store;
  }

  /** Shows a tab. */
  activate(id: string): void {
    if (!this.find(id)) return;
    this.activeId = id;
    this.used.set(id, ++this.clock);
    this.finished.delete(id);
    this.sessions.attention.delete(id);
    this.save();
  }

  /** The next (1) or previous (-1) tab, round. */
  cycle(delta: number): void {
    const n = this.list.length;
    if (n === 0) return;
    const i = this.list.findIndex((s) => s.id === this.activeId);
    const next = this.list[(((i < 0 ? 0 : i + delta) % n) + n) % n];
    if (next?.id) this.activate(next.id);
  }

  /** The i-th tab (0-based); -1 is the last. False when there is none. */
  nth(i: number): boolean {
    const s = i < 0 ? this.list[this.list.length - 1] : this.list[i];
    if (!s?.id) return false;
    this.activate(s.id);
    return true;
  }

  /** Closes a tab. A running one (or one waiting for the user) asks first:
   * stop and close, keep running in the background, or cancel. Resolves
   * false when it stays open. */
  async close(id: string | null = this.activeId): Promise<boolean> {
    const s = this.find(id);
    if (!s || !id) return false;
    if (busy(s)) {
      const name = this.title(s);
      const v = await this.confirm.ask({
        title: m.chat_tabs_close_running_title,
        // Queued prompts live in the page: they wait until the session is
        // opened again.
        message: () =>
          m.chat_tabs_close_running_message({ title: name }) + (s.queue.length ? ' ' + m.chat_tabs_close_queued({ count: s.queue.length }) : ''),
        buttons: [
          { label: m.chat_tabs_keep_running, value: 'keep', kind: 'primary' },
          { label: m.chat_tabs_stop_close, value: 'stop', kind: 'danger' },
          { label: m.common_cancel, value: 'cancel' },
        ],
      });
      if (v !== 'keep' && v !== 'stop') return false;
      if (this.find(id) !== s) return true; // closed meanwhile
      if (v === 'stop') await s.cancel();
      // Still waiting for an answer: History's badge says so from now on.
      else if (s.pending.length > 0 || s.questions.length > 0) this.sessions.attention.add(id);
      if (v === 'stop') this.release(id);
    } else this.release(id);
    this.drop(id);
    return true;
  }

  /** Lets go of a closed tab's agent session (sessions.close: the agent
   * gets session/close where it offers it); the next prompt binds it again. */
  private release(id: string): void {
    this.client.sessions.close(id).catch(() => {
      /* already closed, or deleted: nothing to let go of */
    });
  }

  /** Closes a tab without asking (its session was deleted). */
  drop(id: string): void {
    const s = this.find(id);
    if (!s) return;
    const i = this.list.indexOf(s);
    this.list = this.list.filter((x) => x !== s);
    if (this.activeId === id) {
      const next = this.list[i] ?? this.list[i - 1];
      this.activeId = null;
      if (next?.id) this.activate(next.id);
    }
    this.forget(s);
    this.save();
  }

  /** Applies a thread:event to the tab of its session: 'active' or
   * 'background' when one took it, null when no tab has it. */
  handleEvent(ev: ThreadEvent): 'active' | 'background' | null {
    const s = this.find(ev?.sessionId) ?? (this.empty.id && this.empty.id === ev?.sessionId ? this.empty : undefined);
    if (!s || !s.handleEvent(ev)) return null;
    const shown = s === this.active;
    if (ev.type === 'turn' && s.id) {
      if (ev.payload?.state === 'running') this.finished.delete(s.id);
      else if (!shown && ev.payload?.state === 'ended') this.finished.set(s.id, ev.payload.error || ev.payload.stopReason === 'error' ? 'failed' : 'done');
    }
    return shown ? 'active' : 'background';
  }

  /** Every open store (the tabs, and the empty one when it was opened). */
  stores(): SessionStore[] {
    return this.empty.id ? [...this.list, this.empty] : [...this.list];
  }

  /** The tab's title: the session's, else its agent's name. */
  title(s: SessionStore): string {
    return s.title || s.summary?.title || s.summary?.agent || m.common_untitled_session();
  }

  /** Opens the tabs kept by the last run (after the sessions list loaded:
   * sessions no longer in it are left out; one that cannot be found closes). */
  async restore(): Promise<void> {
    const kept = readKept();
    if (!kept) return;
    const known = this.sessions.loaded && !this.sessions.hasMore;
    const ids = kept.ids.filter((id) => !known || this.sessions.byId(id));
    const opened: Promise<void>[] = [];
    const list = [...this.list];
    for (const id of ids) {
      if (list.length >= this.max) break;
      if (list.some((s) => s.id === id)) continue;
      const store = new SessionStore(this.client, this.opts.schedule);
      opened.push(
        store.open(id).then(() => {
          if (store.error?.code === 'not_found' && this.find(id) === store) this.drop(id);
        }),
      );
      list.push(store);
    }
    this.list = list;
    if (!this.activeId) {
      const a = kept.active && ids.includes(kept.active) ? kept.active : ids[0];
      if (a) this.activate(a);
    }
    this.save();
    await Promise.all(opened);
  }

  /** A session with nothing in it yet (no entry, no draft, not busy): opening another replaces its tab. */
  private untouched(s: SessionStore): boolean {
    return !!s.id && !s.loading && !s.error && !busy(s) && s.order.length === 0 && s.queue.length === 0 && !readDraft(s.id).trim();
  }

  /** Over the limit: the least recently used idle tab (never `keep`, the active or a busy one) closes. */
  private evict(keep: SessionStore): void {
    while (this.list.length > this.max) {
      const idle = this.list.filter((s) => s !== keep && s.id !== this.activeId && !busy(s) && !s.loading);
      if (idle.length === 0) return;
      idle.sort((a, b) => (this.used.get(a.id ?? '') ?? 0) - (this.used.get(b.id ?? '') ?? 0));
      const victim = idle[0];
      if (!victim.id) return;
      this.release(victim.id);
      this.drop(victim.id);
    }
  }

  private forget(s: SessionStore): void {
    const id = s.id;
    if (id) {
      this.finished.delete(id);
      this.used.delete(id);
      this.views.delete(id);
    }
    s.clear();
  }

  private save(): void {
    const ids = this.list.map((s) => s.id).filter((id): id is string => !!id);
    if (ids.length === 0) removePref(PREF);
    else writePref(PREF, JSON.stringify({ ids, active: this.activeId }));
  }
}

function readKept(): { ids: string[]; active: string | null } | null {
  try {
    const v = JSON.parse(readPref(PREF) ?? 'null') as { ids?: unknown; active?: unknown } | null;
    if (!v || !Array.isArray(v.ids)) return null;
    const ids = [...new Set(v.ids.filter((x): x is string => typeof x === 'string' && x !== ''))];
    return { ids, active: typeof v.active === 'string' ? v.active : null };
  } catch {
    return null;
  }
}
