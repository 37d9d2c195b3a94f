import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/errors';
import { createClient } from '../src/api/client';
import { HttpTransport, TOKEN_KEY, WailsTransport, pickTransport, resolveToken } from '../src/api/transport';

function response(status: number, body: string): Response {
  return new Response(body, { status, statusText: status === 200 ? 'OK' : 'Error' });
}

describe('HTTP transport (mnote serve)', () => {
  it('POSTs {method, args} to /api/call with the bearer token and returns result', async () => {
    const fetch = vi.fn().mockResolvedValue(response(200, JSON.stringify({ result: [{ id: 's1' }] })));
    const t = new HttpTransport({ token: 'tok123', origin: 'http://127.0.0.1:7777', fetch });
    const out = await t.call('sessions.list', { limit: 5 });
    expect(out).toEqual([{ id: 's1' }]);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe('http://127.0.0.1:7777/api/call');
    expect(init.method).toBe('POST');
    expect(init.headers.Authorization).toBe('Bearer tok123');
    expect(init.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(init.body)).toEqual({ method: 'sessions.list', args: { limit: 5 } });
  });

  it('turns {"error": {...}} into ApiError with code, message and details', async () => {
    const body = JSON.stringify({ error: { code: 'agent_failed', message: 'The agent crashed.', details: 'panic: boom\n' } });
    const t = new HttpTransport({ token: 't', origin: 'http://h', fetch: vi.fn().mockResolvedValue(response(502, body)) });
    const err = await t.call('sessions.prompt', { id: 'x', text: 'hi' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'agent_failed', message: 'The agent crashed.', details: 'panic: boom\n' });
  });

  it('handles 401, non-JSON errors and network failures', async () => {
    const t401 = new HttpTransport({ token: 'bad', origin: 'http://h', fetch: vi.fn().mockResolvedValue(response(401, 'unauthorized')) });
    await expect(t401.call('agents.list', {})).rejects.toMatchObject({ code: 'unauthorized' });

    const t500 = new HttpTransport({ token: 't', origin: 'http://h', fetch: vi.fn().mockResolvedValue(response(500, '<html>oops</html>')) });
    await expect(t500.call('agents.list', {})).rejects.toMatchObject({ code: 'internal', details: '<html>oops</html>' });

    const tNet = new HttpTransport({ token: 't', origin: 'http://h', fetch: vi.fn().mockRejectedValue(new TypeError('Failed to fetch')) });
    await expect(tNet.call('agents.list', {})).rejects.toMatchObject({ code: 'network', details: 'Failed to fetch' });

    // 4xx with the error shape keeps Go's code
    const t404 = new HttpTransport({
      token: 't',
      origin: 'http://h',
      fetch: vi.fn().mockResolvedValue(response(404, '{"error":{"code":"not_found","message":"No such session."}}')),
    });
    await expect(t404.call('sessions.open', { id: 'nope' })).rejects.toMatchObject({ code: 'not_found', message: 'No such session.' });
  });

  it('takes the token from ?token=, keeps it in sessionStorage and removes it from the URL', () => {
    const storage = new Map<string, string>();
    const st = { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v) };
    const replaceState = vi.fn();
    const loc = { href: 'http://127.0.0.1:7777/?token=s3cret&x=1#frag', protocol: 'http:', host: '127.0.0.1:7777', origin: 'http://127.0.0.1:7777' };
    expect(resolveToken(loc, st, { replaceState, state: null })).toBe('s3cret');
    expect(storage.get(TOKEN_KEY)).toBe('s3cret');
    expect(replaceState).toHaveBeenCalledWith(null, '', '/?x=1#frag');
    // After a reload the URL has none: sessionStorage does.
    const loc2 = { ...loc, href: 'http://127.0.0.1:7777/?x=1' };
    expect(resolveToken(loc2, st, { replaceState, state: null })).toBe('s3cret');
    expect(replaceState).toHaveBeenCalledTimes(1);
  });

  it('streams events over a WebSocket with the token, reconnects with backoff and signals the reconnect', async () => {
    vi.useFakeTimers();
    const sockets: FakeWS[] = [];
    class FakeWS {
      url: string;
      onopen: (() => void) | null = null;
      onmessage: ((e: { data: unknown }) => void) | null = null;
      onclose: (() => void) | null = null;
      onerror: (() => void) | null = null;
      constructor(url: string) {
        this.url = url;
        sockets.push(this);
      }
      close() {
        this.onclose?.();
      }
    }
    const t = new HttpTransport({
      token: 'a b',
      origin: 'https://host:1',
      fetch: vi.fn(),
      WebSocket: FakeWS as unknown as typeof WebSocket,
      minBackoff: 100,
      maxBackoff: 1000,
    });
    const got: unknown[] = [];
    const reconnects = vi.fn();
    t.onReconnect(reconnects);
    t.on('sessions:changed', (d) => got.push(d));
    expect(sockets).toHaveLength(1);
    expect(sockets[0].url).toBe('wss://host:1/api/events?token=a%20b');
    sockets[0].onopen?.();
    sockets[0].onmessage?.({ data: JSON.stringify({ name: 'sessions:changed', data: { n: 1 } }) });
    sockets[0].onmessage?.({ data: 'not json' });
    sockets[0].onmessage?.({ data: JSON.stringify({ name: 'other', data: {} }) });
    expect(got).toEqual([{ n: 1 }]);
    expect(reconnects).not.toHaveBeenCalled();

    sockets[0].onclose?.(); // dropped
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(150);
    expect(sockets).toHaveLength(2);
    sockets[1].onclose?.(); // failed again: a longer wait
    await vi.advanceTimersByTimeAsync(90);
    expect(sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(300);
    expect(sockets).toHaveLength(3);
    sockets[2].onopen?.();
    expect(reconnects).toHaveBeenCalledTimes(1);
    t.close();
    vi.useRealTimers();
  });
});

describe('Wails transport (the window)', () => {
  afterEach(() => {
    delete window.go;
    delete window.runtime;
  });

  it('calls window.go.app.Bridge.Call(method, argsJSON) and parses the result', async () => {
    const Call = vi.fn().mockResolvedValue('[{"name":"claude","status":"ready"}]');
    const EventsOn = vi.fn().mockReturnValue(() => {});
    window.go = { app: { Bridge: { Call } } };
    window.runtime = { EventsOn };
    const t = pickTransport(window);
    expect(t).toBeInstanceOf(WailsTransport);
    const c = createClient(t);
    expect(await c.agents.list()).toEqual([{ name: 'claude', status: 'ready' }]);
    expect(Call).toHaveBeenCalledWith('agents.list', '{}');
    await c.sessions.prompt('s1', 'hello');
    expect(Call).toHaveBeenLastCalledWith('sessions.prompt', '{"id":"s1","text":"hello"}');
  });

  it('rejects with ApiError parsed from the error JSON string', async () => {
    const Call = vi.fn().mockRejectedValue('{"code":"busy","message":"A turn is running.","details":"turn 3"}');
    const t = new WailsTransport({ Call }, undefined);
    await expect(t.call('sessions.prompt', {})).rejects.toMatchObject({ code: 'busy', message: 'A turn is running.', details: 'turn 3' });
    const t2 = new WailsTransport({ Call: vi.fn().mockRejectedValue('plain failure') }, undefined);
    await expect(t2.call('x', {})).rejects.toMatchObject({ code: 'internal', message: 'plain failure' });
  });

  it('subscribes through window.runtime.EventsOn', () => {
    let handler: ((d: unknown) => void) | undefined;
    const off = vi.fn();
    const EventsOn = vi.fn((_n: string, cb: (d: unknown) => void) => {
      handler = cb;
      return off;
    });
    const t = new WailsTransport({ Call: vi.fn() }, { EventsOn });
    const got: unknown[] = [];
    const unsubscribe = t.on('thread:event', (d) => got.push(d));
    expect(EventsOn).toHaveBeenCalledWith('thread:event', expect.any(Function));
    handler?.({ sessionId: 's', seq: 1 });
    handler?.('{"sessionId":"s","seq":2}'); // a JSON string is parsed too
    expect(got).toEqual([{ sessionId: 's', seq: 1 }, { sessionId: 's', seq: 2 }]);
    unsubscribe();
    expect(off).toHaveBeenCalled();
  });

  it('falls back to HTTP when there is no bridge', () => {
    expect(pickTransport(window)).toBeInstanceOf(HttpTransport);
  });
});
