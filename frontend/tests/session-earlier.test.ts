// A long session opens with its last entries; the earlier ones come in
// slices (stores/earlier.ts, SessionStore.loadEarlier) — issue 24.
import { describe, expect, it } from 'vitest';
import type { Entry, ThreadEvent } from '../src/api/types';
import { EARLIER_SLICE, OPEN_TAIL, prependEntries } from '../src/stores/earlier';
import { SessionStore } from '../src/stores/session.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

const S = 'sess-long';

function entry(n: number, text = `answer ${n}`): Entry {
  return { id: `e${n}`, kind: n % 3 === 0 ? 'tool_call' : 'assistant_message', turn: 1, text } as Entry;
}

/** A Go side holding `total` entries that answers sessions.open as
 * app/sessionpage.go does (limit, before, earlier). */
function server(total: number, opts: { fail?: (call: number) => boolean; seq?: number } = {}) {
  const all = Array.from({ length: total }, (_, i) => entry(i + 1));
  const calls: Record<string, unknown>[] = [];
  const fc = fakeClient({
    'sessions.open': (a) => {
      calls.push(a);
      if (opts.fail?.(calls.length)) throw { code: 'internal', message: 'disk on fire' };
      let to = all.length;
      if (typeof a.before === 'string') {
        to = all.findIndex((e) => e.id === a.before);
        if (to < 0) throw { code: 'bad_request', message: 'no such entry' };
      }
      const limit = typeof a.limit === 'number' ? a.limit : 0;
      const from = limit > 0 ? Math.max(0, to - limit) : 0;
      // Fresh objects, as a parsed reply gives.
      const entries = all.slice(from, to).map((e) => ({ ...e }));
      return { ...snapshot(S, opts.seq ?? 7, entries), earlier: from };
    },
  });
  return { fc, all, calls };
}

function ev(seq: number, type: ThreadEvent['type'], payload: unknown): ThreadEvent {
  return { sessionId: S, seq, type, payload } as ThreadEvent;
}

describe('prependEntries', () => {
  it('puts a slice in front and adds its entries to the model', () => {
    const model = new Map<string, Entry>([['e3', entry(3)], ['e4', entry(4)]]);
    const added: string[] = [];
    const order = prependEntries(model, ['e3', 'e4'], [entry(1), entry(2)], (e) => added.push(e.id));
    expect(order).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(added).toEqual(['e1', 'e2']);
    expect([...model.keys()].sort()).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('moves an entry the model already has to its place, keeping the newer copy', () => {
    // An event about e2 came while its slice was on the way: it was added at the end.
    const newer = entry(2, 'changed by an event');
    const model = new Map<string, Entry>([['e3', entry(3)], ['e2', newer]]);
    const order = prependEntries(model, ['e3', 'e2'], [entry(1), entry(2, 'old')]);
    expect(order).toEqual(['e1', 'e2', 'e3']);
    expect(model.get('e2')).toBe(newer);
  });

  it('skips what is not an entry, and an id twice in a slice', () => {
    const model = new Map<string, Entry>();
    const bad = [null, undefined, { kind: 'thought' } as Entry, { id: 5 } as unknown as Entry, entry(1), entry(1, 'again')];
    expect(prependEntries(model, ['e9'], bad)).toEqual(['e1', 'e9']);
    expect(model.get('e1')?.text).toBe('answer 1');
  });

  it('gives a copy of the order for an empty slice', () => {
    const order = ['e1'];
    const out = prependEntries(new Map(), order, []);
    expect(out).toEqual(order);
    expect(out).not.toBe(order);
  });
});

describe('a long session opens a slice at a time', () => {
  it('shows the last entries first, then all of them in order', async () => {
    const total = OPEN_TAIL + 2 * EARLIER_SLICE + 123;
    const { fc, all, calls } = server(total);
    const store = new SessionStore(fc.client, manualFrames().schedule);
    await store.open(S);
    expect(calls[0]).toEqual({ id: S, limit: OPEN_TAIL });
    // Shown at once: the last entries (the earlier ones are on their way).
    expect(store.order.slice(-3)).toEqual(all.slice(-3).map((e) => e.id));
    await store.whenComplete();
    expect(store.earlier).toBe(0);
    expect(store.order).toEqual(all.map((e) => e.id));
    expect(store.entries().map((e) => e.text)).toEqual(all.map((e) => e.text));
    expect(store.idAt(0)).toBe('e1');
    // Each slice asks for the entries before the first one it has.
    expect(calls.slice(1)).toEqual([
      { id: S, limit: EARLIER_SLICE, before: `e${total - OPEN_TAIL + 1}` },
      { id: S, limit: EARLIER_SLICE, before: `e${total - OPEN_TAIL - EARLIER_SLICE + 1}` },
      { id: S, limit: EARLIER_SLICE, before: 'e124' },
    ]);
    expect(store.cell('e1')?.v.text).toBe('answer 1');
  });

  it('a short session is one call, as before', async () => {
    const { fc, calls } = server(40);
    const store = new SessionStore(fc.client, manualFrames().schedule);
    await store.open(S);
    expect(store.earlier).toBe(0);
    expect(store.order).toHaveLength(40);
    await store.whenComplete();
    expect(calls).toHaveLength(1);
  });

  it('events during the load apply, and a changed earlier entry keeps its place', async () => {
    const total = OPEN_TAIL + 500;
    const { fc, all } = server(total, { seq: 7 });
    const frames = manualFrames();
    const store = new SessionStore(fc.client, frames.schedule);
    await store.open(S);
    expect(store.earlier).toBe(500);
    // An entry from before the tail changes, and a new one comes.
    store.handleEvent(ev(8, 'entry', { ...entry(10), text: 'edited' }));
    store.handleEvent(ev(9, 'entry', entry(total + 1, 'new')));
    frames.run();
    await store.whenComplete();
    frames.run();
    const ids = [...all.map((e) => e.id), `e${total + 1}`];
    expect(store.order).toEqual(ids);
    expect(store.entry('e10')?.text).toBe('edited');
    expect(store.entryAt(total)?.text).toBe('new');
  });

  it('a failed slice is said and tried again', async () => {
    const total = OPEN_TAIL + 300;
    const { fc, all } = server(total, { fail: (n) => n === 2 });
    const store = new SessionStore(fc.client, manualFrames().schedule);
    await store.open(S);
    // The slice's call is on its way: wait for it to fail.
    await expect.poll(() => store.earlierFailed).toBe(true);
    expect(store.earlier).toBe(300);
    // Home (whenComplete) asks again.
    await store.whenComplete();
    expect(store.earlierFailed).toBe(false);
    expect(store.order).toEqual(all.map((e) => e.id));
  });

  it('opening another session stops the load', async () => {
    const { fc } = server(OPEN_TAIL + 3000);
    const store = new SessionStore(fc.client, manualFrames().schedule);
    await store.open(S);
    const waiting = store.whenComplete();
    store.clear();
    await waiting; // resolved by the change, not by the load
    expect(store.order).toEqual([]);
    await new Promise((r) => setTimeout(r, 20));
    expect(store.order).toEqual([]);
  });
});
