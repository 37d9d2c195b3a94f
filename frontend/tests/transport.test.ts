import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/errors';
import { createClient } from '../src/api/client';
import { HttpTransport, TOKEN_KEY, WailsTransport, exchangeCode, pickTransport, resolveToken } from '../src/api/transport';

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

  function memoryStorage() {
    const m = new Map<string, string>();
    return { m, st: { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) } };
  }
  const at = (href: string) => ({ href, protocol: 'http:', host: '127.0.0.1:7777', origin: 'http://127.0.0.1:7777' });

  it('exchanges ?code= once for the token, keeps it in sessionStorage and removes the code from the URL', async () => {
    const { m, st } = memoryStorage();
    const replaceState = vi.fn();
    let release: (t: string) => void = () => {};
    const exchange = vi.fn((_code: string) => new Promise<string>((r) => (release = r)));
    const got = resolveToken(at('http://127.0.0.1:7777/?code=once&x=1#frag'), st, { replaceState, state: null }, exchange);
    // The code is off the URL before the exchange answers (a reload must not present it again).
    expect(replaceState).toHaveBeenCalledWith(null, '', '/?x=1#frag');
    expect(exchange).toHaveBeenCalledWith('once');
    release('s3cret');
    expect(await got).toBe('s3cret');
    expect(m.get(TOKEN_KEY)).toBe('s3cret');
    // After a reload the URL has no code: sessionStorage has the token.
    expect(await resolveToken(at('http://127.0.0.1:7777/?x=1'), st, { replaceState, state: null }, exchange)).toBe('s3cret');
    expect(exchange).toHaveBeenCalledTimes(1);
    expect(replaceState).toHaveBeenCalledTimes(1);
  });

  it('never takes a token from the URL; a refused code falls back to the stored token', async () => {
    const { m, st } = memoryStorage();
    const hist = { replaceState: vi.fn(), state: null };
    const refuse = vi.fn().mockRejectedValue(new ApiError('unauthorized', 'used'));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await resolveToken(at('http://127.0.0.1:7777/?token=planted'), st, hist, refuse)).toBe('');
    expect(m.size).toBe(0);
    expect(await resolveToken(at('http://127.0.0.1:7777/?code=used'), st, hist, refuse)).toBe('');
    m.set(TOKEN_KEY, 'kept');
    expect(await resolveToken(at('http://127.0.0.1:7777/?code=used'), st, hist, refuse)).toBe('kept');
    expect(await resolveToken(at('http://127.0.0.1:7777/?code=x'), st, hist, vi.fn().mockResolvedValue(''))).toBe('kept');
    expect(m.get(TOKEN_KEY)).toBe('kept');
  });

  it('exchangeCode POSTs {code} to /api/exchange without credentials and returns the token', async () => {
    const fetch = vi.fn().mockResolvedValue(response(200, JSON.stringify({ token: 'tok' })));
    expect(await exchangeCode('http://127.0.0.1:7777', 'c0de', fetch)).toBe('tok');
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe('http://127.0.0.1:7777/api/exchange');
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('omit');
    expect(JSON.parse(init.body)).toEqual({ code: 'c0de' });
    const used = vi.fn().mockResolvedValue(response(401, JSON.stringify({ error: { code: 'unauthorized', message: 'this link was used already' } })));
    await expect(exchangeCode('http://h', 'c', used)).rejects.toMatchObject({ code: 'unauthorized', message: 'this link was used already' });
    await expect(exchangeCode('http://h', 'c', vi.fn().mockResolvedValue(response(200, '{}')))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(exchangeCode('http://h', 'c', vi.fn().mockRejectedValue(new TypeError('down')))).rejects.toMatchObject({ code: 'network' });
  });

  it('with the token still being exchanged, calls and the event stream wait for it', async () => {
    let release: (t: string) => void = () => {};
    const token = new Promise<string>((r) => (release = r));
    const fetch = vi.fn().mockResolvedValue(response(200, '{"result":1}'));
    const urls: string[] = [];
    const protocols: unknown[] = [];
    class FakeWS {
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      constructor(url: string, p?: string | string[]) {
        urls.push(url);
        protocols.push(p);
      }
      close() {}
    }
    const t = new HttpTransport({ token, origin: 'http://127.0.0.1:7777', fetch, WebSocket: FakeWS as unknown as typeof WebSocket });
    const states: string[] = [];
    t.onConnection((s) => states.push(s));
    const call = t.call('sessions.list', {});
    t.on('sessions:changed', () => {});
    t.on('thread:event', () => {});
    await Promise.resolve();
    expect(fetch).not.toHaveBeenCalled();
    expect(urls).toEqual([]);
    expect(states).toEqual(['closed', 'connecting']);
    release('late');
    expect(await call).toBe(1);
    expect(fetch.mock.calls[0][1].headers.Authorization).toBe('Bearer late');
    expect(urls).toEqual(['ws://127.0.0.1:7777/api/events']);
    expect(protocols).toEqual([['mnote.v1', 'mnote.token.late']]);
    t.close();
  });

  it('streams events over a WebSocket with the token as a subprotocol, never in the URL, reconnects with backoff and signals the reconnect', async () => {
    vi.useFakeTimers();
    const sockets: FakeWS[] = [];
    class FakeWS {
      url: string;
      protocols: string | string[] | undefined;
      onopen: (() => void) | null = null;
      onmessage: ((e: { data: unknown }) => void) | null = null;
      onclose: (() => void) | null = null;
      onerror: (() => void) | null = null;
      constructor(url: string, protocols?: string | string[]) {
        this.url = url;
        this.protocols = protocols;
        sockets.push(this);
      }
      close() {
        this.onclose?.();
      }
    }
    const token = 'Zm9v-YmFy_0123456789abcdefghijklmnopqrstuvw';
    const t = new HttpTransport({
      token,
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
    expect(sockets[0].url).toBe('wss://host:1/api/events');
    expect(sockets[0].protocols).toEqual(['mnote.v1', 'mnote.token.' + token]);
    expect(sockets[0].url).not.toContain(token);
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
    // Each reconnect carries the token the same way.
    expect(sockets[1].url).toBe('wss://host:1/api/events');
    expect(sockets[1].protocols).toEqual(['mnote.v1', 'mnote.token.' + token]);
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

  it('calls window.go.desktop.Bridge.Call(method, argsJSON) and parses the result', async () => {
    const Call = vi.fn().mockResolvedValue('[{"name":"claude","status":"ready"}]');
    const EventsOn = vi.fn().mockReturnValue(() => {});
    window.go = { desktop: { Bridge: { Call } } };
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
