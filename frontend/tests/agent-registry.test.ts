// The Agents dialog's "From the ACP Registry": nothing is asked of Go until
// the person opens it; the kept list with its date (offline: said so), icons
// as data: images from Go, Install with the download's progress, then the
// installed badge; an installed registry agent with a newer version shows an
// Update button in the agents list. Chinese and English.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent, RegistryListing } from '../src/api/types';
import RuntimeSelector from '../src/components/RuntimeSelector.svelte';
import { i18n } from '../src/lib/i18n.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M2 2h12v12H2z"/></svg>';

function listing(extra: Partial<RegistryListing> = {}): RegistryListing {
  return {
    cached: true,
    url: 'https://cdn.example/registry.json',
    fetchedAt: Date.UTC(2026, 11, 1, 10, 0),
    agents: [
      { id: 'opencode', name: 'OpenCode', version: '1.1.53', description: 'The open source coding agent', license: 'MIT', icon: true, kind: 'binary' },
      { id: 'gemini', name: 'Gemini CLI', version: '0.27.3', description: "Google's CLI", license: 'Apache-2.0', icon: false, needTool: 'npm' },
    ],
    ...extra,
  };
}

function setup(agents: Agent[], reg: () => RegistryListing) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => agents,
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
    'agents.registry': () => reg(),
    'agents.registryIcon': (a) => (a.id === 'opencode' ? { svg: SVG } : Promise.reject({ code: 'not_found', message: 'none' })),
    'agents.registryInstall': (a) => ({ name: `registry:${a.id}`, command: 'OpenCode 1.1.53', log: '/logs/install-registry-opencode.log' }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  return f;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  app?.stop();
  app = null;
  target.remove();
  i18n.choose('system');
});

describe('agents from the ACP Registry', () => {
  it('lists the kept registry on request and installs with progress', async () => {
    i18n.choose('en');
    let reg = listing();
    const f = setup([], () => reg);
    await app!.agents.refresh();
    comp = mount(RuntimeSelector, { target });
    flushSync();
    const section = target.querySelector<HTMLElement>('[data-testid="agent-registry"]')!;
    expect(section.textContent).toContain('From the ACP Registry');
    // Nothing asked of Go before the person opens it.
    expect(f.call.mock.calls.filter(([m]) => String(m).startsWith('agents.registry'))).toEqual([]);

    section.querySelector<HTMLButtonElement>('[data-testid="registry-show"]')!.click();
    await tick();
    await tick();
    flushSync();
    expect(f.call.mock.calls.find(([m]) => m === 'agents.registry')?.[1]).toEqual({});
    expect(section.querySelector('[data-testid="registry-date"]')?.textContent).toContain('List as of');
    const rows = [...section.querySelectorAll<HTMLElement>('[data-testid="registry-agent"]')];
    expect(rows.map((r) => r.dataset.id)).toEqual(['opencode', 'gemini']);
    const img = rows[0].querySelector<HTMLElement>('[role="img"]')!;
    expect(img.getAttribute('style')).toContain('url("data:image/svg+xml');
    expect(img.getAttribute('aria-label')).toBe('OpenCode icon');
    expect(rows[0].textContent).toContain('MIT');
    expect(rows[0].textContent).toContain('1.1.53');
    expect(rows[1].querySelector('[role="img"]')).toBeNull();
    expect(rows[1].textContent).toContain('Install Node.js (npm) first');
    expect(rows[1].querySelector('[data-testid="registry-install"]')).toBeNull();

    // Fetching is the person's click: {refresh: true}.
    section.querySelector<HTMLButtonElement>('[data-testid="registry-fetch"]')!.click();
    await tick();
    expect(f.call.mock.calls.some(([m, a]) => m === 'agents.registry' && (a as { refresh?: boolean }).refresh === true)).toBe(true);

    rows[0].querySelector<HTMLButtonElement>('[data-testid="registry-install"]')!.click();
    await tick();
    expect(f.call.mock.calls.find(([m]) => m === 'agents.registryInstall')?.[1]).toEqual({ id: 'opencode' });
    f.emit('agent:install', { name: 'registry:opencode', phase: 'running', log: '', step: 'download', done: 1024, total: 4096 });
    flushSync();
    const progress = section.querySelector('[data-testid="registry-progress"]')!;
    expect(progress.textContent).toContain('Downloading');
    expect(progress.querySelector('progress')?.getAttribute('value')).toBe('0.25');
    expect(section.textContent).toContain('Cancel');

    reg = listing({ agents: [{ ...listing().agents[0], runtime: 'opencode', installed: '1.1.53' }, listing().agents[1]] });
    f.emit('agent:install', { name: 'registry:opencode', phase: 'done', line: 'opencode', log: '' });
    await tick();
    await tick();
    flushSync();
    expect(section.textContent).toContain('Installed as opencode.');
    expect(section.textContent).toContain('Installed 1.1.53');
    expect(section.querySelector('[data-testid="registry-install"]')).toBeNull();
  });

  it('offline, in Chinese: the list as of its date; an update shows on the installed agent', async () => {
    i18n.choose('zh-CN');
    const installed: Agent = {
      name: 'opencode', title: 'OpenCode', command: '/d/opencode', args: ['acp'], builtin: false, status: 'ready', notesTools: true,
      registry: { id: 'opencode', version: '1.1.50' },
    };
    const f = setup([installed], () =>
      listing({ offline: true, fetchError: 'no network', agents: [{ ...listing().agents[0], runtime: 'opencode', installed: '1.1.50', update: true }] }),
    );
    await app!.agents.refresh();
    comp = mount(RuntimeSelector, { target });
    flushSync();
    // Installed from the registry: the list is read at once (the kept copy only).
    await tick();
    await tick();
    flushSync();
    expect(f.call.mock.calls.filter(([m]) => m === 'agents.registry').map(([, a]) => a)).toEqual([{}]);
    const section = target.querySelector<HTMLElement>('[data-testid="agent-registry"]')!;
    expect(section.querySelector('[data-testid="registry-date"]')?.textContent).toContain('离线：显示');
    expect(section.querySelector('[data-testid="registry-update-badge"]')?.textContent).toContain('可更新到 1.1.53');
    const row = [...target.querySelectorAll<HTMLElement>('.agent')].find((x) => x.textContent?.includes('OpenCode'))!;
    expect(row.textContent).toContain('ACP 注册表 1.1.50');
    const upd = row.querySelector<HTMLButtonElement>('[data-testid="agent-update"]')!;
    expect(upd.textContent).toContain('可更新到 1.1.53');
    upd.click();
    await tick();
    expect(f.call.mock.calls.find(([m]) => m === 'agents.registryInstall')?.[1]).toEqual({ id: 'opencode' });
    expect(section.querySelector('[data-testid="registry-update"]')).toBeNull(); // installing: Cancel instead
  });
});
