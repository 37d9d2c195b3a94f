// The stores of sync settings, exports, shares and agent login, against a
// fake Go side that behaves like app/sync.go and app/auth.go: what each
// call sends, what the page keeps (never a token or key value), and what
// it asks before deleting.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Agent, Share, SyncStatus } from '../src/api/types';
import { mergeMethods, parseAuthDetails, keyVariables } from '../src/lib/auth';
import { downloadText, safeFilename } from '../src/lib/download';
import { AppState } from '../src/stores/app.svelte';
import { Features } from '../src/stores/features.svelte';
import { isSyncOffError } from '../src/stores/sync.svelte';
import { fakeClient, manualFrames } from './helpers';

const SYNC_OFF = { code: 'bad_request', message: "publish: publish a share: sync is off; turn it on in Settings (or with 'mnote sync on')" };

/** A Go side with sync state: configure/enable/now/removeMyData and shares, as app/sync.go answers. */
function fakeGo(extra: Record<string, (a: Record<string, unknown>) => unknown> = {}) {
  const st = { url: '', token: '', enabled: false, allowTitles: false, pending: 0, lastSync: '' };
  let shares: Share[] = [];
  const status = (): SyncStatus => ({
    enabled: st.enabled,
    configured: !!(st.url && st.token),
    ...(st.url ? { url: st.url } : {}),
    allowTitles: st.allowTitles,
    pending: st.pending,
    parked: 0,
    ...(st.lastSync ? { lastSync: st.lastSync } : {}),
  });
  let agents: Agent[] = [
    { name: 'qwen', title: 'Qwen Code', command: 'qwen', args: ['--acp'], builtin: true, notesTools: true, status: 'ready', keyEnv: ['OPENAI_API_KEY'] },
  ];
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => agents,
    'workspace.get': () => null,
    'sync.status': () => status(),
    'sync.configure': (a) => {
      if (!String(a.url).startsWith('http')) throw { code: 'bad_request', message: `control plane URL "${a.url}": must start with https://` };
      st.url = String(a.url);
      if (typeof a.token === 'string') st.token = a.token;
      st.allowTitles = !!a.allowTitles;
      return status();
    },
    'sync.enable': (a) => {
      if (a.on && !(st.url && st.token)) throw { code: 'bad_request', message: "sync is not set up; give the control plane's URL and your token in Settings (or with 'mnote sync set --url URL --token-stdin')" };
      st.enabled = !!a.on;
      st.pending = a.on ? 3 : st.pending;
      return status();
    },
    'sync.allowTitles': (a) => {
      st.allowTitles = !!a.allow;
      return status();
    },
    'sync.now': () => {
      if (!st.enabled) throw { code: 'bad_request', message: "sync is off; turn it on in Settings (or with 'mnote sync on')" };
      st.pending = 0;
      st.lastSync = '2026-11-30T10:00:00Z';
      return status();
    },
    'sync.removeMyData': () => {
      const r = { sessions: 4, shares: shares.length };
      shares = [];
      st.enabled = false;
      return r;
    },
    'shares.list': () => shares,
    'shares.revoke': (a) => {
      shares = shares.filter((s) => s.id !== a.id);
      return null;
    },
    'shares.publish': (a) => {
      if (!st.enabled) throw SYNC_OFF;
      const s: Share = { id: 'shr_' + a.id, token: 'tok', url: `${st.url}/s/tok`, sessionId: String(a.id), createdAt: '2026-11-30T10:00:00Z' };
      shares = [s, ...shares];
      return s;
    },
    'agents.setKey': (a) => {
      agents = agents.map((x) =>
        x.name !== a.name
          ? x
          : { ...x, keys: a.value ? [...new Set([...(x.keys ?? []), String(a.var)])] : (x.keys ?? []).filter((k) => k !== a.var) },
      );
      return agents;
    },
    ...extra,
  });
  const app = new AppState(f.client, { schedule: manualFrames().schedule });
  const download = vi.fn();
  const feats = new Features(app, { download, pollMs: 50 });
  return { ...f, app, feats, download, st, setShares: (s: Share[]) => (shares = s) };
}

/** Answers the next question of the confirm store with `value`. */
async function answerNext(app: AppState, value: string) {
  await vi.waitFor(() => expect(app.confirm.current).not.toBeNull());
  const q = app.confirm.current!;
  app.confirm.answer(value);
  return q;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SyncStore', () => {
  it('starts off, asks for a URL and a token before saving, and never sends an empty token', async () => {
    const { feats, call } = fakeGo();
    const sync = feats.sync;
    await sync.refresh();
    expect(sync.status).toMatchObject({ enabled: false, configured: false, pending: 0 });

    expect(await sync.configure({ url: '  ', allowTitles: false })).toBe(false);
    expect(sync.actionError?.message).toMatch(/URL/);
    expect(await sync.configure({ url: 'https://cp.example', allowTitles: false })).toBe(false);
    expect(sync.actionError?.message).toMatch(/token/);
    expect(call).not.toHaveBeenCalledWith('sync.configure', expect.anything());

    expect(await sync.configure({ url: 'https://cp.example', token: 'secret-1', allowTitles: true })).toBe(true);
    expect(call).toHaveBeenLastCalledWith('sync.configure', { url: 'https://cp.example', token: 'secret-1', allowTitles: true });
    expect(sync.status).toMatchObject({ configured: true, allowTitles: true, enabled: false });
    expect(JSON.stringify(sync.status)).not.toContain('secret-1');

    // Saved again with the token field left empty: the saved one is kept (no token key at all).
    expect(await sync.configure({ url: 'https://cp2.example', token: '', allowTitles: true })).toBe(true);
    expect(call).toHaveBeenLastCalledWith('sync.configure', { url: 'https://cp2.example', allowTitles: true });
  });

  it('shows Go’s refusal of a bad URL and keeps the old settings', async () => {
    const { feats, st } = fakeGo();
    st.url = 'https://old.example';
    st.token = 't';
    await feats.sync.refresh();
    expect(await feats.sync.configure({ url: 'ftp://x', allowTitles: false })).toBe(false);
    expect(feats.sync.actionError?.message).toContain('must start with https://');
    expect(feats.sync.status?.url).toBe('https://old.example');
    expect(feats.sync.busy).toBeNull();
  });

  it('lists shares only while sync is on (listing contacts the control plane)', async () => {
    const { feats, call, setShares } = fakeGo();
    setShares([{ id: 's1', token: 't', url: 'https://cp.example/s/t', sessionId: 'a', createdAt: '2026-11-30T10:00:00Z' }]);
    const sync = feats.sync;
    await sync.refresh();
    await sync.loadShares();
    expect(call).not.toHaveBeenCalledWith('shares.list', expect.anything());
    expect(await sync.setEnabled(true)).toBe(false); // not set up yet
    expect(sync.actionError?.message).toMatch(/not set up/);

    await sync.configure({ url: 'https://cp.example', token: 'tok', allowTitles: false });
    expect(await sync.setEnabled(true)).toBe(true);
    expect(call).not.toHaveBeenCalledWith('shares.list', expect.anything()); // nobody looks at them
    const unwatch = sync.watch(); // the settings dialog is shown
    await vi.waitFor(() => expect(sync.sharesLoaded).toBe(true));
    expect(sync.shares.map((s) => s.id)).toEqual(['s1']);
    expect(sync.status?.pending).toBe(3);

    expect(await sync.setEnabled(false)).toBe(true);
    expect(sync.shares).toEqual([]);
    expect(sync.sharesLoaded).toBe(false);
    const lists = call.mock.calls.filter((c) => c[0] === 'shares.list').length;
    await sync.loadShares();
    expect(call.mock.calls.filter((c) => c[0] === 'shares.list').length).toBe(lists);
    unwatch();
  });

  it('Sync now sends what waits; a failure is shown and the status is read again', async () => {
    const { feats, call } = fakeGo();
    const sync = feats.sync;
    await sync.refresh();
    expect(await sync.syncNow()).toBe(false);
    expect(sync.actionError?.message).toMatch(/sync is off/);
    await vi.waitFor(() => expect(call.mock.calls.filter((c) => c[0] === 'sync.status').length).toBe(2));

    await sync.configure({ url: 'https://cp.example', token: 'tok', allowTitles: false });
    await sync.setEnabled(true);
    expect(await sync.syncNow()).toBe(true);
    expect(sync.status).toMatchObject({ pending: 0, lastSync: '2026-11-30T10:00:00Z' });
    expect(sync.actionError).toBeNull();
  });

  it('Remove my data asks first; Cancel sends nothing, Remove deletes and turns sync off', async () => {
    const { feats, app, call, st } = fakeGo();
    Object.assign(st, { url: 'https://cp.example', token: 'tok', enabled: true });
    await feats.sync.refresh();

    const cancelled = feats.sync.removeMyData();
    const q = await answerNext(app, 'cancel');
    expect(q.title).toMatch(/Remove your data/);
    expect(q.buttons.map((b) => b.label)).toEqual(['Cancel', 'Remove my data']);
    expect(await cancelled).toBeNull();
    expect(call).not.toHaveBeenCalledWith('sync.removeMyData', expect.anything());

    const removed = feats.sync.removeMyData();
    await answerNext(app, 'remove');
    expect(await removed).toEqual({ sessions: 4, shares: 0 });
    expect(feats.sync.status?.enabled).toBe(false);
    expect(app.toasts.items.at(-1)?.message).toMatch(/4 session records and 0 shares/);
  });

  it('Revoke asks first, then removes the share from the list', async () => {
    const { feats, app, call, st, setShares } = fakeGo();
    Object.assign(st, { url: 'https://cp.example', token: 'tok', enabled: true });
    const share: Share = { id: 's1', token: 't', url: 'https://cp.example/s/t', sessionId: 'a', createdAt: '2026-11-30T10:00:00Z' };
    setShares([share]);
    const unwatch = feats.sync.watch();
    await feats.sync.refresh();
    await vi.waitFor(() => expect(feats.sync.shares).toHaveLength(1));

    const no = feats.sync.revoke(share);
    expect((await answerNext(app, 'cancel')).message).toContain(share.url);
    expect(await no).toBe(false);
    expect(call).not.toHaveBeenCalledWith('shares.revoke', expect.anything());

    const yes = feats.sync.revoke(share);
    await answerNext(app, 'revoke');
    expect(await yes).toBe(true);
    expect(call).toHaveBeenCalledWith('shares.revoke', { id: 's1' });
    expect(feats.sync.shares).toEqual([]);
    unwatch();
  });

  it('polls the status while watched and sync is on, and stops when the last watcher goes', async () => {
    vi.useFakeTimers();
    const { feats, call, st } = fakeGo();
    const statusCalls = () => call.mock.calls.filter((c) => c[0] === 'sync.status').length;
    await feats.sync.refresh();
    const stop = feats.sync.watch();
    await vi.advanceTimersByTimeAsync(200);
    expect(statusCalls()).toBe(1); // off: nothing to follow

    Object.assign(st, { url: 'https://cp.example', token: 'tok', enabled: true, pending: 2 });
    await feats.sync.refresh();
    const before = statusCalls();
    await vi.advanceTimersByTimeAsync(200);
    expect(statusCalls()).toBeGreaterThanOrEqual(before + 3);

    stop();
    stop(); // twice is harmless
    const after = statusCalls();
    await vi.advanceTimersByTimeAsync(500);
    expect(statusCalls()).toBe(after);
  });
});

describe('ExportStore', () => {
  const exported = (r: Record<string, unknown>) => ({ 'sessions.export': () => r });

  it('in the window: a saved file is a toast “Saved to <path>”, nothing downloads', async () => {
    const { feats, app, download, call } = fakeGo(exported({ filename: 'mnote-a.md', mime: 'text/markdown', content: '', path: '/home/me/a.md' }));
    feats.exports.open('a', 'md');
    expect(await feats.exports.run()).toBe('saved');
    expect(call).toHaveBeenCalledWith('sessions.export', { id: 'a', format: 'md', redact: true, images: true, locale: 'en' }); // the interface's language; images in by default
    expect(download).not.toHaveBeenCalled();
    expect(app.toasts.items.at(-1)?.message).toBe('Saved to /home/me/a.md');
    expect(feats.exports.sessionId).toBeNull(); // the dialog closed
  });

  it('in mnote serve: the content downloads under Go’s file name and type', async () => {
    const { feats, download, call } = fakeGo(exported({ filename: 'mnote-a.jsonl', mime: 'application/x-ndjson', content: '{"v":1}\n' }));
    feats.exports.open('a', 'jsonl');
    expect(feats.exports.redact).toBe(false); // jsonl: off by default
    feats.exports.includeThoughts = true;
    feats.exports.includeToolIO = true;
    expect(await feats.exports.run()).toBe('downloaded');
    expect(call).toHaveBeenCalledWith('sessions.export', { id: 'a', format: 'jsonl', redact: false, includeThoughts: true, includeToolIO: true, locale: 'en' });
    expect(download).toHaveBeenCalledWith('mnote-a.jsonl', 'application/x-ndjson', '{"v":1}\n');
  });

  it('a cancelled save dialog does nothing: no toast, no download, the dialog stays', async () => {
    const { feats, app, download } = fakeGo(exported({ filename: 'mnote-a.html', mime: 'text/html', content: '' }));
    feats.exports.open('a', 'html');
    expect(await feats.exports.run()).toBe('cancelled');
    expect(download).not.toHaveBeenCalled();
    expect(app.toasts.items).toEqual([]);
    expect(feats.exports.sessionId).toBe('a');
  });

  it('a failure stays in the dialog with Go’s message', async () => {
    const { feats, download } = fakeGo({
      'sessions.export': () => {
        throw { code: 'not_found', message: 'there is no session a' };
      },
    });
    feats.exports.open('a');
    expect(await feats.exports.run()).toBe('failed');
    expect(feats.exports.error?.message).toBe('there is no session a');
    expect(feats.exports.sessionId).toBe('a');
    expect(download).not.toHaveBeenCalled();
  });

  it('each format brings back its redaction default', () => {
    const { feats } = fakeGo();
    feats.exports.open('a', 'md');
    feats.exports.redact = false;
    feats.exports.setFormat('html');
    expect(feats.exports.redact).toBe(true);
    feats.exports.setFormat('jsonl');
    expect(feats.exports.redact).toBe(false);
  });
});

describe('downloadText', () => {
  it('clicks a temporary <a download> on a Blob of the content', async () => {
    const blobs: Blob[] = [];
    const create = vi.fn((b: Blob) => (blobs.push(b), 'blob:fake/1'));
    const revoke = vi.fn();
    Object.assign(URL, { createObjectURL: create, revokeObjectURL: revoke });
    const clicked: HTMLAnchorElement[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    vi.useFakeTimers();
    downloadText('../../etc/mnote-a.md', 'text/markdown', '# hello');
    expect(click).toHaveBeenCalledTimes(1);
    expect(clicked[0].download).toBe('mnote-a.md'); // no folders
    expect(clicked[0].getAttribute('href')).toBe('blob:fake/1');
    expect(clicked[0].isConnected).toBe(false); // removed again
    expect(blobs[0].type).toBe('text/markdown');
    expect(await blobs[0].text()).toBe('# hello');
    vi.advanceTimersByTime(10_000);
    expect(revoke).toHaveBeenCalledWith('blob:fake/1');
  });

  it('safeFilename keeps only a plain name', () => {
    expect(safeFilename('a/b\\c.md')).toBe('c.md');
    expect(safeFilename('..')).toBe('export');
    expect(safeFilename('x\u0007y.md')).toBe('xy.md');
  });
});

describe('ShareStore', () => {
  it('with sync off: the publish fails, says why and offers the settings', async () => {
    const { feats } = fakeGo();
    feats.share.open('a');
    await vi.waitFor(() => expect(feats.sync.status).not.toBeNull());
    expect(feats.share.syncOff).toBe(true);
    expect(await feats.share.publish()).toBeNull();
    expect(feats.share.error?.message).toMatch(/sync is off/);
    expect(feats.share.needsSync).toBe(true);
    expect(feats.share.result).toBeNull();
  });

  it('with sync on: the link, with the expiry and options sent; the settings list gets it', async () => {
    const { feats, st, call } = fakeGo();
    Object.assign(st, { url: 'https://cp.example', token: 'tok', enabled: true });
    const unwatch = feats.sync.watch();
    await feats.sync.refresh();
    await vi.waitFor(() => expect(feats.sync.sharesLoaded).toBe(true));
    unwatch();
    feats.share.open('a');
    feats.share.expiresInDays = 30;
    feats.share.includeToolIO = true;
    const s = await feats.share.publish();
    expect(s?.url).toBe('https://cp.example/s/tok');
    expect(call).toHaveBeenCalledWith('shares.publish', { id: 'a', expiresInDays: 30, includeToolIO: true });
    expect(feats.share.result?.id).toBe('shr_a');
    expect(feats.share.needsSync).toBe(false);
    expect(feats.sync.shares.map((x) => x.id)).toEqual(['shr_a']);
  });

  it('another failure (the control plane is down) does not blame sync', async () => {
    const { feats, st } = fakeGo({
      'shares.publish': () => {
        throw { code: 'bad_request', message: 'publish: dial tcp 127.0.0.1:9: connection refused' };
      },
    });
    Object.assign(st, { url: 'https://cp.example', token: 'tok', enabled: true });
    feats.share.open('a');
    expect(await feats.share.publish()).toBeNull();
    expect(feats.share.error?.message).toMatch(/connection refused/);
    expect(feats.share.needsSync).toBe(false);
  });

  it('isSyncOffError knows both of Go’s sentences', () => {
    expect(isSyncOffError(SYNC_OFF)).toBe(true);
    expect(isSyncOffError({ code: 'bad_request', message: "sync is not set up; run 'mnote sync set …' first" })).toBe(true);
    expect(isSyncOffError({ code: 'bad_request', message: 'the expiry is in the past' })).toBe(false);
  });
});

describe('AgentLoginStore', () => {
  it('keeps a key: sends it once, the agent list shows its name, the page keeps no value', async () => {
    const { feats, app, call } = fakeGo();
    await app.agents.refresh();
    expect(await feats.login.setKey('qwen', 'OPENAI_API_KEY', '  sk-very-secret  ')).toBe(true);
    expect(call).toHaveBeenCalledWith('agents.setKey', { name: 'qwen', var: 'OPENAI_API_KEY', value: 'sk-very-secret' });
    expect(app.agents.byName('qwen')?.keys).toEqual(['OPENAI_API_KEY']);
    expect(JSON.stringify(app.agents.items)).not.toContain('sk-very-secret');
    expect(app.toasts.items.at(-1)?.message).toMatch(/OPENAI_API_KEY kept for Qwen Code/);
  });

  it('refuses a bad variable name or an empty value before asking Go', async () => {
    const { feats, call } = fakeGo();
    expect(await feats.login.setKey('qwen', '1BAD', 'x')).toBe(false);
    expect(feats.login.keyError('qwen', '1BAD')).toMatch(/not a variable name/);
    expect(await feats.login.setKey('qwen', 'GOOD', '   ')).toBe(false);
    expect(feats.login.keyError('qwen', 'GOOD')).toMatch(/Paste the key/);
    expect(call).not.toHaveBeenCalledWith('agents.setKey', expect.anything());
  });

  it('Go’s refusal (mnote’s own secret) is shown beside the field', async () => {
    const { feats } = fakeGo({
      'agents.setKey': () => {
        throw { code: 'bad_request', message: 'set agent key: MNOTE_SYNC_TOKEN is one of mnote’s own secrets and is never given to agents' };
      },
    });
    expect(await feats.login.setKey('qwen', 'MNOTE_SYNC_TOKEN', 'x')).toBe(false);
    expect(feats.login.keyError('qwen', 'MNOTE_SYNC_TOKEN')).toMatch(/own secrets/);
  });

  it('Remove asks first, then sends an empty value', async () => {
    const { feats, app, call } = fakeGo();
    await app.agents.refresh();
    await feats.login.setKey('qwen', 'OPENAI_API_KEY', 'v');
    const no = feats.login.removeKey('qwen', 'OPENAI_API_KEY');
    await answerNext(app, 'cancel');
    expect(await no).toBe(false);
    const yes = feats.login.removeKey('qwen', 'OPENAI_API_KEY');
    await answerNext(app, 'remove');
    expect(await yes).toBe(true);
    expect(call).toHaveBeenLastCalledWith('agents.setKey', { name: 'qwen', var: 'OPENAI_API_KEY', value: '' });
    expect(app.agents.byName('qwen')?.keys).toEqual([]);
  });

  it('Open terminal: the terminal it opened, or the error with the command to run by hand', async () => {
    let display = false;
    const { feats } = fakeGo({
      'agents.openTerminal': (a) => {
        if (!display) throw { code: 'bad_request', message: 'there is no display to open a terminal on: run this yourself', details: 'qwen auth --method ' + a.method };
        return { terminal: '/usr/bin/xterm', command: 'qwen auth' };
      },
    });
    expect(await feats.login.openTerminal('qwen', 'openai')).toEqual({
      state: 'error',
      message: 'there is no display to open a terminal on: run this yourself',
      command: 'qwen auth --method openai',
    });
    display = true;
    await feats.login.openTerminal('qwen', 'openai');
    expect(feats.login.terminal('qwen', 'openai')).toEqual({ state: 'opened', terminal: '/usr/bin/xterm', command: 'qwen auth' });
  });
});

describe('auth methods', () => {
  it('reads a needs_auth error’s details back into methods', () => {
    const details = [
      'oauth: Log in with Google — a browser window opens',
      '  run in a terminal: gemini --login',
      'gemini-api-key: Use a Gemini API key',
      '  or give its key: GEMINI_API_KEY, GOOGLE_API_KEY',
      'odd line without a colon',
      'plain: Plain — with — dashes',
    ].join('\n');
    expect(parseAuthDetails(details)).toEqual([
      { id: 'oauth', name: 'Log in with Google', description: 'a browser window opens', command: 'gemini --login' },
      { id: 'gemini-api-key', name: 'Use a Gemini API key', envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
      { id: 'plain', name: 'Plain', description: 'with — dashes' },
    ]);
    expect(parseAuthDetails(undefined)).toEqual([]);
  });

  it('merges the check’s methods with the error’s, and lists each key variable once', () => {
    const merged = mergeMethods([{ id: 'a', name: 'A' }], [{ id: 'a', name: 'A2', command: 'x login' }, { id: 'b', name: 'B', envVars: ['K2'] }]);
    expect(merged).toEqual([
      { id: 'a', name: 'A', command: 'x login' },
      { id: 'b', name: 'B', envVars: ['K2'] },
    ]);
    const agent: Agent = { name: 'x', title: 'X', command: 'x', args: [], builtin: true, notesTools: true, status: 'ready', keyEnv: ['K1', 'K2'], keys: ['K3', 'K1'] };
    expect(keyVariables(agent, merged)).toEqual(['K1', 'K2', 'K3']);
  });
});
