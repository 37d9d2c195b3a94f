import { vi } from 'vitest';
import { createClient, type Client } from '../src/api/client';
import { ApiError } from '../src/api/errors';
import type { Transport } from '../src/api/transport';
import type { Entry, SessionSummary, Snapshot } from '../src/api/types';

export type Handler = (args: Record<string, unknown>) => unknown;

/** A client over a fake transport: `handlers[method](args)` answers calls
 * (a thrown error or rejected promise fails the call); `emit` sends events. */
export function fakeClient(handlers: Record<string, Handler> = {}) {
  const listeners = new Map<string, Set<(d: unknown) => void>>();
  const call = vi.fn(async (method: string, args: unknown) => {
    const h = handlers[method];
    if (!h) throw { code: 'bad_request', message: `no handler for ${method}` };
    return h((args ?? {}) as Record<string, unknown>);
  });
  const transport: Transport = {
    kind: 'wails',
    // Handlers throw plain {code, message} objects, as Go's errors arrive.
    call: async (m, a) => {
      try {
        return await call(m, a);
      } catch (e) {
        throw ApiError.from(e);
      }
    },
    on(name, cb) {
      let s = listeners.get(name);
      if (!s) listeners.set(name, (s = new Set()));
      s.add(cb);
      return () => s.delete(cb);
    },
    onReconnect: () => () => {},
    onConnection: () => () => {},
    openExternal: vi.fn(),
    copyText: vi.fn(async () => {}),
    close: () => {},
  };
  const client: Client = createClient(transport);
  return {
    client,
    call,
    handlers,
    emit(name: string, data: unknown) {
      for (const cb of listeners.get(name) ?? []) cb(data);
    },
  };
}

export function summary(id: string, extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    title: 'Session ' + id,
    workspace: '/notes',
    agent: 'test-agent',
    createdMs: 1,
    updatedMs: 2,
    status: 'ready',
    turns: 0,
    lastStopReason: '',
    live: true,
    ...extra,
  };
}

export function snapshot(id: string, seq: number, entries: Entry[] = [], extra: Partial<Snapshot> = {}): Snapshot {
  return {
    session: summary(id),
    seq,
    thread: { entries, usage: { used: 0, size: 0 }, turn: 0 },
    pending: [],
    running: false,
    ...extra,
  };
}

/** A scheduler whose frames run only when the test says so. */
export function manualFrames() {
  const queue: (() => void)[] = [];
  return {
    schedule: (cb: () => void) => void queue.push(cb),
    get pending() {
      return queue.length;
    },
    run() {
      const q = queue.splice(0);
      for (const cb of q) cb();
    },
  };
}

export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
