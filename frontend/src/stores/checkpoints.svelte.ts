// The open session's turns that changed files (checkpoints.list): what
// each changed, the diffs (checkpoints.changes, fetched when shown) and
// Revert (checkpoints.revert). A revert that meets a file changed since
// the turn writes nothing; its error (code "conflict") carries the diffs.

import { ApiError, type Client } from '../api';
import type { FileDiff, RevertResult, TurnChanges } from '../api/types';
import { SvelteMap } from 'svelte/reactivity';
import type { ToastStore } from './toasts.svelte';

export type DiffsState = { state: 'loading' } | { state: 'ok'; files: FileDiff[] } | { state: 'error'; error: ApiError };

export type RevertState =
  | { state: 'reverting' }
  | { state: 'done'; result: RevertResult }
  | { state: 'conflict'; error: ApiError }
  | { state: 'error'; error: ApiError };

/** Reads the open session's entries, for the last entry id of each turn (where the thread shows "Changes"). */
export interface EntrySource {
  /** Entry ids in order, tracked (read by a $derived). */
  order(): readonly string[];
  /** An entry's turn, untracked. */
  turnOf(id: string): number | undefined;
}

export class CheckpointsStore {
  sessionId: string | null = $state(null);
  turns: TurnChanges[] = $state.raw([]);
  loading = $state(false);
  error: ApiError | null = $state.raw(null);
  /** The Changes panel is open, on this turn. */
  shown = $state(false);
  focus: number | null = $state(null);
  diffs = new SvelteMap<number, DiffsState>();
  reverts = new SvelteMap<number, RevertState>();

  /** turn → its changes. */
  readonly byTurn: Map<number, TurnChanges> = $derived(new Map(this.turns.map((t) => [t.turn, t])));

  /** The last entry of each turn that changed files → that turn's changes. */
  readonly anchors: Map<string, TurnChanges> = $derived.by(() => {
    const out = new Map<string, TurnChanges>();
    const src = this.entries;
    if (!src || this.turns.length === 0) return out;
    const order = src.order();
    const want = this.byTurn;
    const seen = new Set<number>();
    for (let i = order.length - 1; i >= 0 && out.size < want.size; i--) {
      const turn = src.turnOf(order[i]);
      if (turn === undefined || seen.has(turn)) continue;
      seen.add(turn);
      const t = want.get(turn);
      if (t) out.set(order[i], t);
    }
    return out;
  });

  private token = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
    private readonly entries: EntrySource | null = null,
    private readonly refreshDelayMs = 300,
  ) {}

  /** Follows the open session: a new one loads its turns. */
  track(sessionId: string | null): void {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.token++;
    this.turns = [];
    this.error = null;
    this.diffs.clear();
    this.reverts.clear();
    this.shown = false;
    this.focus = null;
    if (sessionId) void this.refresh();
  }

  async refresh(): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    const token = ++this.token;
    this.loading = true;
    try {
      const turns = await this.client.checkpoints.list(id);
      if (token !== this.token) return;
      // Diffs of turns whose files changed are fetched again when shown.
      for (const t of turns) {
        const old = this.byTurn.get(t.turn);
        if (old && (old.files.length !== t.files.length || old.reverted !== t.reverted || old.ended !== t.ended)) this.diffs.delete(t.turn);
      }
      this.turns = turns;
      this.error = null;
    } catch (e) {
      if (token === this.token) this.error = ApiError.from(e);
    } finally {
      if (token === this.token) this.loading = false;
    }
  }

  /** A refresh soon (a turn ended, files changed during a turn). */
  scheduleRefresh(): void {
    if (!this.sessionId) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, this.refreshDelayMs);
  }

  /** Opens the Changes panel (on a turn: the newest when none is given). */
  show(turn?: number): void {
    this.shown = true;
    const t = turn ?? this.turns[this.turns.length - 1]?.turn ?? null;
    this.focus = t;
    if (t !== null) void this.loadDiffs(t);
  }

  hide(): void {
    this.shown = false;
  }

  select(turn: number): void {
    this.focus = turn;
    void this.loadDiffs(turn);
  }

  async loadDiffs(turn: number, force = false): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    const cur = this.diffs.get(turn);
    if (!force && cur && cur.state !== 'error') return;
    this.diffs.set(turn, { state: 'loading' });
    try {
      const files = await this.client.checkpoints.changes(id, turn);
      if (id === this.sessionId) this.diffs.set(turn, { state: 'ok', files });
    } catch (e) {
      if (id === this.sessionId) this.diffs.set(turn, { state: 'error', error: ApiError.from(e) });
    }
  }

  /** Reverts a turn's changes; the outcome is in `reverts` (a conflict keeps its diffs). */
  async revert(turn: number): Promise<RevertState> {
    const id = this.sessionId;
    if (!id) return { state: 'error', error: new ApiError('bad_request', 'No session is open.') };
    this.reverts.set(turn, { state: 'reverting' });
    let out: RevertState;
    try {
      const result = await this.client.checkpoints.revert(id, turn);
      out = { state: 'done', result };
      const n = result.restored.length + result.deleted.length;
      this.toasts.show({ message: `Reverted turn ${turn}: ${n} file${n === 1 ? '' : 's'}${result.skipped?.length ? `, ${result.skipped.length} skipped` : ''}.` });
    } catch (e) {
      const error = ApiError.from(e);
      out = error.code === 'conflict' ? { state: 'conflict', error } : { state: 'error', error };
    }
    if (id !== this.sessionId) return out;
    this.reverts.set(turn, out);
    if (out.state === 'done') {
      this.diffs.delete(turn);
      await this.refresh();
      if (this.focus === turn) void this.loadDiffs(turn);
    }
    return out;
  }
}
