// "Switch this session" in the Agents dialog offers only agents that are
// installed: a missing agent cannot take the open session over.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/api/types';
import RuntimeSelector from '../src/components/RuntimeSelector.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function agent(name: string, title: string, status: Agent['status']): Agent {
  return { name, title, command: name, args: [], builtin: true, status, notesTools: true };
}

const AGENTS: Agent[] = [
  agent('test-agent', 'Test Agent', 'ready'), // the open session's
  agent('qwen', 'Qwen Code', 'ready'),
  agent('claude-code', 'Claude Code', 'missing'),
  agent('codex', 'Codex', 'needs_login'),
];

async function setup() {
  const f = fakeClient({
    'sessions.list': () => [],
    'sessions.open': (a) => snapshot(String(a.id), 0),
    'sessions.switchAgent': (a) => ({ ...snapshot(String(a.id), 0).session, agent: String(a.agent) }),
    'agents.list': () => AGENTS,
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  setFeatures(app, new Features(app, { download: () => {}, pollMs: 60_000 }));
  await app.agents.refresh();
  await app.openSession('s1');
  return f;
}

/** The agents whose row offers "Switch this session", by title. */
function switchable(): string[] {
  return [...target.querySelectorAll<HTMLElement>('.agent')]
    .filter((row) => [...row.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Switch this session'))
    .map((row) => row.querySelector('.title')?.textContent?.trim() ?? '');
}

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
});

describe('Switch this session', () => {
  it('lists installed agents only, not the session’s own', async () => {
    const f = await setup();
    expect(app!.session.summary?.agent).toBe('test-agent');
    comp = mount(RuntimeSelector, { target });
    flushSync();
    expect(target.querySelectorAll('.agent').length).toBe(4);
    expect(switchable().sort()).toEqual(['Codex', 'Qwen Code']);

    // Switching goes to the agent picked.
    const qwen = [...target.querySelectorAll<HTMLElement>('.agent')].find((r) => r.textContent?.includes('Qwen Code'))!;
    [...qwen.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Switch this session')!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(f.call).toHaveBeenCalledWith('sessions.switchAgent', { id: 's1', agent: 'qwen' });
  });

  it('offers nothing when no session is open', async () => {
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => AGENTS,
      'workspace.get': () => null,
      'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
    });
    app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    setApp(app);
    setFeatures(app, new Features(app, { download: () => {}, pollMs: 60_000 }));
    await app.agents.refresh();
    comp = mount(RuntimeSelector, { target });
    flushSync();
    expect(target.querySelectorAll('.agent').length).toBe(4);
    expect(switchable()).toEqual([]);
  });
});
