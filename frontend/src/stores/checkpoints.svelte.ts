// The open session's turns that changed files (checkpoints.list): what
// each changed, the diffs (checkpoints.changes, fetched when shown) and
// Revert (checkpoints.revert). A revert that meets a file changed since
// the turn writes nothing; its error (code "conflict") carries the diffs.
// A revert can be undone (checkpoints.undoRevert). Each file's hunks
// (checkpoints.hunks) are reviewed with Keep / Reject, per hunk, per file
// or for the whole turn (checkpoints.review); a reject can be undone.

import { ApiError, type Client } from '../api';
import type { FileDiff, FileHunks, FSRefusedPayload, Hunk, HunkAction, RevertResult, TurnChanges } from '../api/types';
import { lastReject, pending } from '../lib/hunks';
import { m } from '../lib/i18n.svelte';
import { SvelteMap } from 'svelte/reactivity';
import type { ToastStore } from './toasts.svelte';

export type DiffsState = { state: 'loading' } | { state: 'ok'; files: FileDiff[] } | { state: 'error'; error: ApiError };

export type HunksState = { state: 'loading' } | { state: 'ok'; file: FileHunks; busy?: boolean } | { state: 'error'; error: ApiError };

const hunksKey = (turn: number, path: string) => `${turn}\u0000${path}`;

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
  /** turn + path → the file's hunks to review. */
  hunks = new SvelteMap<string, HunksState>();

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
    this.hunks.clear();
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
    if (!id) return { state: 'error', error: new ApiError('bad_request', m.editor_no_session()) };
    this.reverts.set(turn, { state: 'reverting' });
    let out: RevertState;
    try {
      const result = await this.client.checkpoints.revert(id, turn);
      out = { state: 'done', result };
      const n = result.restored.length + result.deleted.length;
      const skipped = result.skipped?.length ?? 0;
      this.toasts.show({
        message: skipped ? m.editor_reverted_toast_skipped({ turn, count: n, skipped }) : m.editor_reverted_toast({ turn, count: n }),
      });
    } catch (e) {
      const error = ApiError.from(e);
      out = error.code === 'conflict' ? { state: 'conflict', error } : { state: 'error', error };
    }
    if (id !== this.sessionId) return out;
    this.reverts.set(turn, out);
    if (out.state === 'done') {
      this.diffs.delete(turn);
      for (const k of [...this.hunks.keys()]) if (k.startsWith(`${turn}\u0000`)) this.hunks.delete(k);
      await this.refresh();
      if (this.focus === turn) void this.loadDiffs(turn);
    }
    return out;
  }

  hunksOf(turn: number, path: string): HunksState | undefined {
    return this.hunks.get(hunksKey(turn, path));
  }

  async loadHunks(turn: number, path: string, force = false): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    const k = hunksKey(turn, path);
    const cur = this.hunks.get(k);
    if (!force && cur && cur.state !== 'error') return;
    if (cur?.state !== 'ok') this.hunks.set(k, { state: 'loading' }); // a refresh keeps what shows
    try {
      const file = await this.client.checkpoints.hunks(id, turn, path);
      if (id === this.sessionId) this.hunks.set(k, { state: 'ok', file });
    } catch (e) {
      if (id === this.sessionId) this.hunks.set(k, { state: 'error', error: ApiError.from(e) });
    }
  }

  /** Keeps, rejects or restores hunks of a file; a reject's toast offers Undo. Resolves false when nothing was done. */
  async review(turn: number, path: string, action: HunkAction, hunks: Hunk[]): Promise<boolean> {
    const id = this.sessionId;
    if (!id || hunks.length === 0) return false;
    const k = hunksKey(turn, path);
    const cur = this.hunks.get(k);
    if (cur?.state === 'ok') this.hunks.set(k, { ...cur, busy: true });
    let file: FileHunks;
    try {
      file = await this.client.checkpoints.review(id, turn, path, action, hunks);
    } catch (e) {
      const err = ApiError.from(e);
      if (cur?.state === 'ok') this.hunks.set(k, cur);
      this.toasts.error(
        err.code === 'conflict' ? m.editor_review_conflict({ path, error: err.message }) : m.editor_review_failed({ path, error: err.message }),
      );
      return false;
    }
    if (id !== this.sessionId) return true;
    this.hunks.set(k, { state: 'ok', file });
    if (action !== 'kept') {
      this.diffs.delete(turn);
      if (this.focus === turn) void this.loadDiffs(turn, true);
    }
    if (action === 'rejected') {
      const undo = lastReject(file.reviews);
      const n = hunks.length;
      this.toasts.show({
        message: m.editor_rejected_toast({ count: n, path }),
        action: undo ? { label: m.common_undo(), run: () => void this.review(turn, path, 'restored', undo) } : undefined,
      });
    }
    return true;
  }

  /** Keep all / Reject all: every file of the turn whose content was kept, its hunks still to review. */
  async reviewTurn(turn: number, action: 'kept' | 'rejected'): Promise<void> {
    const t = this.byTurn.get(turn);
    if (!t) return;
    for (const f of t.files) {
      if (f.notKept || f.op === 'removed') continue;
      await this.loadHunks(turn, f.path);
      const st = this.hunksOf(turn, f.path);
      if (st?.state !== 'ok') continue;
      const todo = pending(st.file.hunks, st.file.reviews);
      if (todo.length && !(await this.review(turn, f.path, action, todo))) return;
    }
  }

  /** Undoes a revert (the files get the turn's result again). */
  async undoRevert(turn: number): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    try {
      const result = await this.client.checkpoints.undoRevert(id, turn);
      const n = result.restored.length + result.deleted.length;
      this.toasts.show({ message: m.editor_revert_undone({ turn, count: n }) });
    } catch (e) {
      const error = ApiError.from(e);
      if (id === this.sessionId) this.reverts.set(turn, error.code === 'conflict' ? { state: 'conflict', error } : { state: 'error', error });
      return;
    }
    if (id !== this.sessionId) return;
    this.reverts.delete(turn);
    this.diffs.delete(turn);
    for (const k of [...this.hunks.keys()]) if (k.startsWith(`${turn}\u0000`)) this.hunks.delete(k);
    await this.refresh();
    if (this.focus === turn) void this.loadDiffs(turn);
  }
}

/** The words for an agent's refused file request (event fs:refused): outside the folder is always refused; in a read-only mode every write is. */
export function fsRefusedMessage(p: FSRefusedPayload): string {
  if (p.outside) return m.editor_fs_refused_outside({ path: p.path });
  if (p.readOnlyMode) return m.editor_fs_refused_read_only({ path: p.path, mode: p.readOnlyMode });
  return m.editor_fs_refused({ path: p.path, reason: p.reason });
}
