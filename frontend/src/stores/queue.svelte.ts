// A session's prompt queue: prompts typed while a turn runs, sent one by
// one as turns end; held after a failed turn (Retry or Send now lets it
// go on). The queue and the last prompt sent are kept per session in
// lib/prefs (without images), so a reload loses neither.

import type { PromptExtras } from '../api/types';
import { MAX_DRAFT_CHARS, readQueue, writeQueue } from '../lib/prefs';

/** A prompt typed while a turn ran: sent when the turn ends. */
export interface QueuedPrompt {
  id: string;
  text: string;
  extra?: PromptExtras;
}

/** How many prompts may wait at once (one more is refused). */
export const MAX_QUEUED = 20;

let queueIds = 0;
function queueId(): string {
  return `q${Date.now().toString(36)}-${++queueIds}`;
}

/** What lib/prefs keeps per session: the queue, whether it is held, the last prompt. */
interface QueueRecord {
  items: QueuedPrompt[];
  held?: boolean;
  last?: { text: string; extra?: PromptExtras };
}

function isExtras(v: unknown): v is PromptExtras {
  if (v === undefined) return true;
  if (!v || typeof v !== 'object') return false;
  const x = v as { context?: unknown; mentions?: unknown };
  if (x.mentions !== undefined && !(Array.isArray(x.mentions) && x.mentions.every((p) => typeof p === 'string'))) return false;
  if (x.context !== undefined && (!x.context || typeof (x.context as { path?: unknown }).path !== 'string')) return false;
  return true;
}

/** Extras without their images (what prefs keep). */
function withoutImages(x: PromptExtras | undefined): PromptExtras | undefined {
  if (!x?.images) return x;
  const { images: _images, ...rest } = x;
  return rest.context || rest.mentions ? rest : undefined;
}

/** A kept record read back, checked (anything odd is dropped). */
function parseQueue(v: unknown): QueueRecord {
  const out: QueueRecord = { items: [] };
  if (!v || typeof v !== 'object') return out;
  const r = v as { items?: unknown; held?: unknown; last?: unknown };
  if (Array.isArray(r.items)) {
    for (const it of r.items) {
      const q = it as Partial<QueuedPrompt> | null;
      if (!q || typeof q.id !== 'string' || typeof q.text !== 'string' || !q.text.trim() || !isExtras(q.extra)) continue;
      out.items.push(q.extra ? { id: q.id, text: q.text, extra: q.extra } : { id: q.id, text: q.text });
      if (out.items.length >= MAX_QUEUED) break;
    }
  }
  out.held = r.held === true && out.items.length > 0;
  const last = r.last as { text?: unknown; extra?: unknown } | undefined;
  if (last && typeof last.text === 'string' && last.text && isExtras(last.extra)) out.last = { text: last.text, extra: last.extra as PromptExtras | undefined };
  return out;
}

/** What the queue needs from its session (SessionStore). */
export interface QueueHost {
  id(): string | null;
  running(): boolean;
  /** The thread is loaded and in sync (a prompt may go). */
  ready(): boolean;
  /** The last turn ended in an error. */
  failed(): boolean;
  /** The last prompt sent (kept with the queue, for Retry after a reload). */
  last(): { text: string; extra?: PromptExtras };
  prompt(text: string, extra?: PromptExtras): Promise<boolean>;
}

export class PromptQueue {
  /** Oldest first: the head is sent when the turn ends. */
  items: QueuedPrompt[] = $state.raw([]);
  /** The queue waits: the turn before it failed (send sends it on). */
  held = $state(false);
  /** A queued prompt is on its way (sessions.prompt not answered yet). */
  private sending = false;

  constructor(private readonly s: QueueHost) {}

  /** Queues a prompt typed while a turn runs. False when there is no
   * session, nothing to send or the queue is full. */
  enqueue(text: string, extra?: PromptExtras): boolean {
    if (!this.s.id() || (!text.trim() && !extra?.images?.length) || this.items.length >= MAX_QUEUED) return false;
    const item: QueuedPrompt = extra ? { id: queueId(), text: text.slice(0, MAX_DRAFT_CHARS), extra } : { id: queueId(), text: text.slice(0, MAX_DRAFT_CHARS) };
    this.items = [...this.items, item];
    this.save();
    // Idle after all (the turn ended meanwhile): it goes now.
    this.schedule();
    return true;
  }

  /** Takes a prompt out of the queue (×, or to edit it in the composer). */
  unqueue(qid: string): QueuedPrompt | undefined {
    const item = this.items.find((q) => q.id === qid);
    if (!item) return undefined;
    this.items = this.items.filter((q) => q.id !== qid);
    if (this.items.length === 0) this.held = false;
    this.save();
    return item;
  }

  /** Sends a queued prompt now (the head unless named): Send now on a
   * held queue. False while a turn runs or when it did not go (it is
   * back at the head, held). */
  async send(qid?: string): Promise<boolean> {
    const id = this.s.id();
    if (!id || this.s.running() || this.sending) return false;
    const item = qid ? this.items.find((q) => q.id === qid) : this.items[0];
    if (!item) return false;
    this.items = this.items.filter((q) => q !== item);
    this.held = false;
    this.save();
    this.sending = true;
    let ok = false;
    try {
      ok = await this.s.prompt(item.text, item.extra);
    } finally {
      if (this.s.id() === id) {
        this.sending = false;
        // The turn may have ended before sessions.prompt answered: the next goes.
        if (ok && !this.s.running()) this.schedule();
        if (!ok) {
          // Not taken (busy, the agent could not start): it waits again, held.
          this.items = [item, ...this.items.filter((q) => q.id !== item.id)];
          this.held = true;
          this.save();
        }
      }
    }
    return ok;
  }

  /** A turn ended: after a failure the queue waits (held), else its head goes. */
  turnEnded(): void {
    if (this.items.length === 0) return;
    if (this.s.failed()) {
      if (!this.held) {
        this.held = true;
        this.save();
      }
      return;
    }
    if (this.held) {
      // A turn that went well (a Retry) lets the queue go on.
      this.held = false;
      this.save();
    }
    this.schedule();
  }

  /** Sends the queue's head soon when the session is idle (after the
   * events being applied now: the turn's last ones may follow). */
  schedule(): void {
    if (this.items.length === 0) return;
    const id = this.s.id();
    queueMicrotask(() => {
      if (this.s.id() !== id || this.items.length === 0 || this.s.running() || !this.s.ready()) return;
      if (this.held) return;
      if (this.s.failed()) {
        // Opened on a failed turn: the queue waits for Retry or Send now.
        this.held = true;
        this.save();
        return;
      }
      void this.send();
    });
  }

  /** Reads session id's kept queue; returns the last prompt kept with it. */
  load(id: string): { text: string; extra?: PromptExtras } | undefined {
    const r = parseQueue(readQueue(id));
    this.items = r.items;
    this.held = !!r.held;
    return r.last;
  }

  /** Forgets the queue (the session closed). */
  reset(): void {
    this.items = [];
    this.held = false;
    this.sending = false;
  }

  /** Keeps the session's queue and last prompt (lib/prefs). */
  save(): void {
    const id = this.s.id();
    if (!id) return;
    const last = this.s.last();
    if (this.items.length === 0 && !last.text) {
      writeQueue(id, null);
      return;
    }
    // Images stay in memory only (megabytes of base64 do not go to prefs).
    const rec: QueueRecord = { items: this.items.filter((q) => q.text.trim()).map((q) => (q.extra?.images ? { ...q, extra: withoutImages(q.extra) } : q)) };
    if (this.held) rec.held = true;
    const lastExtra = withoutImages(last.extra);
    if (last.text) rec.last = lastExtra ? { text: last.text.slice(0, MAX_DRAFT_CHARS), extra: lastExtra } : { text: last.text.slice(0, MAX_DRAFT_CHARS) };
    writeQueue(id, rec);
  }
}
