import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/api/types';
import AgentPicker from '../src/components/AgentPicker.svelte';
import { AgentsStore, installedFirst } from '../src/stores/agents.svelte';
import { fakeClient } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;

beforeEach(() => {
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target.remove();
});

function agent(name: string, title: string, status: Agent['status']): Agent {
  return { name, title, command: name, args: [], builtin: true, status, notesTools: true };
}

// In the presets' order: the installed ones are Qwen Code and OpenCode.
const agents: Agent[] = [
  agent('claude-code', 'Claude Code', 'missing'),
  agent('codex', 'Codex', 'missing'),
  agent('qwen', 'Qwen Code', 'ready'),
  agent('opencode', 'OpenCode', 'needs_login'),
  agent('gemini', 'Gemini CLI', 'missing'),
];

function open(picked: string[], selected = 'qwen', extra: Record<string, unknown> = {}) {
  comp = mount(AgentPicker, { target, props: { agents, selected, onpick: (n: string) => picked.push(n), ...extra } });
  flushSync();
  (target.querySelector('button.trigger') as HTMLButtonElement).click();
  flushSync();
}

function names(): string[] {
  return [...target.querySelectorAll('[role="option"]')].map((li) => (li as HTMLElement).dataset.name ?? '');
}

function active(): string {
  return (target.querySelector('[role="option"][aria-selected="true"]') as HTMLElement | null)?.dataset.name ?? '';
}

/** The highlighted row: an agent's name, or an action's (manage, add). */
function highlighted(): string {
  const el = target.querySelector('.active') as HTMLElement | null;
  return el?.dataset.name ?? el?.dataset.action ?? '';
}

function key(k: string) {
  const input = target.querySelector('input[role="combobox"]') as HTMLInputElement;
  input.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
  flushSync();
}

function type(text: string) {
  const input = target.querySelector('input[role="combobox"]') as HTMLInputElement;
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('AgentPicker', () => {
  it('lists the installed agents first, the current one active, the search field focused', async () => {
    open([]);
    await new Promise((r) => setTimeout(r, 0));
    expect(names()).toEqual(['qwen', 'opencode', 'claude-code', 'codex', 'gemini']);
    expect(active()).toBe('qwen');
    expect(document.activeElement).toBe(target.querySelector('input[role="combobox"]'));
    expect(target.querySelector('[role="option"][data-name="gemini"]')?.textContent).toContain('not installed');
    const input = target.querySelector('input[role="combobox"]') as HTMLInputElement;
    expect(input.getAttribute('aria-activedescendant')).toBe(target.querySelector('[data-name="qwen"]')?.id);
  });

  it('filters by title or name as the user types', () => {
    open([]);
    type('co');
    expect(names()).toEqual(['qwen', 'opencode', 'claude-code', 'codex']);
    type('CLAUDE');
    expect(names()).toEqual(['claude-code']);
    type('gem');
    expect(names()).toEqual(['gemini']);
    expect(active()).toBe('gemini');
    type('zzz');
    expect(names()).toEqual([]);
    expect(target.textContent).toContain('No agent matches');
    key('Enter'); // nothing to pick
    expect(target.querySelector('[role="listbox"]')).not.toBeNull();
  });

  it('moves with the arrow keys (wrapping) and picks with Enter', () => {
    const picked: string[] = [];
    open(picked);
    key('ArrowDown');
    expect(active()).toBe('opencode');
    key('ArrowUp');
    key('ArrowUp');
    expect(active()).toBe('gemini');
    key('Home');
    expect(active()).toBe('qwen');
    key('End');
    key('ArrowDown');
    expect(active()).toBe('qwen');
    type('cod'); // Qwen Code, opencode, claude-code, codex
    key('ArrowDown');
    key('ArrowDown');
    key('Enter');
    expect(picked).toEqual(['claude-code']);
    expect(target.querySelector('[role="listbox"]')).toBeNull();
  });

  it('closes on Escape without picking, back to its button', () => {
    const picked: string[] = [];
    open(picked);
    key('Escape');
    expect(target.querySelector('[role="listbox"]')).toBeNull();
    expect(picked).toEqual([]);
    expect(document.activeElement).toBe(target.querySelector('button.trigger'));
  });
  it('ends with Manage agents… and Add your own agent…, which the arrows reach and Enter runs', () => {
    const picked: string[] = [];
    const ran: string[] = [];
    open(picked, 'qwen', { onmanage: () => ran.push('manage'), onadd: () => ran.push('add') });
    const menu = target.querySelector('.menu') as HTMLElement;
    const rows = [...menu.querySelectorAll('[role="option"], [data-action]')].map((el) => (el as HTMLElement).dataset.name ?? (el as HTMLElement).dataset.action);
    expect(rows).toEqual(['qwen', 'opencode', 'claude-code', 'codex', 'gemini', 'manage', 'add']);
    expect(menu.querySelector('[data-action="add"]')?.textContent).toContain('Add your own agent');
    key('ArrowUp'); // wraps to the last row
    expect(highlighted()).toBe('add');
    expect(active()).toBe(''); // no agent highlighted
    const input = target.querySelector('input[role="combobox"]') as HTMLInputElement;
    expect(input.getAttribute('aria-activedescendant')).toBe(menu.querySelector('[data-action="add"]')?.id);
    key('ArrowUp');
    expect(highlighted()).toBe('manage');
    key('ArrowDown');
    key('Enter');
    expect(ran).toEqual(['add']);
    expect(picked).toEqual([]);
    expect(target.querySelector('[role="listbox"]')).toBeNull();
  });

  it('keeps Add your own agent… when no agent matches, and a click on it runs it', () => {
    const ran: string[] = [];
    open([], 'qwen', { onadd: () => ran.push('add') });
    type('zzz');
    expect(names()).toEqual([]);
    expect(highlighted()).toBe('add');
    (target.querySelector('[data-action="add"]') as HTMLButtonElement).click();
    flushSync();
    expect(ran).toEqual(['add']);
    expect(target.querySelector('[role="listbox"]')).toBeNull();
  });

  it('closes on a click outside it', () => {
    const picked: string[] = [];
    open(picked);
    expect(target.querySelector('[role="listbox"]')).not.toBeNull();
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    flushSync();
    expect(target.querySelector('[role="listbox"]')).toBeNull();
    expect(picked).toEqual([]);
  });
});

describe('AgentsStore defaults and installs', () => {
  it('never defaults to an agent that is not installed', async () => {
    localStorage.setItem('mnote.agent', 'claude-code');
    const { client } = fakeClient({ 'agents.list': () => agents });
    const store = new AgentsStore(client);
    await store.refresh();
    expect(store.current?.name).toBe('qwen');
    expect(store.sorted.map((a) => a.name)).toEqual(installedFirst(agents).map((a) => a.name));
    expect(store.noneInstalled).toBe(false);
    localStorage.removeItem('mnote.agent');
  });

  it('keeps npm lines of an install and lists the agents again when it is done', async () => {
    let installed = false;
    const { client, emit } = fakeClient({
      'agents.list': () => agents.map((a) => (a.name === 'codex' && installed ? { ...a, status: 'ready' } : a)),
      'agents.install': (a) => ({ name: a.name, command: 'npm install …', log: '/logs/install-codex.log' }),
    });
    const store = new AgentsStore(client);
    client.on('agent:install', (ev) => store.applyInstall(ev));
    await store.refresh();
    await store.install('codex');
    expect(store.installs.get('codex')?.phase).toBe('running');
    emit('agent:install', { name: 'codex', phase: 'running', line: 'npm http fetch GET 200', log: '/logs/install-codex.log' });
    expect(store.installs.get('codex')?.lines).toEqual(['npm http fetch GET 200']);
    installed = true;
    emit('agent:install', { name: 'codex', phase: 'done', log: '/logs/install-codex.log' });
    await new Promise((r) => setTimeout(r, 0));
    expect(store.byName('codex')?.status).toBe('ready');
  });

  it('tracks starts: starting, then gone when started; a failure stays with its stderr', () => {
    const { client } = fakeClient({});
    const store = new AgentsStore(client);
    store.applyStart({ name: 'qwen', title: 'Qwen Code', phase: 'starting', startedAt: 1, timeoutMs: 90000 });
    expect(store.starts.get('qwen')?.phase).toBe('starting');
    store.applyStart({ name: 'qwen', title: 'Qwen Code', phase: 'started', startedAt: 1, timeoutMs: 90000 });
    expect(store.starts.has('qwen')).toBe(false);
    store.applyStart({ name: 'qwen', title: 'Qwen Code', phase: 'failed', startedAt: 1, timeoutMs: 90000, stderrTail: 'boom' });
    expect(store.starts.get('qwen')?.stderrTail).toBe('boom');
  });
});

describe('Open folder… on first launch', () => {
  it('uses the native dialog in the window before any folder is open', async () => {
    const { WorkspaceStore } = await import('../src/stores/workspace.svelte');
    const { ToastStore } = await import('../src/stores/toasts.svelte');
    const { client } = fakeClient({ 'workspace.get': () => null });
    const ws = new WorkspaceStore(client, new ToastStore());
    expect(ws.info).toBeNull();
    expect(ws.canPick).toBe(true);
  });
});
