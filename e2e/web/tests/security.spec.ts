// serve's access rules (app/API.md): the token on every /api request (never
// in a cookie), the WebSocket only from the server's own origin, one-time
// codes in the URLs.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, openApp, test, type Serve } from './fixtures';

const listBody = JSON.stringify({ method: 'sessions.list', args: {} });

test('requests without the token are refused (401)', async ({ serve }) => {
  const call = (headers: Record<string, string>, query = '') =>
    fetch(`${serve.origin}/api/call${query}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: listBody });

  // The control: with the token it works (else the 401s below prove nothing).
  const ok = await call({ Authorization: `Bearer ${serve.token}` });
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ result: [] });

  // No token, a wrong one, the token in the query or a cookie.
  for (const [what, res] of [
    ['no token', await call({})],
    ['wrong bearer token', await call({ Authorization: `Bearer ${serve.token.slice(0, -2)}xx` })],
    ['wrong ?token=', await call({}, '?token=nope')],
    ['the token as ?token= (never in a URL)', await call({}, `?token=${encodeURIComponent(serve.token)}`)],
    ['empty bearer', await call({ Authorization: 'Bearer ' })],
    ['the token in a cookie', await call({ Cookie: `mnote_token=${serve.token}` })],
  ] as const) {
    expect(res.status, what).toBe(401);
    const body = (await res.json()) as { error?: { code?: string } };
    expect(body.error?.code, what).toBe('unauthorized');
  }

  // /api/events without the token (a plain GET and a WebSocket handshake).
  const ev = await fetch(`${serve.origin}/api/events`);
  expect(ev.status).toBe(401);
  expect((await upgrade(serve, '/api/events', {})).status).toBe(401);
  expect((await upgrade(serve, '/api/events?token=wrong', {})).status).toBe(401);
  // The right token in the URL is refused too: URLs end up in consoles.
  expect((await upgrade(serve, `/api/events?token=${encodeURIComponent(serve.token)}`, { Origin: serve.origin })).status).toBe(401);
  expect((await upgrade(serve, '/api/events', { Origin: serve.origin, ...tokenProtocols('wrong') })).status).toBe(401);

  // The page is public build output: no credential needed, no cookie set,
  // and no other page may frame it.
  const page = await fetch(`${serve.origin}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('set-cookie')).toBeNull();
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
});

test('a one-time code works once, and only from our own origin', async ({ serve }) => {
  const exchange = (code: string, origin: string) =>
    fetch(`${serve.origin}/api/exchange`, {
      method: 'POST',
      headers: { Origin: origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
  const code = new URL(await serve.url()).searchParams.get('code')!;
  expect((await exchange(code, 'http://127.0.0.1:1')).status).toBe(403);
  const ok = await exchange(code, serve.origin);
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ token: serve.token });
  expect((await exchange(code, serve.origin)).status).toBe(401);
});

test('a WebSocket from a foreign Origin is refused, even with the token', async ({ serve }) => {
  const path = '/api/events';
  const proto = tokenProtocols(serve.token);
  // The control: our own origin upgrades; the answer names mnote.v1 only, never the token.
  const own = await upgrade(serve, path, { Origin: serve.origin, ...proto });
  expect(own.status).toBe(101);
  expect(own.protocol).toBe('mnote.v1');
  for (const origin of ['http://evil.example', 'http://127.0.0.1:1', 'https://' + new URL(serve.origin).host, 'null']) {
    const r = await upgrade(serve, path, { Origin: origin, ...proto });
    expect(r.status, origin).toBe(403);
  }
  // /api/call from a foreign origin too.
  const r = await fetch(`${serve.origin}/api/call`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${serve.token}`, Origin: 'http://evil.example', 'Content-Type': 'application/json' },
    body: listBody,
  });
  expect(r.status).toBe(403);
});

test("in the browser: the page's own fetch without the token is refused; a foreign page cannot connect", async ({ page, serve }) => {
  await openApp(page, serve);
  // The code is off the URL, the token in sessionStorage, no cookie anywhere.
  expect(new URL(page.url()).searchParams.has('code')).toBe(false);
  expect(await page.evaluate(() => sessionStorage.getItem('mnote.token'))).toBe(serve.token);
  expect(await page.context().cookies()).toEqual([]);
  // The page's own fetch without Authorization is refused.
  const status = await page.evaluate(async () => {
    const r = await fetch('/api/call', { method: 'POST', body: JSON.stringify({ method: 'sessions.list', args: {} }) });
    return r.status;
  });
  expect(status).toBe(401);

  // A page on another origin (a second local server) that knows the token
  // still cannot open the event stream.
  const foreign = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>foreign</title>');
  });
  await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
  try {
    const port = (foreign.address() as AddressInfo).port;
    const other = await page.context().newPage();
    await other.goto(`http://127.0.0.1:${port}/`);
    const ws = { url: `${serve.origin.replace('http', 'ws')}/api/events`, protocols: ['mnote.v1', `mnote.token.${serve.token}`] };
    const outcome = await other.evaluate(
      (w) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(w.url, w.protocols);
          ws.onopen = () => resolve('open');
          ws.onclose = () => resolve('closed');
          setTimeout(() => resolve('timeout'), 5000);
        }),
      ws,
    );
    expect(outcome).toBe('closed');
    // The same URL from the app's own page opens (the control).
    const mine = await page.evaluate(
      (w) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(w.url, w.protocols);
          ws.onopen = () => {
            resolve('open:' + ws.protocol);
            ws.close();
          };
          ws.onclose = () => resolve('closed');
          setTimeout(() => resolve('timeout'), 5000);
        }),
      ws,
    );
    expect(mine).toBe('open:mnote.v1');
    await other.close();
  } finally {
    await new Promise((r) => foreign.close(r));
  }
});

/** The handshake header that carries the token, as the page sends it. */
function tokenProtocols(token: string): Record<string, string> {
  return { 'Sec-WebSocket-Protocol': `mnote.v1, mnote.token.${token}` };
}

/** A WebSocket handshake by hand: the HTTP status it got (101 = upgraded)
 * and the subprotocol the server chose. */
function upgrade(serve: Serve, path: string, headers: Record<string, string>): Promise<{ status: number; protocol?: string }> {
  const u = new URL(serve.origin);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      const p = res.headers['sec-websocket-protocol'];
      resolve({ status: res.statusCode ?? 0, protocol: Array.isArray(p) ? p.join(', ') : p });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('no answer to the upgrade request')));
    req.end();
  });
}
