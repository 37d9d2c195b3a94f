// The open session: its entries (by id, in order), seq, pending permissions,
// turn state, usage, modes, config options and commands.
//
// Events are applied to a plain model at once (seq checks, text appends);
// what components read is updated from it at most once per animation frame
// (FrameBatcher), and then only for the entries that changed: each entry
// lives in its own EntryCell, so a streaming message re-renders alone.

import { ApiError, type Client } from '../api';
import type {
  Command,
  ConfigOption,
  ElicitationAction,
  ElicitationRequest,
  Entry,
  Mode,
  Model,
  NoticePayload,
  PermissionRequest,
  PlanEntry,
  PromptExtras,
  SessionSummary,
  Snapshot,
  Terminal,
  ThreadEvent,
  Usage,
} from '../api/types';
import { FrameBatcher, type Scheduler } from '../lib/frame';
import { noticeText } from '../lib/errtext';
import { m } from '../lib/i18n.svelte';
import { readShareChoice } from '../lib/prefs';
import { EARLIER_SLICE, OPEN_TAIL, nextTask, prependEntries } from './earlier';
import { EntryCell, SessionImages, keepTail } from './entrycell.svelte';
import { PromptQueue, type QueuedPrompt } from './queue.svelte';

export { EntryCell, TERMINAL_KEEP, keepTail } from './entrycell.svelte';

export interface Notice {
  id: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  details?: string;
  action?: string;
  /** The API error code when the notice came from a failed call. */
  code?: string;
}

let noticeIds = 0;

export { MAX_QUEUED, type QueuedPrompt } from './queue.svelte';

/** A notice whose message is a getter: the text is made when it is read
 * (while rendering), so switching the language rewords it at once. */
function withMessage(n: Omit<Notice, 'id' | 'message'>, message: () => string): Omit<Notice, 'id'> {
  return Object.defineProperty(n, 'message', { get: message, enumerable: true, configurable: true }) as Omit<Notice, 'id'>;
}

export class SessionStore {
  // ---- what components read -----------------------------------------------
  id: string | null = $state(null);
  summary: SessionSummary | null = $state.raw(null);
  /** Entry ids in thread order. */
  order: string[] = $state.raw([]);
  title = $state('');
  usage: Usage | null = $state.raw(null);
  modes: Mode[] = $state.raw([]);
  currentModeId = $state('');
  models: Model[] = $state.raw([]);
  currentModelId = $state('');
  configOptions: ConfigOption[] = $state.raw([]);
  commands: Command[] = $state.raw([]);
  plan: PlanEntry[] = $state.raw([]);
  /** The turn the plan belongs to (its bar shows in that turn only). */
  planTurn = $state(0);
  pending: PermissionRequest[] = $state.raw([]);
  /** The agent's questions (elicitations) waiting, oldest first. */
  questions: ElicitationRequest[] = $state.raw([]);
  running = $state(false);
  turn = $state(0);
  stopReason = $state('');
  notices: Notice[] = $state.raw([]);
  loading = $state(false);
  error: ApiError | null = $state.raw(null);
  /** Bumped whenever the thread is replaced by a snapshot. */
  generation = $state(0);
  /** Entries before the first one loaded, still on their way (a long
   * session opens with its last entries: stores/earlier.ts). */
  earlier = $state(0);
  /** Loading the earlier entries failed (retried by loadEarlier). */
  earlierFailed = $state(false);
  /** The last prompt sent (for "retry" after a crash), and what went with it. */
  lastPrompt = $state('');
  lastExtra: PromptExtras | undefined = $state.raw(undefined);
  /** The last turn ended in an error (a crash, a failed start). */
  lastTurnFailed = $state(false);
  /** The agent's terminals by id (replaced, never mutated, on change). */
  terminals: ReadonlyMap<string, Terminal> = $state.raw(new Map());

  // ---- the model, updated at once -----------------------------------------
  /** Seq of the last event applied. */
  seq = 0;
  /** When the session last heard from its agent (an event) or a turn
   * began, ms; plain, read on the clock's tick (lib/watchdog.svelte.ts). */
  lastOutputMs = 0;
  /** How many snapshot fetches a seq gap (or reconnect) caused. */
  refetches = 0;
  private model = new Map<string, Entry>();
  private modelOrder: string[] = [];
  private cells = new Map<string, EntryCell>();
  private dirty = new Set<string>();
  /** Entries whose `streaming` is set (normally at most one). */
  private streamingIds = new Set<string>();
  private orderDirty = false;
  private termModel = new Map<string, Terminal>();
  private termDirty = false;
  private buffer: ThreadEvent[] = [];
  private syncing = false;
  private syncToken = 0;
  /** Waiting for the earlier entries (whenComplete). */
  private completeWaiters: (() => void)[] = [];
  private loadingEarlier = false;
  private readonly batcher: FrameBatcher;
  /** The prompts queued while a turn runs (and the last prompt, kept). */
  private readonly prompts = new PromptQueue({
    id: () => this.id,
    running: () => this.running,
    ready: () => !this.syncing && !this.loading && !this.error,
    failed: () => this.lastTurnFailed,
    last: () => ({ text: this.lastPrompt, extra: this.lastExtra }),
    prompt: (text, extra) => this.prompt(text, extra),
  });

  constructor(
    private readonly client: Client,
    schedule?: Scheduler,
  ) {
    this.batcher = new FrameBatcher(() => this.flushNow(), schedule);
  }

  // ---- reading -------------------------------------------------------------

  /** The reactive cell of an entry (undefined for an unknown id). Cells
   * are made when first asked for: a long session opens without making
   * one per entry (only what the list shows needs one). */
  cell(id: string): EntryCell | undefined {
    let c = this.cells.get(id);
    if (!c) {
      const e = this.model.get(id);
      if (!e) return undefined;
      c = new EntryCell({ ...e });
      this.cells.set(id, c);
    }
    return c;
  }

  /** The entry as the model holds it now (may be ahead of the cells). */
  entry(id: string): Entry | undefined {
    return this.model.get(id);
  }

  /** The id of the i-th entry, read without tracking (the virtual list
   * asks for every entry; the model's order is `order` once flushed:
   * entries append, and earlier ones go in front with `order` at once). */
  idAt(i: number): string | undefined {
    return this.modelOrder[i];
  }

  /** Resolves when every entry is loaded (at once when they are; also
   * when the session closes or fails): Home, retry and the like wait. */
  whenComplete(): Promise<void> {
    if (this.earlier === 0 || !this.id || this.error) return Promise.resolve();
    if (this.earlierFailed) void this.loadEarlier();
    return new Promise((resolve) => this.completeWaiters.push(resolve));
  }

  private completed(): void {
    for (const w of this.completeWaiters.splice(0)) w();
  }

  /** The i-th entry of the model, read without tracking. */
  entryAt(i: number): Entry | undefined {
    const id = this.modelOrder[i];
    return id === undefined ? undefined : this.model.get(id);
  }

  /** The entries in order, from the model. */
  entries(): Entry[] {
    return this.modelOrder.map((id) => this.model.get(id)!);
  }

  /** Index of an entry in `order`, or -1. */
  indexOf(id: string): number {
    return this.order.indexOf(id);
  }

  // ---- opening ---------------------------------------------------------------

  /** Opens a session: fetches its snapshot; events that arrive meanwhile
   * are buffered and applied after it. */
  async open(id: string): Promise<void> {
    if (this.id === id && !this.error) return;
    this.reset();
    this.id = id;
    const last = this.prompts.load(id);
    if (last) {
      this.lastPrompt = last.text;
      this.lastExtra = last.extra;
    }
    this.loading = true;
    await this.sync();
  }

  /** Forgets the open session. */
  clear(): void {
    this.reset();
    this.id = null;
  }

  /** Fetches the snapshot again (after a reconnect or on request). */
  async resync(): Promise<void> {
    if (!this.id || this.syncing) return;
    await this.sync();
  }

  private reset(): void {
    this.syncToken++;
    this.syncing = false;
    this.batcher.cancel();
    this.buffer = [];
    this.seq = 0;
    this.model = new Map();
    this.modelOrder = [];
    this.cells = new Map();
    this.dirty.clear();
    this.streamingIds.clear();
    this.orderDirty = false;
    this.termModel = new Map();
    this.termDirty = false;
    this.terminals = new Map();
    this.summary = null;
    this.order = [];
    this.title = '';
    this.usage = null;
    this.modes = [];
    this.currentModeId = '';
    this.models = [];
    this.currentModelId = '';
    this.configOptions = [];
    this.commands = [];
    this.plan = [];
    this.planTurn = 0;
    this.pending = [];
    this.questions = [];
    this.running = false;
    this.turn = 0;
    this.stopReason = '';
    this.lastTurnFailed = false;
    this.notices = [];
    this.error = null;
    this.loading = false;
    this.earlier = 0;
    this.earlierFailed = false;
    this.completed();
    this.lastPrompt = '';
    this.lastExtra = undefined;
    this.prompts.reset();
  }

  private async sync(): Promise<void> {
    const id = this.id;
    if (!id) return;
    const token = ++this.syncToken;
    this.syncing = true;
    this.loadingEarlier = false; // a loop of the last token stops by itself
    try {
      const snap = await this.client.sessions.open(id, { limit: OPEN_TAIL });
      if (token !== this.syncToken) return;
      this.applySnapshot(snap);
    } catch (e) {
      if (token !== this.syncToken) return;
      this.error = ApiError.from(e);
      this.buffer = [];
      this.completed();
    } finally {
      if (token === this.syncToken) {
        this.syncing = false;
        this.loading = false;
        this.drain();
        if (this.earlier > 0) void this.loadEarlier();
      }
    }
  }

  /** Loads the earlier entries a slice at a time, each parsed and put in
   * front in a task of its own; the virtual list keeps what is on screen
   * where it is. Stops when the session changes; a failure is kept in
   * earlierFailed (calling this again goes on). */
  async loadEarlier(): Promise<void> {
    const id = this.id;
    if (!id || this.loadingEarlier) return;
    const token = this.syncToken;
    const current = () => token === this.syncToken && this.id === id;
    this.loadingEarlier = true;
    this.earlierFailed = false;
    try {
      while (current() && this.earlier > 0 && !this.syncing) {
        const first = this.modelOrder[0];
        let snap: Snapshot;
        try {
          snap = await this.client.sessions.open(id, { limit: EARLIER_SLICE, before: first });
        } catch (e) {
          if (current()) {
            console.error('mnote: could not load the earlier entries', e);
            this.earlierFailed = true;
          }
          return;
        }
        // Parsed in the fetch's task; put in front in the next one.
        await nextTask();
        if (!current() || this.syncing || this.modelOrder[0] !== first) return;
        this.prepend(snap.thread.entries ?? [], snap.earlier ?? 0);
        await nextTask();
      }
    } finally {
      if (token === this.syncToken) this.loadingEarlier = false;
      if (current() && this.earlier === 0) this.completed();
    }
  }

  private prepend(slice: Entry[], earlier: number): void {
    let planTurn = this.planTurn;
    const order = prependEntries(this.model, this.modelOrder, slice, (e) => {
      if (e.kind === 'plan' && e.turn > planTurn) planTurn = e.turn;
      if (e.streaming) this.streamingIds.add(e.id);
    });
    // A slice that gives nothing would never end: all is there then.
    this.earlier = order.length > this.modelOrder.length ? earlier : 0;
    this.modelOrder = order;
    this.orderDirty = false;
    this.order = order.slice();
    this.planTurn = planTurn;
  }

  private drain(): void {
    if (this.buffer.length === 0) return;
    const buf = this.buffer.sort((a, b) => a.seq - b.seq);
    this.buffer = [];
    for (const ev of buf) {
      this.handleEvent(ev);
      if (this.syncing) {
        // A gap inside the buffer started another fetch: keep the rest for it.
        const rest = buf.slice(buf.indexOf(ev) + 1);
        this.buffer.push(...rest);
        return;
      }
    }
  }

  applySnapshot(snap: Snapshot): void {
    this.batcher.cancel();
    const t = snap.thread;
    const model = new Map<string, Entry>();
    const order: string[] = [];
    let planTurn = 0;
    this.streamingIds.clear();
    // The snapshot's entries are ours (freshly parsed): the model keeps
    // them as they are; cells are made when the list shows an entry.
    for (const e of t.entries ?? []) {
      if (!e || typeof e.id !== 'string') continue;
      if (!model.has(e.id)) order.push(e.id);
      model.set(e.id, e);
      if (e.streaming) this.streamingIds.add(e.id);
      if (e.kind === 'plan') planTurn = e.turn;
    }
    this.model = model;
    this.cells = new Map();
    this.modelOrder = order;
    this.dirty.clear();
    this.orderDirty = false;
    this.seq = snap.seq;
    this.lastOutputMs = Date.now();

    this.summary = snap.session;
    this.order = order.slice();
    this.title = t.title || snap.session?.title || '';
    this.usage = t.usage ?? null;
    this.modes = t.modes ?? [];
    this.currentModeId = t.currentModeId ?? '';
    this.models = t.models ?? [];
    this.currentModelId = t.currentModelId ?? '';
    this.configOptions = Array.isArray(t.configOptions) ? t.configOptions : [];
    this.commands = t.commands ?? [];
    this.plan = t.plan ?? [];
    this.planTurn = planTurn;
    this.pending = snap.pending ?? [];
    this.questions = snap.questions ?? [];
    this.running = !!snap.running;
    this.turn = t.turn ?? 0;
    this.stopReason = t.stopReason ?? '';
    // A turn that ended in an error is offered again (Retry), also after a reload.
    this.lastTurnFailed = !this.running && this.stopReason === 'error';
    this.termModel = new Map();
    for (const term of t.terminals ?? []) {
      if (term && typeof term.terminalId === 'string') this.termModel.set(term.terminalId, { ...term, output: term.output ?? '' });
    }
    this.termDirty = false;
    this.terminals = new Map(this.termModel);
    this.error = null;
    this.earlier = snap.earlier ?? 0;
    this.earlierFailed = false;
    this.generation++;
    this.prompts.schedule();
  }

  // ---- events ----------------------------------------------------------------

  /**
   * Applies one thread:event. Returns false if it is not for the open
   * session (the caller may use it elsewhere).
   */
  handleEvent(ev: ThreadEvent): boolean {
    if (!ev || !this.id || ev.sessionId !== this.id) return false;
    if (this.syncing) {
      this.buffer.push(ev);
      return true;
    }
    if (typeof ev.seq !== 'number' || ev.seq <= this.seq) return true; // already in the snapshot
    if (ev.seq !== this.seq + 1) {
      // Gap: fetch the snapshot once; this and later events wait for it.
      this.buffer.push(ev);
      this.refetches++;
      void this.sync();
      return true;
    }
    this.seq = ev.seq;
    this.lastOutputMs = Date.now();
    try {
      this.apply(ev);
    } catch (e) {
      console.error('mnote: could not apply event', ev.type, e);
    }
    return true;
  }

  private apply(ev: ThreadEvent): void {
    switch (ev.type) {
      case 'entry':
        this.upsert(ev.payload);
        break;
      case 'append': {
        const p = ev.payload;
        const e = p && this.model.get(p.entryId);
        if (!e) return; // unknown entry: nothing to append to
        e.text = (e.text ?? '') + (p.delta ?? '');
        this.markDirty(e.id);
        break;
      }
      case 'meta': {
        const p = ev.payload ?? {};
        if (p.usage) this.usage = p.usage;
        if (p.modes !== undefined) this.modes = p.modes ?? [];
        if (p.currentModeId !== undefined) this.currentModeId = p.currentModeId ?? '';
        if (p.models !== undefined) this.models = p.models ?? [];
        if (p.currentModelId !== undefined) this.currentModelId = p.currentModelId ?? '';
        if (p.configOptions !== undefined) this.configOptions = Array.isArray(p.configOptions) ? p.configOptions : [];
        if (p.commands !== undefined) this.commands = p.commands ?? [];
        if (p.plan !== undefined) {
          this.plan = p.plan ?? [];
          this.planTurn = this.turn;
        }
        if (p.title !== undefined && p.title) {
          this.title = p.title;
          if (this.summary) this.summary = { ...this.summary, title: p.title };
        }
        break;
      }
      case 'permission': {
        const p = ev.payload;
        if (!p?.requestId || this.pending.some((r) => r.requestId === p.requestId)) return;
        this.pending = [...this.pending, p];
        break;
      }
      case 'permission_resolved': {
        const id = ev.payload?.requestId;
        if (this.pending.some((r) => r.requestId === id)) this.pending = this.pending.filter((r) => r.requestId !== id);
        break;
      }
      case 'elicitation': {
        const q = ev.payload;
        if (!q?.requestId || this.questions.some((r) => r.requestId === q.requestId)) return;
        this.questions = [...this.questions, q];
        break;
      }
      case 'elicitation_resolved': {
        const id = ev.payload?.requestId;
        if (this.questions.some((r) => r.requestId === id)) this.questions = this.questions.filter((r) => r.requestId !== id);
        break;
      }
      case 'turn': {
        const p = ev.payload;
        if (!p) return;
        if (typeof p.turn === 'number') this.turn = p.turn;
        if (p.state === 'running') {
          this.running = true;
          this.stopReason = '';
          this.lastTurnFailed = false;
          this.notices = this.notices.filter((n) => n.level === 'info');
        } else {
          this.running = false;
          this.stopReason = p.stopReason ?? '';
          this.lastTurnFailed = this.stopReason === 'error' || !!p.error;
          this.endStreaming();
          this.prompts.turnEnded();
          if (p.error) {
            const err = typeof p.error === 'string' ? { message: p.error } : ApiError.from(p.error);
            const text = err.message;
            this.pushNotice(
              withMessage(
                {
                  level: 'error',
                  details: 'details' in err ? err.details : undefined,
                  code: 'code' in err ? err.code : undefined,
                },
                () => text || m.chat_turn_failed(),
              ),
            );
          }
        }
        break;
      }
      case 'notice':
        if (ev.payload?.message) {
          const n = ev.payload;
          // Worded in the interface language when Go gave a reason or a
          // code it knows (Go's English message otherwise).
          this.pushNotice(n.reason || n.code ? withMessage({ ...n }, () => noticeText(n)) : n);
        }
        break;
      case 'terminal': {
        const p = ev.payload;
        if (!p?.terminalId) return;
        // The state event carries no output: keep what came before.
        const old = this.termModel.get(p.terminalId);
        this.termModel.set(p.terminalId, { ...p, output: old?.output ?? '' });
        this.markTerminals();
        break;
      }
      case 'terminal_output': {
        const p = ev.payload;
        if (!p?.terminalId || !p.data) return;
        const old = this.termModel.get(p.terminalId) ?? { terminalId: p.terminalId, turn: this.turn, command: '', output: '' };
        this.termModel.set(p.terminalId, { ...old, output: keepTail(old.output + p.data) });
        this.markTerminals();
        break;
      }
      default:
        // Unknown event types are skipped (a newer Go side).
        break;
    }
  }

  private upsert(e: Entry): void {
    if (!e || typeof e.id !== 'string') return;
    const had = this.model.has(e.id);
    this.model.set(e.id, { ...e });
    if (!had) {
      // A new entry ends the streaming of the one before it (API.md: the
      // thread closes it without an event of its own).
      this.endStreaming(e.id);
      this.modelOrder.push(e.id);
      this.orderDirty = true;
    }
    if (e.streaming) this.streamingIds.add(e.id);
    else this.streamingIds.delete(e.id);
    this.markDirty(e.id);
  }

  /** Clears `streaming` on every entry but `except`. */
  private endStreaming(except?: string): void {
    for (const id of this.streamingIds) {
      if (id === except) continue;
      const m = this.model.get(id);
      if (m) {
        m.streaming = false;
        this.markDirty(id);
      }
      this.streamingIds.delete(id);
    }
  }

  private markTerminals(): void {
    this.termDirty = true;
    this.batcher.request();
  }

  private markDirty(id: string): void {
    this.dirty.add(id);
    this.batcher.request();
  }

  /** Pushes the model's changes to the cells now (normally once a frame). */
  flush(): void {
    this.batcher.flush();
  }

  private flushNow(): void {
    for (const id of this.dirty) {
      const e = this.model.get(id);
      if (!e) continue;
      // Entries without a cell get one when shown.
      const cell = this.cells.get(id);
      if (cell) cell.v = { ...e };
    }
    this.dirty.clear();
    if (this.orderDirty) {
      this.orderDirty = false;
      this.order = this.modelOrder.slice();
    }
    if (this.termDirty) {
      this.termDirty = false;
      this.terminals = new Map(this.termModel);
    }
  }

  // ---- notices -----------------------------------------------------------------

  pushNotice(n: Omit<Notice, 'id'> | NoticePayload): void {
    // Copied with its property descriptors: a message that is a getter
    // (withMessage) stays one, so it follows the interface language.
    const notice = Object.defineProperties({ id: ++noticeIds }, Object.getOwnPropertyDescriptors(n)) as Notice;
    // The same message twice in a row stays one banner.
    const last = this.notices[this.notices.length - 1];
    if (last && last.message === notice.message && last.level === notice.level) return;
    this.notices = [...this.notices.slice(-4), notice];
  }

  dismissNotice(id: number): void {
    this.notices = this.notices.filter((n) => n.id !== id);
  }

  /** An error notice; `what` words it around the error's own message
   * (m.chat_fail_*), in the interface language whenever it is read. */
  private fail(e: unknown, what: (p: { error: string }) => string): ApiError {
    const err = ApiError.from(e);
    const error = err.message;
    this.pushNotice(
      withMessage(
        {
          level: 'error',
          details: err.details,
          code: err.code,
          action: err.code === 'needs_auth' ? 'login' : err.code === 'agent_failed' ? 'restart' : undefined,
        },
        () => what({ error }),
      ),
    );
    return err;
  }

  // ---- actions -------------------------------------------------------------------

  /** Sends a prompt. Resolves true when Go took it (the turn streams as events). */
  async prompt(text: string, extra?: PromptExtras): Promise<boolean> {
    const id = this.id;
    if (!id || (!text.trim() && !extra?.images?.length)) return false;
    this.lastPrompt = text;
    this.lastExtra = extra;
    this.prompts.save();
    // Running at once (the Stop button shows); the turn's own events, which
    // may arrive before this call returns, have the last word.
    const seqBefore = this.seq;
    this.running = true;
    this.lastOutputMs = Date.now();
    // A shared session's choice of what members also see goes with every
    // prompt, queued and retried ones too (as it is when each is sent).
    const share = readShareChoice(id);
    if (share.thoughts || share.toolSummaries) extra = { ...extra, share };
    try {
      await (extra ? this.client.sessions.prompt(id, text, extra) : this.client.sessions.prompt(id, text));
      return true;
    } catch (e) {
      if (this.id === id) {
        if (this.seq === seqBefore) this.running = false;
        this.fail(e, m.chat_fail_send);
      }
      return false;
    }
  }

  /** Sends the last prompt again, with the same context and mentions (Retry
   * of a failed turn; Go binds the agent again when it crashed). Without
   * one kept, the last prompt in the thread goes (its text alone). */
  async retry(): Promise<boolean> {
    let text = this.lastPrompt;
    let extra = text ? this.lastExtra : undefined;
    if (!text) {
      const users = this.entries().filter((e) => e.kind === 'user_message');
      text = users[users.length - 1]?.text ?? '';
      extra = undefined;
    }
    if (!text) return false;
    return this.prompt(text, extra);
  }

  // ---- the queue (stores/queue.svelte.ts) ------------------------------------

  /** Prompts typed while a turn ran, oldest first: the head is sent when the turn ends. */
  get queue(): QueuedPrompt[] {
    return this.prompts.items;
  }

  /** The queue waits: the turn before it failed (sendQueued sends it on). */
  get queueHeld(): boolean {
    return this.prompts.held;
  }

  /** Queues a prompt typed while a turn runs. False when there is no
   * session, nothing to send or the queue is full. */
  enqueue(text: string, extra?: PromptExtras): boolean {
    return this.prompts.enqueue(text, extra);
  }

  /** Takes a prompt out of the queue (×, or to edit it in the composer). */
  unqueue(qid: string): QueuedPrompt | undefined {
    return this.prompts.unqueue(qid);
  }

  /** Sends a queued prompt now (the head unless named): Send now on a
   * held queue. False while a turn runs or when it did not go. */
  sendQueued(qid?: string): Promise<boolean> {
    return this.prompts.send(qid);
  }

  async cancel(): Promise<void> {
    if (!this.id) return;
    try {
      await this.client.sessions.cancel(this.id);
    } catch (e) {
      this.fail(e, m.chat_fail_cancel);
    }
  }

  /** Stops the command of one of the agent's terminals (its card's Stop). */
  async killTerminal(terminalId: string): Promise<void> {
    const id = this.id;
    if (!id) return;
    try {
      await this.client.sessions.killTerminal(id, terminalId);
    } catch (e) {
      if (this.id === id) this.fail(e, m.chat_fail_kill);
    }
  }

  /** Answers an agent's question. Resolves to the fields the bridge
   * refused (its bad_request details, "field: reason" lines) — the
   * question then keeps waiting — or null when the answer went. */
  async answer(requestId: string, action: ElicitationAction, content?: Record<string, unknown>): Promise<string | null> {
    const id = this.id;
    if (!id) return null;
    const before = this.questions;
    this.questions = before.filter((r) => r.requestId !== requestId);
    try {
      await this.client.elicitations.answer(id, requestId, action, content);
      return null;
    } catch (e) {
      if (this.id !== id) return null;
      const err = ApiError.from(e);
      const back = () => {
        const q = before.find((r) => r.requestId === requestId);
        if (q && !this.questions.some((r) => r.requestId === requestId)) this.questions = [q, ...this.questions];
      };
      if (err.code === 'bad_request' && err.details) {
        back();
        return err.details;
      }
      this.fail(e, m.chat_fail_answer);
      if (err.code !== 'not_found') back();
      return null;
    }
  }

  /** Answers a permission request ("" cancels it). */
  async decide(requestId: string, optionId: string): Promise<void> {
    const id = this.id;
    if (!id) return;
    const before = this.pending;
    this.pending = before.filter((r) => r.requestId !== requestId);
    try {
      await this.client.permissions.decide(id, requestId, optionId);
    } catch (e) {
      if (this.id !== id) return;
      const err = this.fail(e, m.chat_fail_decide);
      // Still waiting on the Go side? Put it back.
      if (err.code !== 'not_found' && !this.pending.some((r) => r.requestId === requestId)) {
        const req = before.find((r) => r.requestId === requestId);
        if (req) this.pending = [req, ...this.pending];
      }
    }
  }

  /** Shows a change at once (show returns its undo) and asks Go for it;
   * the change is undone and the failure told if Go refuses. */
  private async optimistic(show: () => () => void, call: (id: string) => Promise<unknown>, what: (p: { error: string }) => string): Promise<void> {
    const id = this.id;
    if (!id) return;
    const undo = show();
    try {
      await call(id);
    } catch (e) {
      if (this.id !== id) return;
      undo();
      this.fail(e, what);
    }
  }

  setMode(modeId: string): Promise<void> {
    const prev = this.currentModeId;
    return this.optimistic(
      () => ((this.currentModeId = modeId), () => (this.currentModeId = prev)),
      (id) => this.client.sessions.setMode(id, modeId),
      m.chat_fail_mode,
    );
  }

  /** Switches the model, whichever way the agent offers models: Go sends
   * session/set_config_option for a config option of category "model",
   * else the legacy session/set_model. Both are shown switched at once. */
  setModel(modelId: string): Promise<void> {
    const prev = this.currentModelId;
    const prevOptions = this.configOptions;
    let first = true; // the first select option of category model is the one Go sets
    const shown = prevOptions.map((o) => {
      if (!first || o?.category !== 'model' || o.type !== 'select') return o;
      first = false;
      return { ...o, currentValue: modelId };
    });
    return this.optimistic(
      () => {
        this.currentModelId = modelId;
        this.configOptions = shown;
        return () => {
          this.currentModelId = prev;
          this.configOptions = prevOptions;
        };
      },
      (id) => this.client.sessions.setModel(id, modelId),
      m.chat_fail_model,
    );
  }

  setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const prev = this.configOptions;
    return this.optimistic(
      () => ((this.configOptions = prev.map((o) => (o.id === configId ? { ...o, currentValue: value } : o))), () => (this.configOptions = prev)),
      (id) => this.client.sessions.setConfigOption(id, configId, value),
      m.chat_fail_setting,
    );
  }

  async switchAgent(agent: string): Promise<boolean> {
    const id = this.id;
    if (!id) return false;
    try {
      const s = await this.client.sessions.switchAgent(id, agent);
      if (this.id === id) this.summary = s;
      return true;
    } catch (e) {
      if (this.id === id) this.fail(e, m.chat_fail_switch);
      return false;
    }
  }

  /** Ends the session's agent binding (pending permissions are cancelled). */
  async closeSession(): Promise<void> {
    if (!this.id) return;
    try {
      await this.client.sessions.close(this.id);
    } catch (e) {
      this.fail(e, m.chat_fail_close);
    }
  }

  private images: SessionImages | null = null;

  /** One of the session's kept images (a user message's image block
   * names it by hash) as a data: URL; '' when it cannot be read. */
  image(hash: string): Promise<string> {
    if (!this.id) return Promise.resolve('');
    return (this.images ??= new SessionImages(this.client)).get(this.id, hash);
  }

  /** A newer summary of the open session (from the sessions list). */
  updateSummary(s: SessionSummary): void {
    if (s.id !== this.id) return;
    const cur = this.summary;
    // sessions.list leaves the fork details out: keep the ones known.
    if (cur && s.forks == null && cur.forks) s = { ...s, forks: cur.forks };
    if (cur?.forkedFrom && s.forkedFrom && !s.forkedFrom.how) s = { ...s, forkedFrom: cur.forkedFrom };
    if (cur && cur.updatedMs === s.updatedMs && cur.status === s.status && cur.title === s.title && cur.agent === s.agent && cur.live === s.live && cur.images === s.images
      && (cur.forks?.length ?? 0) === (s.forks?.length ?? 0) && cur.forkedFrom?.how === s.forkedFrom?.how) return;
    this.summary = s;
    if (s.title && !this.title) this.title = s.title;
  }
}
