// The settings, export/share and agent-login components as a person uses
// them: the sync form (write-only token), the switch and the shares list,
// the session menu's export and share dialogs, and key fields in the agent
// selector and the needs-auth banner — never a secret in the page.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Agent, Share, SyncStatus } from '../src/api/types';
import NoticeBanner from '../src/components/NoticeBanner.svelte';
import RuntimeSelector from '../src/components/RuntimeSelector.svelte';
import SessionMenu from '../src/components/SessionMenu.svelte';
import SettingsDialog from '../src/components/SettingsDialog.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

// The dialogs are imported when first opened: compiling one takes seconds
// on a loaded machine, past waitFor's 1 s default.
const DIALOG_WAIT = { timeout: 10_000 };

let target: HTMLElement;
let comps: Record<string, unknown>[] = [];
let app: AppState | null = null;

const TOKEN = 'cp-token-7f3a9c';
const KEY = 'sk-key-value-0b1d2e';

function setup(extra: Record<string, (a: Record<string, unknown>) => unknown> = {}) {
  const st = { url: '', token: '', enabled: false, allowTitles: false, pending: 0 };
  let shares: Share[] = [];
  const status = (): SyncStatus => ({
    enabled: st.enabled,
    configured: !!(st.url && st.token),
    ...(st.url ? { url: st.url } : {}),
    allowTitles: st.allowTitles,
    pending: st.pending,
    parked: 0,
  });
  let agents: Agent[] = [
    { name: 'qwen', title: 'Qwen Code', command: 'qwen', args: ['--acp'], builtin: true, notesTools: true, status: 'ready', keyEnv: ['OPENAI_API_KEY'], loginHint: 'give an OpenAI-compatible key' },
  ];
  const f = fakeClient({
    'sessions.list': () => [],
    'sessions.open': (a) => snapshot(String(a.id), 0),
    'agents.list': () => agents,
    'workspace.get': () => null,
    'sync.status': () => status(),
    'sync.configure': (a) => {
      st.url = String(a.url);
      if (typeof a.token === 'string') st.token = a.token;
      st.allowTitles = !!a.allowTitles;
      return status();
    },
    'sync.enable': (a) => {
      st.enabled = !!a.on;
      st.pending = 2;
      return status();
    },
    'sync.allowTitles': (a) => ((st.allowTitles = !!a.allow), status()),
    'shares.list': () => shares,
    'shares.revoke': (a) => ((shares = shares.filter((s) => s.id !== a.id)), null),
    'shares.publish': () => {
      throw { code: 'bad_request', message: "publish: publish a share: sync is off; turn it on in Settings (or with 'mnote sync on')" };
    },
    'agents.setKey': (a) => {
      agents = agents.map((x) => (x.name === a.name ? { ...x, keys: a.value ? [String(a.var)] : [] } : x));
      return agents;
    },
    ...extra,
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  const download = vi.fn();
  const feats = new Features(app, { download, pollMs: 60_000 });
  setFeatures(app, feats);
  return { ...f, app, feats, download, st, setShares: (s: Share[]) => (shares = s) };
}

function keep<T extends Record<string, unknown>>(c: T): T {
  comps.push(c);
  flushSync();
  return c;
}

function input(el: HTMLInputElement, value: string) {
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

function button(root: ParentNode, text: string | RegExp): HTMLButtonElement {
  const b = [...root.querySelectorAll<HTMLButtonElement>('button')].find((x) =>
    typeof text === 'string' ? x.textContent?.trim() === text : text.test(x.textContent?.trim() ?? ''),
  );
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  for (const c of comps) unmount(c);
  comps = [];
  app?.stop();
  app = null;
  target.remove();
});

describe('SettingsDialog', () => {
  it('says sync is off and what it would send; the token is write-only', async () => {
    const { call } = setup();
    keep(mount(SettingsDialog, { target }));
    await vi.waitFor(() => expect(target.querySelector('[data-testid="sync-status"]')?.textContent).toMatch(/Not set up/));
    const text = target.textContent ?? '';
    expect(text).toContain('mnote sends nothing anywhere until you turn this on');
    expect(text).toContain('never what you or the agent wrote');
    const sw = target.querySelector<HTMLButtonElement>('[role="switch"]')!;
    expect(sw.getAttribute('aria-checked')).toBe('false');
    expect(sw.disabled).toBe(true); // nothing to turn on yet
    expect(target.querySelector('[data-testid="shares-settings"]')?.textContent).toMatch(/Turn sync on/);
    expect(call).not.toHaveBeenCalledWith('shares.list', expect.anything());

    const tokenField = target.querySelector<HTMLInputElement>('#sync-token')!;
    expect(tokenField.type).toBe('password');
    input(target.querySelector<HTMLInputElement>('#sync-url')!, 'https://cp.example');
    input(tokenField, TOKEN);
    target.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(target.querySelector('[data-testid="token-saved"]')).not.toBeNull());
    expect(call).toHaveBeenCalledWith('sync.configure', { url: 'https://cp.example', token: TOKEN, allowTitles: false });
    expect(tokenField.value).toBe('');
    expect(tokenField.placeholder).toMatch(/Saved/);
    expect(target.innerHTML).not.toContain(TOKEN);
    expect(target.querySelector<HTMLInputElement>('#sync-url')!.value).toBe('https://cp.example');
  });

  it('the switch turns sync on; the status and the shares show (a link only where it is kept); Revoke asks first', async () => {
    const { app, st, setShares, call } = setup();
    Object.assign(st, { url: 'https://cp.example', token: 't' });
    // shares.list: links of the shares published here (mnote keeps them), none for one published elsewhere.
    setShares([
      { id: 's1', url: 'https://cp.example/s/a', sessionId: 'x', createdAt: '2026-11-30T10:00:00Z' },
      { id: 's2', url: 'https://cp.example/s/b', sessionId: 'y', createdAt: '2026-11-30T11:00:00Z', expiresAt: '2026-12-07T11:00:00Z' },
      { id: 's3', sessionId: 'z', createdAt: '2026-11-30T12:00:00Z' },
    ]);
    keep(mount(SettingsDialog, { target }));
    const sw = await vi.waitFor(() => {
      const s = target.querySelector<HTMLButtonElement>('[role="switch"]')!;
      expect(s.disabled).toBe(false);
      return s;
    });
    sw.click();
    await vi.waitFor(() => expect(target.querySelectorAll('[data-testid="share-row"]')).toHaveLength(3));
    expect(sw.getAttribute('aria-checked')).toBe('true');
    expect(target.querySelector('[data-testid="sync-state"]')?.textContent).toBe('On');
    expect(target.querySelector('[data-testid="sync-pending"]')?.textContent).toBe('2');
    expect(target.querySelector('[data-testid="sync-last"]')?.textContent).toBe('never');
    const rows = target.querySelectorAll('[data-testid="share-row"]');
    expect(rows[0].querySelector('a')?.getAttribute('href')).toBe('https://cp.example/s/a');
    expect(rows[0].textContent).toContain('Never expires');
    expect(rows[1].textContent).toMatch(/Expires /);
    expect(rows[2].textContent).toContain('Its link is shown only on the machine that published it.');
    expect(rows[2].querySelector('a')).toBeNull();
    expect(rows[2].querySelector('[aria-label="Copy link"]')).toBeNull();
    expect(rows[0].querySelector('[aria-label="Copy link"]')).not.toBeNull();

    button(rows[0], 'Revoke').click();
    await vi.waitFor(() => expect(app.confirm.current?.title).toBe('Revoke this share?'));
    app.confirm.answer('revoke');
    await vi.waitFor(() => expect(target.querySelectorAll('[data-testid="share-row"]')).toHaveLength(2));
    expect(call).toHaveBeenCalledWith('shares.revoke', { id: 's1' });
  });

  it('Allow titles takes effect at once', async () => {
    const { call } = setup();
    keep(mount(SettingsDialog, { target }));
    const box = await vi.waitFor(() => {
      const b = target.querySelector<HTMLInputElement>('[data-testid="sync-settings"] label.check input[type="checkbox"]')!;
      expect(b.disabled).toBe(false);
      return b;
    });
    box.click();
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('sync.allowTitles', { allow: true }));
    await vi.waitFor(() => expect(box.checked).toBe(true));
  });
});

describe('SessionMenu', () => {
  async function withSession(extra: Record<string, (a: Record<string, unknown>) => unknown> = {}) {
    const s = setup(extra);
    await s.app.openSession('sess-1');
    keep(mount(SessionMenu, { target }));
    return s;
  }

  async function pick(label: string) {
    target.querySelector<HTMLButtonElement>('[data-testid="session-menu"]')!.click();
    flushSync();
    await tick();
    const menu = target.querySelector('[role="menu"]')!;
    expect([...menu.querySelectorAll('button')].map((b) => b.textContent?.trim())).toEqual(['Markdown…', 'HTML…', 'JSONL…', 'Share…']);
    button(menu, label).click();
    flushSync();
  }

  it('Export → Markdown: the options, then the file (content) downloads', async () => {
    const { call, download } = await withSession({
      'sessions.export': (a) => ({ filename: `mnote-${a.id}.md`, mime: 'text/markdown', content: '# answer' }),
    });
    await pick('Markdown…');
    const dialog = await vi.waitFor(() => {
      const d = document.querySelector<HTMLElement>('[role="dialog"][aria-labelledby="export-title"]');
      expect(d).not.toBeNull();
      return d!;
    }, DIALOG_WAIT);
    const boxes = [...dialog.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
    expect(boxes.map((b) => b.checked)).toEqual([true, false, false, true]); // redact on for md; images in
    boxes[1].click(); // thoughts
    flushSync();
    dialog.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(download).toHaveBeenCalledWith('mnote-sess-1.md', 'text/markdown', '# answer'));
    expect(call).toHaveBeenCalledWith('sessions.export', { id: 'sess-1', format: 'md', redact: true, includeThoughts: true, images: true, locale: 'en' });
    await vi.waitFor(() => expect(document.querySelector('[aria-labelledby="export-title"]')).toBeNull());
  });

  it('Share with sync off: the error, and Open Settings goes there', async () => {
    const { feats } = await withSession();
    await pick('Share…');
    const dialog = await vi.waitFor(() => {
      const d = document.querySelector<HTMLElement>('[role="dialog"][aria-labelledby="share-title"]');
      expect(d).not.toBeNull();
      return d!;
    }, DIALOG_WAIT);
    expect(dialog.textContent).toMatch(/always redacted/);
    await vi.waitFor(() => expect(dialog.textContent).toContain('Sync is off.'));
    dialog.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    const err = await vi.waitFor(() => {
      const e = dialog.querySelector('[data-testid="share-error"]');
      expect(e).not.toBeNull();
      return e!;
    });
    expect(err.textContent).toMatch(/Sharing needs sync/);
    expect(err.textContent).toMatch(/sync is off/);
    button(err, /Open Settings/).click();
    flushSync();
    expect(feats.sync.settingsOpen).toBe(true);
    expect(feats.share.sessionId).toBeNull();
  });
});

describe('agent login', () => {
  it('the selector keeps a key: Save sends it, the row says kept, the value is nowhere in the page', async () => {
    const { call } = setup();
    await app!.agents.refresh();
    keep(mount(RuntimeSelector, { target }));
    const row = await vi.waitFor(() => {
      const r = [...target.querySelectorAll<HTMLElement>('.agent')].find((x) => x.textContent?.includes('Qwen Code'));
      expect(r).toBeTruthy();
      return r!;
    });
    button(row, /Sign-in & keys/).click();
    flushSync();
    // The panel is its own chunk, loaded when first shown.
    await vi.waitFor(() => expect(row.querySelector('[data-testid="agent-login"]')).not.toBeNull());
    expect(row.textContent).toContain('give an OpenAI-compatible key');
    const keyRow = row.querySelector<HTMLFormElement>('[data-testid="key-row"][data-var="OPENAI_API_KEY"]')!;
    const field = keyRow.querySelector<HTMLInputElement>('input[type="password"]')!;
    input(field, KEY);
    keyRow.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(row.querySelector('[data-testid="key-kept"]')).not.toBeNull());
    expect(call).toHaveBeenCalledWith('agents.setKey', { name: 'qwen', var: 'OPENAI_API_KEY', value: KEY });
    expect(row.querySelector<HTMLInputElement>('[data-var="OPENAI_API_KEY"] input')!.value).toBe('');
    expect(row.textContent).toContain('1 key');
    expect(document.body.innerHTML).not.toContain(KEY);
    expect(button(row, 'Remove')).toBeTruthy();
  });

  it('a needs-auth notice shows each method’s command with Open terminal, and key fields', async () => {
    const { call } = setup({
      'agents.openTerminal': () => {
        throw { code: 'bad_request', message: 'there is no display to open a terminal on: run this yourself', details: 'qwen auth login' };
      },
    });
    await app!.agents.refresh();
    const agent = app!.agents.byName('qwen')!;
    keep(
      mount(NoticeBanner, {
        target,
        props: {
          notices: [
            {
              id: 1,
              level: 'error',
              code: 'needs_auth',
              action: 'login',
              message: 'Qwen Code needs you to log in first; it offers: Qwen OAuth, OpenAI key.',
              details: 'qwen-oauth: Qwen OAuth — in a browser\n  run in a terminal: qwen auth login\nopenai: OpenAI key\n  or give its key: OPENAI_API_KEY, OPENAI_BASE_URL',
            },
          ],
          agent,
          ondismiss: () => {},
          onretry: () => {},
          onreopen: () => {},
          oncheck: () => {},
        },
      }),
    );
    await vi.waitFor(() => expect(target.querySelector('[data-testid="agent-login"]')).not.toBeNull());
    const methods = target.querySelectorAll('[data-testid="auth-method"]');
    expect(methods).toHaveLength(1);
    expect(methods[0].textContent).toContain('Qwen OAuth');
    expect(methods[0].querySelector('code')?.textContent).toBe('qwen auth login');
    expect([...target.querySelectorAll('[data-testid="key-row"]')].map((r) => r.getAttribute('data-var'))).toEqual([
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
    ]);
    button(methods[0], /Open terminal/).click();
    await vi.waitFor(() => expect(target.querySelector('[data-testid="terminal-error"]')).not.toBeNull());
    expect(call).toHaveBeenCalledWith('agents.openTerminal', { name: 'qwen', method: 'qwen-oauth' });
    const err = target.querySelector('[data-testid="terminal-error"]')!;
    expect(err.textContent).toContain('there is no display');
    expect(err.querySelector('code')?.textContent).toBe('qwen auth login');
  });
});
