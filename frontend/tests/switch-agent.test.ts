// The session header's agent picker switches the open session to the agent
// picked when it is installed; a missing agent cannot take the session over
// (the Agents dialog opens, where it is installed).
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/api/types';
import ChatPanel from '../src/components/ChatPanel.svelte';
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

/** Opens the header's picker and clicks the agent named name. */
function pickInHeader(name: string) {
  (target.querySelector('[data-testid="header-agent"]') as HTMLButtonElement).click();
  flushSync();
  (target.querySelector(`[data-testid="header-agent-picker"] [role="option"][data-name="${name}"]`) as HTMLElement).click();
  flushSync();
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

describe('the header’s agent picker', () => {
  it('switches the session to an installed agent, not to a missing one', async () => {
    const f = await setup();
    expect(app!.session.summary?.agent).toBe('test-agent');
    comp = mount(ChatPanel, { target });
    flushSync();
    expect(target.querySelector('[data-testid="header-agent"]')?.textContent).toBe('Test Agent');
    const switches = () => f.call.mock.calls.filter((c: unknown[]) => c[0] === 'sessions.switchAgent');

    // The session's own agent: nothing to do.
    pickInHeader('test-agent');
    await new Promise((r) => setTimeout(r, 0));
    expect(switches()).toEqual([]);

    // Not installed: the Agents dialog, no switch.
    pickInHeader('claude-code');
    await new Promise((r) => setTimeout(r, 0));
    expect(switches()).toEqual([]);
    expect(app!.ui.runtimeOpen).toBe(true);
    app!.ui.runtimeOpen = false;

    // Installed (one that needs a sign-in too): the session switches to it.
    pickInHeader('qwen');
    await new Promise((r) => setTimeout(r, 0));
    expect(f.call).toHaveBeenCalledWith('sessions.switchAgent', { id: 's1', agent: 'qwen' });
    flushSync();
    expect(target.querySelector('[data-testid="header-agent"]')?.textContent).toBe('Qwen Code');
    expect(app!.agents.selected).toBe('qwen');
    pickInHeader('codex');
    await new Promise((r) => setTimeout(r, 0));
    expect(f.call).toHaveBeenCalledWith('sessions.switchAgent', { id: 's1', agent: 'codex' });
  });

  it('is not there when no session is open (the empty state’s picker chooses for new sessions)', async () => {
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
    comp = mount(ChatPanel, { target });
    flushSync();
    expect(target.querySelector('[data-testid="header-agent-picker"]')).toBeNull();
    expect(target.querySelector('[data-testid="agent-picker"]')).not.toBeNull();
  });
});
