// Issue 17, the chat people expect: prompts queued while a turn runs (sent
// as turns end, FIFO; held after a failure; kept across switching sessions
// and a reload), Retry of a failed turn with the same context and mentions,
// and the session store driving both against a fake client.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PromptExtras, ThreadEvent } from '../src/api/types';
import { MAX_DRAFTS, readQueue, writeQueue } from '../src/lib/prefs';
import { MAX_QUEUED, SessionStore } from '../src/stores/session.svelte';
import { deferred, fakeClient, manualFrames, snapshot } from './helpers';

const S = 'sess-q';

beforeEach(() => localStorage.clear());

/** A store on a fake client whose sessions.prompt is recorded; `seq` counts events. */
async function openStore(id = S, extra: Parameters<typeof snapshot>[3] = {}) {
  const prompts: { id: string; text: string; context?: unknown; mentions?: unknown }[] = [];
  const fc = fakeClient({
    'sessions.open': (a) => snapshot(String(a.id), 0, [], extra),
    'sessions.prompt': (a) => {
      prompts.push(a as (typeof prompts)[number]);
      return { turn: prompts.length };
    },
    'sessions.cancel': () => ({}),
  });
  const frames = manualFrames();
  const store = new SessionStore(fc.client, frames.schedule);
  await store.open(id);
  let seq = 0;
  const emit = (type: ThreadEvent['type'], payload: unknown, sid = store.id ?? id) => {
    store.handleEvent({ sessionId: sid, seq: ++seq, type, payload } as ThreadEvent);
  };
  return { store, fc, prompts, emit, frames };
}

/** Lets queued microtasks (the queue's send) and the fake call run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('queued prompts', () => {
  it('queue while a turn runs and go one at a time, oldest first, as turns end', async () => {
    const { store, prompts, emit } = await openStore();
    expect(await store.prompt('first')).toBe(true);
    emit('turn', { state: 'running', turn: 1 });
    const ctx: PromptExtras = { context: { path: 'a.md' }, mentions: ['notes/b.md'] };
    expect(store.enqueue('second', ctx)).toBe(true);
    expect(store.enqueue('third')).toBe(true);
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['first']); // nothing while the turn runs
    expect(store.queue.map((q) => q.text)).toEqual(['second', 'third']);

    emit('turn', { state: 'ended', turn: 1, stopReason: 'end_turn' });
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['first', 'second']);
    expect(prompts[1]).toEqual({ id: S, text: 'second', context: { path: 'a.md' }, mentions: ['notes/b.md'] });
    expect(store.queue.map((q) => q.text)).toEqual(['third']);
    expect(store.running).toBe(true);

    emit('turn', { state: 'running', turn: 2 });
    emit('turn', { state: 'ended', turn: 2, stopReason: 'end_turn' });
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['first', 'second', 'third']);
    expect(store.queue).toEqual([]);
  });

  it('a cancelled turn (Esc) keeps the queue and then sends its head', async () => {
    const { store, prompts, emit, fc } = await openStore();
    await store.prompt('long one');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('after the stop');
    await store.cancel();
    expect(fc.call).toHaveBeenCalledWith('sessions.cancel', { id: S });
    expect(store.queue).toHaveLength(1); // Stop does not drop it
    emit('turn', { state: 'ended', turn: 1, stopReason: 'cancelled' });
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['long one', 'after the stop']);
  });

  it('after a failed turn the queue is held (with a note) until Send now', async () => {
    const { store, prompts, emit } = await openStore();
    await store.prompt('will fail');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('waiting');
    emit('turn', { state: 'ended', turn: 1, stopReason: 'error', error: { code: 'agent_failed', message: 'the agent exited (code 3)' } });
    await settle();
    expect(prompts).toHaveLength(1); // not sent after a failure
    expect(store.queueHeld).toBe(true);
    expect(store.lastTurnFailed).toBe(true);
    expect(store.queue.map((q) => q.text)).toEqual(['waiting']);

    expect(await store.sendQueued()).toBe(true);
    expect(prompts.map((p) => p.text)).toEqual(['will fail', 'waiting']);
    expect(store.queue).toEqual([]);
    expect(store.queueHeld).toBe(false);
  });

  it('a successful Retry releases a held queue', async () => {
    const { store, prompts, emit } = await openStore();
    await store.prompt('flaky');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('next');
    emit('turn', { state: 'ended', turn: 1, stopReason: 'error' });
    await settle();
    expect(store.queueHeld).toBe(true);
    expect(await store.retry()).toBe(true);
    emit('turn', { state: 'running', turn: 2 });
    emit('turn', { state: 'ended', turn: 2, stopReason: 'end_turn' });
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['flaky', 'flaky', 'next']);
    expect(store.queueHeld).toBe(false);
  });

  it('a queued prompt Go refuses goes back to the head, held, and says why', async () => {
    const { store, fc, emit } = await openStore();
    await store.prompt('one');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('two');
    store.enqueue('three');
    fc.handlers['sessions.prompt'] = () => {
      throw { code: 'agent_failed', message: 'could not start the agent' };
    };
    emit('turn', { state: 'ended', turn: 1, stopReason: 'end_turn' });
    await vi.waitFor(() => expect(store.queueHeld).toBe(true));
    expect(store.queue.map((q) => q.text)).toEqual(['two', 'three']);
    expect(store.running).toBe(false);
    expect(store.notices.at(-1)?.message).toContain('could not start the agent');
  });

  it('a turn that ends before sessions.prompt answers still lets the next one go', async () => {
    const { store, fc, prompts, emit } = await openStore();
    await store.prompt('one');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('two');
    store.enqueue('three');
    const answer = deferred<{ turn: number }>();
    fc.handlers['sessions.prompt'] = (a) => {
      prompts.push(a as (typeof prompts)[number]);
      return answer.promise;
    };
    emit('turn', { state: 'ended', turn: 1, stopReason: 'end_turn' });
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['one', 'two']);
    // "two" runs and ends at once, before its call returns.
    emit('turn', { state: 'running', turn: 2 });
    emit('turn', { state: 'ended', turn: 2, stopReason: 'end_turn' });
    await settle();
    expect(prompts.map((p) => p.text)).toEqual(['one', 'two']);
    answer.resolve({ turn: 2 });
    await vi.waitFor(() => expect(prompts.map((p) => p.text)).toEqual(['one', 'two', 'three']));
  });

  it('× removes one; editing takes it out; the queue is bounded', async () => {
    const { store, emit } = await openStore();
    await store.prompt('busy');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('a');
    store.enqueue('b');
    const b = store.queue[1];
    expect(store.unqueue(store.queue[0].id)?.text).toBe('a');
    expect(store.queue).toEqual([b]);
    expect(store.unqueue('nope')).toBeUndefined();
    for (let i = store.queue.length; i < MAX_QUEUED; i++) expect(store.enqueue(`m${i}`)).toBe(true);
    expect(store.enqueue('one too many')).toBe(false);
    expect(store.queue).toHaveLength(MAX_QUEUED);
    expect(store.enqueue('   ')).toBe(false);
  });

  it('survives switching sessions and a reload; an idle session sends it when opened', async () => {
    const { store, prompts, emit } = await openStore();
    await store.prompt('busy');
    emit('turn', { state: 'running', turn: 1 });
    store.enqueue('kept', { mentions: ['x.md'] });
    // Kept in localStorage with the drafts (lib/prefs).
    expect(readQueue(S)).toMatchObject({ items: [{ text: 'kept', extra: { mentions: ['x.md'] } }] });

    // Another session, then back: still queued (the turn still runs there).
    await store.open('other');
    expect(store.queue).toEqual([]);
    expect(readQueue(S)).toMatchObject({ items: [{ text: 'kept' }] });

    // A reload: a new store; the session is idle now, so the prompt goes.
    const again = await openStore(S);
    await settle();
    expect(again.prompts).toEqual([{ id: S, text: 'kept', mentions: ['x.md'] }]);
    expect(again.store.queue).toEqual([]);
    expect(prompts.map((p) => p.text)).toEqual(['busy']);
  });

  it('opened on a running turn it waits; opened on a failed turn it is held', async () => {
    localStorage.setItem('mnote.queue.' + S, JSON.stringify({ items: [{ id: 'q1', text: 'later' }] }));
    const running = await openStore(S, { running: true });
    await settle();
    expect(running.prompts).toEqual([]);
    expect(running.store.queue.map((q) => q.text)).toEqual(['later']);

    const failed = await openStore(S, {
      thread: { entries: [], usage: { used: 0, size: 0 }, turn: 1, stopReason: 'error' },
    });
    await settle();
    expect(failed.prompts).toEqual([]);
    expect(failed.store.lastTurnFailed).toBe(true);
    expect(failed.store.queueHeld).toBe(true);
  });

  it('a broken kept record is ignored, odd items dropped', async () => {
    localStorage.setItem('mnote.queue.' + S, '{not json');
    expect((await openStore()).store.queue).toEqual([]);
    localStorage.setItem(
      'mnote.queue.' + S,
      JSON.stringify({ items: [{ id: 'a', text: 'ok' }, { id: 'b' }, { id: 'c', text: 'bad', extra: { mentions: [1] } }, null], held: true }),
    );
    const { store } = await openStore(S, { running: true });
    expect(store.queue.map((q) => q.text)).toEqual(['ok']);
    expect(store.queueHeld).toBe(true);
  });
});

describe('retry of a failed turn', () => {
  it('sends the same text with the same context and mentions, also after a reload', async () => {
    const { store, prompts, emit } = await openStore();
    const extra: PromptExtras = { context: { path: 'ctx.md', selection: { text: 'two', fromLine: 2, toLine: 2 } }, mentions: ['notes/g.md'] };
    await store.prompt('look at @notes/g.md', extra);
    emit('turn', { state: 'running', turn: 1 });
    emit('turn', { state: 'ended', turn: 1, stopReason: 'error', error: 'the agent crashed' });
    expect(store.lastTurnFailed).toBe(true);
    expect(await store.retry()).toBe(true);
    expect(prompts[1]).toEqual({ id: S, ...extra, text: 'look at @notes/g.md' });

    // After a reload the failed turn is offered again, with what it had.
    const again = await openStore(S, { thread: { entries: [], usage: { used: 0, size: 0 }, turn: 1, stopReason: 'error' } });
    expect(again.store.lastTurnFailed).toBe(true);
    expect(await again.store.retry()).toBe(true);
    expect(again.prompts[0]).toEqual({ id: S, ...extra, text: 'look at @notes/g.md' });
  });

  it('without a kept prompt it sends the thread’s last prompt', async () => {
    const { store, prompts } = await openStore(S, {
      thread: {
        entries: [
          { id: 'u1', kind: 'user_message', turn: 1, text: 'old' },
          { id: 'u2', kind: 'user_message', turn: 2, text: 'newest' },
        ],
        usage: { used: 0, size: 0 },
        turn: 2,
        stopReason: 'error',
      },
    });
    expect(await store.retry()).toBe(true);
    expect(prompts).toEqual([{ id: S, text: 'newest' }]);
  });
});

describe('lib/prefs queue records', () => {
  it('keeps the latest sessions only and forgets an empty one', () => {
    for (let i = 0; i < MAX_DRAFTS + 3; i++) writeQueue(`s${i}`, { items: [{ id: 'q', text: `t${i}` }] });
    expect(readQueue('s0')).toBeNull();
    expect(readQueue('s2')).toBeNull();
    expect(readQueue('s3')).toEqual({ items: [{ id: 'q', text: 't3' }] });
    writeQueue('s3', null);
    expect(readQueue('s3')).toBeNull();
    expect(localStorage.getItem('mnote.queue.s3')).toBeNull();
    expect(JSON.parse(localStorage.getItem('mnote.queues') ?? '[]')).not.toContain('s3');
  });
});
