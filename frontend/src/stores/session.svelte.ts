// The open session: its entries (by id, in order), seq, pending permissions,
// turn state, usage, modes, config options and commands; opening it, the
// events applied to it and what is asked of its agent.
//
// Events are applied at once (seq checks, text appends) to the thread's
// plain model (stores/thread.svelte.ts), which updates what components
// read at most once per animation frame. Its notices are a NoticeList
// (stores/notices.svelte.ts), what its agent offers to set AgentControls
// (stores/controls.svelte.ts), its queued prompts a PromptQueue.

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
import type { Scheduler } from '../lib/frame';
import { noticeText } from '../lib/errtext';
import { m } from '../lib/i18n.svelte';
import { readShareChoice } from '../lib/prefs';
import { AgentControls } from './controls.svelte';
import { EARLIER_SLICE, OPEN_TAIL, nextTask } from './earlier';
import { type EntryCell, SessionImages } from './entrycell.svelte';
import { NoticeList, failNotice, withMessage, type Notice } from './notices.svelte';
import { PromptQueue, type QueuedPrompt } from './queue.svelte';
import { ThreadModel } from './thread.svelte';

export { EntryCell, TERMINAL_KEEP, keepTail } from './entrycell.svelte';
export type { Notice } from './notices.svelte';
export { MAX_QUEUED, type QueuedPrompt } from './queue.svelte';

export class SessionStore {
  // ---- what components read -----------------------------------------------
  id: string | null = $state(null);
  summary: SessionSummary | null = $state.raw(null);
  title = $state('');
  usage: Usage | null = $state.raw(null);
  plan: PlanEntry[] = $state.raw([]);
  /** The turn the plan belongs to (its bar shows in that turn only). */
  planTurn = $state(0);
  pending: PermissionRequest[] = $state.raw([]);
  /** The agent's questions (elicitations) waiting, oldest first. */
  questions: ElicitationRequest[] = $state.raw([]);
  running = $state(false);
  turn = $state(0);
  stopReason = $state('');
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

  // ---- plain state, and the parts the store owns ----------------------------
  /** Seq of the last event applied. */
  seq = 0;
  /** When the session last heard from its agent (an event) or a turn
   * began, ms; plain, read on the clock's tick (lib/watchdog.svelte.ts). */
  lastOutputMs = 0;
  /** How many snapshot fetches a seq gap (or reconnect) caused. */
  refetches = 0;
  /** The entries and terminals (stores/thread.svelte.ts). */
  private readonly thread: ThreadModel;
  private readonly noticeList = new NoticeList();
  /** Modes, models, config options, commands (stores/controls.svelte.ts). */
  private readonly controls: AgentControls;
  private buffer: ThreadEvent[] = [];
  private syncing = false;
  private syncToken = 0;
  /** Waiting for the earlier entries (whenComplete). */
  private completeWaiters: (() => void)[] = [];
  private loadingEarlier = false;
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
    this.thread = new ThreadModel(schedule);
    this.controls = new AgentControls(client, { id: () => this.id, fail: (e, what) => this.fail(e, what) });
  }

  // ---- reading (ThreadModel has the details) ----------------------------------

  /** Entry ids in thread order. */
  get order(): string[] {
    return this.thread.order;
  }

  /** The agent's terminals by id (replaced, never mutated, on change). */
  get terminals(): ReadonlyMap<string, Terminal> {
    return this.thread.terminals;
  }

  get modes(): Mode[] {
    return this.controls.modes;
  }

  get currentModeId(): string {
    return this.controls.currentModeId;
  }

  get models(): Model[] {
    return this.controls.models;
  }

  get currentModelId(): string {
    return this.controls.currentModelId;
  }

  get configOptions(): ConfigOption[] {
    return this.controls.configOptions;
  }

  get commands(): Command[] {
    return this.controls.commands;
  }

  /** The banners above the chat, oldest first. */
  get notices(): Notice[] {
    return this.noticeList.items;
  }

  /** The reactive cell of an entry (made when first asked for). */
  cell(id: string): EntryCell | undefined {
    return this.thread.cell(id);
  }

  /** The entry as the model holds it now (may be ahead of the cells). */
  entry(id: string): Entry | undefined {
    return this.thread.entry(id);
  }

  /** The id of the i-th entry, read without tracking. */
  idAt(i: number): string | undefined {
    return this.thread.idAt(i);
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
    return this.thread.entryAt(i);
  }

  /** The entries in order, from the model. */
  entries(): Entry[] {
    return this.thread.entries();
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
    this.thread.clear();
    this.buffer = [];
    this.seq = 0;
    this.summary = null;
    this.title = '';
    this.usage = null;
    this.controls.clear();
    this.plan = [];
    this.planTurn = 0;
    this.pending = [];
    this.questions = [];
    this.running = false;
    this.turn = 0;
    this.stopReason = '';
    this.lastTurnFailed = false;
    this.noticeList.clear();
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
        const first = this.thread.idAt(0);
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
        if (!current() || this.syncing || this.thread.idAt(0) !== first) return;
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
    const grew = this.thread.prepend(slice, (e) => {
      if (e.kind === 'plan' && e.turn > planTurn) planTurn = e.turn;
    });
    // A slice that gives nothing would never end: all is there then.
    this.earlier = grew ? earlier : 0;
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
    const t = snap.thread;
    const planTurn = this.thread.load(t.entries ?? [], t.terminals ?? []);
    this.seq = snap.seq;
    this.lastOutputMs = Date.now();

    this.summary = snap.session;
    this.title = t.title || snap.session?.title || '';
    this.usage = t.usage ?? null;
    this.controls.load(t);
    this.plan = t.plan ?? [];
    this.planTurn = planTurn;
    this.pending = snap.pending ?? [];
    this.questions = snap.questions ?? [];
    this.running = !!snap.running;
    this.turn = t.turn ?? 0;
    this.stopReason = t.stopReason ?? '';
    // A turn that ended in an error is offered again (Retry), also after a reload.
    this.lastTurnFailed = !this.running && this.stopReason === 'error';
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
        this.thread.upsert(ev.payload);
        break;
      case 'append': {
        const p = ev.payload;
        if (p) this.thread.append(p.entryId, p.delta);
        break;
      }
      case 'meta': {
        const p = ev.payload ?? {};
        if (p.usage) this.usage = p.usage;
        this.controls.meta(p);
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
          this.noticeList.keepInfo();
        } else {
          this.running = false;
          this.stopReason = p.stopReason ?? '';
          this.lastTurnFailed = this.stopReason === 'error' || !!p.error;
          this.thread.endStreaming();
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
        if (p?.terminalId) this.thread.setTerminal(p);
        break;
      }
      case 'terminal_output': {
        const p = ev.payload;
        if (p?.terminalId && p.data) this.thread.terminalOutput(p.terminalId, p.data, this.turn);
        break;
      }
      default:
        // Unknown event types are skipped (a newer Go side).
        break;
    }
  }

  /** Pushes the model's changes to the cells now (normally once a frame). */
  flush(): void {
    this.thread.flush();
  }

  // ---- notices -----------------------------------------------------------------

  pushNotice(n: Omit<Notice, 'id'> | NoticePayload): void {
    this.noticeList.push(n);
  }

  dismissNotice(id: number): void {
    this.noticeList.dismiss(id);
  }

  /** An error notice; `what` words it around the error's own message
   * (m.chat_fail_*), in the interface language whenever it is read. */
  private fail(e: unknown, what: (p: { error: string }) => string): ApiError {
    const err = ApiError.from(e);
    this.noticeList.push(failNotice(err, what));
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

  // ---- what the agent offers to set (stores/controls.svelte.ts) ----------------

  setMode(modeId: string): Promise<void> {
    return this.controls.setMode(modeId);
  }

  /** Switches the model (shown switched at once; undone if Go refuses). */
  setModel(modelId: string): Promise<void> {
    return this.controls.setModel(modelId);
  }

  setConfigOption(configId: string, value: string | boolean): Promise<void> {
    return this.controls.setConfigOption(configId, value);
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
