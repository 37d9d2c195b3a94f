// The two ways to reach Go (app/API.md): the Wails window's one bound method
// plus runtime events, or `mnote serve`'s POST /api/call plus a WebSocket.
// Nothing outside src/api touches window.go, window.runtime, fetch('/api')
// or the WebSocket.

import { m } from '../lib/i18n.svelte';
import { ApiError } from './errors';

export type Listener = (data: unknown) => void;
export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface Transport {
  readonly kind: 'wails' | 'http';
  /** Calls one API method; resolves with its result, rejects with ApiError. */
  call(method: string, args: unknown): Promise<unknown>;
  /** Resolves once calls can go out (mnote serve: the one-time code
   * exchanged for the token); calls made before it are sent first. */
  ready?(): Promise<void>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on(name: string, cb: Listener): () => void;
  /** The event stream came back after a drop: events may have been lost. */
  onReconnect(cb: () => void): () => void;
  /** The event stream's state (always "open" in the window). */
  onConnection(cb: (s: ConnectionState) => void): () => void;
  openExternal(url: string): void;
  copyText(text: string): Promise<void>;
  close(): void;
}

// ---- Wails -----------------------------------------------------------------

export interface WailsBridge {
  Call(method: string, args: string): Promise<string>;
}

export interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  EventsOff?(name: string, ...more: string[]): void;
  BrowserOpenURL?(url: string): void;
  ClipboardSetText?(text: string): Promise<boolean>;
}

declare global {
  interface Window {
    go?: { desktop?: { Bridge?: WailsBridge } };
    runtime?: WailsRuntime;
  }
}

function parseMaybeJSON(x: unknown): unknown {
  if (typeof x !== 'string') return x;
  if (x === '') return undefined;
  try {
    return JSON.parse(x);
  } catch {
    return x;
  }
}

export class WailsTransport implements Transport {
  readonly kind = 'wails' as const;

  constructor(
    private readonly bridge: WailsBridge,
    private readonly runtime: WailsRuntime | undefined,
  ) {}

  async call(method: string, args: unknown): Promise<unknown> {
    let out: unknown;
    try {
      out = await this.bridge.Call(method, JSON.stringify(args ?? {}));
    } catch (e) {
      // Go's error is the JSON {code, message, details} as a string.
      throw ApiError.from(e);
    }
    if (typeof out !== 'string') return out ?? undefined;
    if (out === '') return undefined;
    try {
      return JSON.parse(out);
    } catch {
      throw new ApiError('internal', m.app_not_json_app({ method }), out.slice(0, 500));
    }
  }

  on(name: string, cb: Listener): () => void {
    if (!this.runtime?.EventsOn) return () => {};
    const off = this.runtime.EventsOn(name, (data: unknown) => cb(parseMaybeJSON(data)));
    return typeof off === 'function' ? off : () => this.runtime?.EventsOff?.(name);
  }

  onReconnect(): () => void {
    return () => {}; // in-process: nothing is ever lost
  }

  onConnection(cb: (s: ConnectionState) => void): () => void {
    cb('open');
    return () => {};
  }

  openExternal(url: string): void {
    if (this.runtime?.BrowserOpenURL) this.runtime.BrowserOpenURL(url);
    else window.open(url, '_blank', 'noopener,noreferrer');
  }

  async copyText(text: string): Promise<void> {
    if (this.runtime?.ClipboardSetText) {
      const ok = await this.runtime.ClipboardSetText(text);
      if (ok !== false) return;
    }
    await browserCopy(text);
  }

  close(): void {}
}

// ---- HTTP (mnote serve) ----------------------------------------------------

export const TOKEN_KEY = 'mnote.token';
/** The event stream's subprotocol (app/cli/serve.go wsProtocol). */
export const WS_PROTOCOL = 'mnote.v1';
/** The subprotocol that carries the token: WS_TOKEN_PREFIX + token. */
export const WS_TOKEN_PREFIX = 'mnote.token.';

export interface LocationLike {
  href: string;
  protocol: string;
  host: string;
  origin: string;
}

/** Trades a one-time code for the token. */
export type CodeExchange = (code: string) => Promise<string>;

/**
 * The token for `mnote serve`. The URL it prints or opens carries a
 * one-time code, never the token (a launcher's command line is readable in
 * `ps`, and the token must not sit in a URL): the code is taken off the
 * visible URL, exchanged once (POST /api/exchange) for the token, which is
 * kept in sessionStorage — per origin, i.e. per port, unlike a cookie —
 * for reloads. Without a code, or when it was used already or has expired,
 * the stored token (if any) is used.
 */
export async function resolveToken(
  loc: LocationLike = window.location,
  storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = safeSessionStorage(),
  hist: Pick<History, 'replaceState' | 'state'> | undefined = window.history,
  exchange: CodeExchange = (code) => exchangeCode(loc.origin, code),
): Promise<string> {
  const url = new URL(loc.href);
  const code = url.searchParams.get('code');
  if (code) {
    // Off the URL first: a reload must not present a used code again.
    url.searchParams.delete('code');
    try {
      hist?.replaceState(hist.state, '', url.pathname + url.search + url.hash);
    } catch {
      /* not fatal */
    }
    let token = '';
    try {
      token = await exchange(code);
    } catch (e) {
      console.warn('mnote: the one-time code was refused', e);
    }
    if (token) {
      try {
        storage?.setItem(TOKEN_KEY, token);
      } catch {
        /* storage may be disabled; the token then lives for this page only */
      }
      return token;
    }
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/** POST {code} to `origin`/api/exchange; resolves with the token. */
export async function exchangeCode(origin: string, code: string, fetchFn: typeof fetch = (i, o) => fetch(i, o)): Promise<string> {
  let res: Response;
  try {
    res = await fetchFn(origin + '/api/exchange', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError('network', m.app_unreachable(), errorText(e));
  }
  let body: { token?: unknown; error?: unknown } | undefined;
  try {
    body = (await res.json()) as typeof body;
  } catch {
    /* handled below */
  }
  if (res.ok && typeof body?.token === 'string' && body.token) return body.token;
  if (body?.error) throw ApiError.from(body.error);
  throw new ApiError('unauthorized', m.app_code_refused({ status: String(res.status) }));
}

function safeSessionStorage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

export interface HttpOptions {
  /** The token, or its promise (resolveToken); calls and the event stream wait for it. */
  token: string | Promise<string>;
  /** Origin of `mnote serve`, e.g. "http://127.0.0.1:7777". */
  origin: string;
  fetch?: typeof fetch;
  WebSocket?: typeof WebSocket;
  /** Backoff bounds for reconnecting the event stream, in ms. */
  minBackoff?: number;
  maxBackoff?: number;
}

export class HttpTransport implements Transport {
  readonly kind = 'http' as const;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly connListeners = new Set<(s: ConnectionState) => void>();
  private ws: WebSocket | null = null;
  private wantOpen = false;
  private everOpened = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private state: ConnectionState = 'closed';
  private readonly fetchFn: typeof fetch;
  private readonly WS: typeof WebSocket | undefined;
  /** The token once known (null while its promise is pending). */
  private tokenValue: string | null;
  private readonly tokenReady: Promise<string>;
  private waitingForToken = false;

  constructor(private readonly opts: HttpOptions) {
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.WS = opts.WebSocket ?? (typeof WebSocket === 'undefined' ? undefined : WebSocket);
    if (typeof opts.token === 'string') {
      this.tokenValue = opts.token;
      this.tokenReady = Promise.resolve(opts.token);
    } else {
      this.tokenValue = null;
      this.tokenReady = opts.token.then(
        (t) => (this.tokenValue = t),
        () => (this.tokenValue = ''),
      );
    }
  }

  ready(): Promise<void> {
    return this.tokenReady.then(() => undefined);
  }

  /** The token ('' until it is known). */
  get token(): string {
    return this.tokenValue ?? '';
  }

  async call(method: string, args: unknown): Promise<unknown> {
    const token = this.tokenValue ?? (await this.tokenReady);
    let res: Response;
    try {
      res = await this.fetchFn(this.opts.origin + '/api/call', {
        method: 'POST',
        headers: {
          Authorization: 'Bearer ' + token,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ method, args: args ?? {} }),
      });
    } catch (e) {
      throw new ApiError('network', m.app_unreachable(), errorText(e));
    }
    let text = '';
    try {
      text = await res.text();
    } catch (e) {
      throw new ApiError('network', m.app_connection_broke(), errorText(e));
    }
    let body: unknown;
    let parsed = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
        parsed = true;
      } catch {
        /* handled below */
      }
    }
    const errObj = parsed && body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
    if (res.status === 401) {
      throw new ApiError(
        'unauthorized',
        m.app_token_refused(),
        (errObj ? ApiError.from(errObj).message : text.slice(0, 500)) || undefined,
      );
    }
    if (errObj) throw ApiError.from(errObj);
    if (!res.ok) {
      throw new ApiError('internal', m.app_http_status({ status: `${res.status} ${res.statusText}`.trim() }), text.slice(0, 2000) || undefined);
    }
    if (!parsed) {
      if (text === '') return undefined;
      throw new ApiError('internal', m.app_not_json({ method }), text.slice(0, 500));
    }
    return body && typeof body === 'object' && 'result' in body ? (body as { result: unknown }).result : undefined;
  }

  on(name: string, cb: Listener): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(cb);
    this.ensureOpen();
    return () => {
      set.delete(cb);
    };
  }

  onReconnect(cb: () => void): () => void {
    this.reconnectListeners.add(cb);
    return () => this.reconnectListeners.delete(cb);
  }

  onConnection(cb: (s: ConnectionState) => void): () => void {
    this.connListeners.add(cb);
    cb(this.state);
    return () => this.connListeners.delete(cb);
  }

  openExternal(url: string): void {
    window.open(url, '_blank', 'noopener,noreferrer');
  }

  copyText(text: string): Promise<void> {
    return browserCopy(text);
  }

  close(): void {
    this.wantOpen = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    this.setState('closed');
  }

  /** The WebSocket URL: never with the token (a URL shows in console
   * errors; the server refuses ?token=). */
  eventsURL(): string {
    const u = new URL(this.opts.origin);
    const proto = u.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${u.host}/api/events`;
  }

  /** The WebSocket's subprotocols: browsers cannot set headers on a
   * WebSocket, so the token travels as one (Sec-WebSocket-Protocol); the
   * server answers with WS_PROTOCOL alone. */
  eventsProtocols(): string[] {
    return [WS_PROTOCOL, WS_TOKEN_PREFIX + this.token];
  }

  private ensureOpen(): void {
    if (this.wantOpen) return;
    this.wantOpen = true;
    this.connect();
  }

  private setState(s: ConnectionState): void {
    if (this.state === s) return;
    this.state = s;
    for (const cb of this.connListeners) cb(s);
  }

  private connect(): void {
    if (!this.wantOpen || !this.WS) return;
    this.timer = null;
    if (this.tokenValue === null) {
      if (!this.waitingForToken) {
        this.waitingForToken = true;
        void this.tokenReady.then(() => {
          this.waitingForToken = false;
          this.connect();
        });
      }
      this.setState('connecting');
      return;
    }
    this.setState('connecting');
    let ws: WebSocket;
    try {
      ws = new this.WS(this.eventsURL(), this.eventsProtocols());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.setState('open');
      const again = this.everOpened;
      this.everOpened = true;
      if (again) for (const cb of [...this.reconnectListeners]) safeCall(cb);
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (this.ws !== ws || typeof ev.data !== 'string') return;
      let frame: { name?: unknown; data?: unknown };
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (!frame || typeof frame.name !== 'string') return;
      const set = this.listeners.get(frame.name);
      if (!set) return;
      for (const cb of [...set]) safeCall(() => cb(frame.data));
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  private scheduleReconnect(): void {
    if (!this.wantOpen) return;
    this.setState('closed');
    const min = this.opts.minBackoff ?? 250;
    const max = this.opts.maxBackoff ?? 10_000;
    const base = Math.min(max, min * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    const delay = base / 2 + Math.random() * (base / 2); // jitter
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }
}

function safeCall(cb: () => void): void {
  try {
    cb();
  } catch (e) {
    console.error('mnote: event listener failed', e);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function browserCopy(text: string): Promise<void> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return;
    }
  } catch {
    /* fall back below (e.g. not a secure context) */
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  try {
    document.execCommand('copy');
  } finally {
    ta.remove();
  }
}

/**
 * The window's Wails bridge when it exists (window.go.desktop.Bridge), else
 * `mnote serve` over HTTP on this page's origin.
 */
export function pickTransport(w: Window = window): Transport {
  const bridge = w.go?.desktop?.Bridge;
  if (bridge && typeof bridge.Call === 'function') return new WailsTransport(bridge, w.runtime);
  const origin = w.location.origin;
  const token = resolveToken(w.location, safeSessionStorage(), w.history, (code) => exchangeCode(origin, code));
  return new HttpTransport({ token, origin });
}
