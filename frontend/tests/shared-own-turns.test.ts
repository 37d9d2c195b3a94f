// A shared session in the chat panel as its actor sees it: the composer's
// choice of what members also see (kept per session, sent with each
// prompt, off by default), this machine's own turns in full from the
// local thread (tool cards with their diffs), other members' turns as
// their projection with the actor's name, thoughts and tool summaries
// they chose to share.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SharedEntry, SharedState } from '../src/api/shared';
import type { Entry } from '../src/api/types';
import ChatPanel from '../src/components/ChatPanel.svelte';
import { readShareChoice, writeShareChoice } from '../src/lib/prefs';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function entry(seq: number, kind: string, actor: string, runId: string, e: Partial<SharedEntry['Entry']> = {}, device = 'dev-a'): SharedEntry {
  return { seq, epoch: 1, kind, actor, runId, authorDevice: device, timeMs: seq, Entry: { kind, ...e } };
}

// ada's machine: her turn 1 was run r1; bob's run r2 came from his.
const local: Entry[] = [
  { id: 'u1', kind: 'user_message', turn: 1, text: 'fix the plan\n\nUser bob (turn 0): earlier context' },
  { id: 'th1', kind: 'thought', turn: 1, text: 'my own thinking' },
  {
    id: 'tc1',
    kind: 'tool_call',
    turn: 1,
    toolCall: {
      id: 'tc1',
      toolCallId: 't1',
      title: 'Edit plan.md',
      kind: 'edit',
      status: 'completed',
      content: [{ type: 'diff', path: '/w/plan.md', oldText: 'old line\n', newText: 'LOCAL-DIFF-new\n' }],
      rawInput: { path: '/w/plan.md' },
    },
  },
  { id: 'a1', kind: 'assistant_message', turn: 1, text: 'fixed it' },
];
const log: SharedEntry[] = [
  entry(1, 'prompt', 'ada', 'r1', { text: 'fix the plan' }),
  entry(2, 'tool', 'ada', 'r1', { tool: { toolCallId: 't1', title: 'Edit plan.md', kind: 'edit', status: 'completed' } }),
  entry(3, 'answer', 'ada', 'r1', { text: 'fixed it' }),
  entry(4, 'status', 'ada', 'r1', { text: 'ended' }),
  entry(5, 'prompt', 'bob', 'r2', { text: 'and the cache?' }, 'dev-b'),
  entry(6, 'thought', 'bob', 'r2', { text: 'bob thinks aloud' }, 'dev-b'),
  entry(7, 'tool', 'bob', 'r2', { tool: { toolCallId: 'b1', title: 'Edit cache.md', kind: 'edit', status: 'completed', summary: 'notes/cache.md +2 −1' } }, 'dev-b'),
  entry(8, 'answer', 'bob', 'r2', { text: 'cache done' }, 'dev-b'),
];

function setup(runs: Record<string, number>) {
  const state: SharedState = {
    shared: true,
    account: 'ada',
    device: 'dev-a',
    owner: 'ada',
    role: 'owner',
    members: [
      { account: 'ada', role: 'owner' },
      { account: 'bob', role: 'editor' },
    ],
    entries: log,
    runs,
  };
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': () => snapshot('s1', 0, local, { thread: { entries: local, usage: { used: 0, size: 0 }, turn: 1 } }),
    'sessions.prompt': () => ({ turn: 2 }),
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: true, configured: true, allowTitles: false, pending: 0, parked: 0 }),
    'shared.state': () => state,
    'shared.sessions': () => [],
    'checkpoints.list': () => [],
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  setFeatures(app, new Features(app, { pollMs: 60_000 }));
  return f;
}

async function settle() {
  for (let i = 0; i < 8; i++) await tick();
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
  setApp(null);
  target.remove();
});

describe('what members also see', () => {
  it('is off by default, kept per session, and forgotten when nothing is chosen', () => {
    expect(readShareChoice('s1')).toEqual({ thoughts: false, toolSummaries: false });
    writeShareChoice('s1', { thoughts: true, toolSummaries: false });
    expect(readShareChoice('s1')).toEqual({ thoughts: true, toolSummaries: false });
    expect(readShareChoice('s2')).toEqual({ thoughts: false, toolSummaries: false });
    writeShareChoice('s1', { thoughts: false, toolSummaries: false });
    expect(localStorage.getItem('mnote.sharedShow')).toBe('[]');
    localStorage.setItem('mnote.sharedShow', '{"s1":true}');
    expect(readShareChoice('s1')).toEqual({ thoughts: false, toolSummaries: false });
  });

  it('is chosen in the shared composer and goes with the next prompt', async () => {
    const f = setup({ r1: 1 });
    await app!.openSession('s1');
    comp = mount(ChatPanel, { target });
    await settle();
    const show = target.querySelector('[data-testid="shared-show"]') as HTMLElement;
    expect(show).not.toBeNull();
    expect(show.title).toContain('never leave this machine');
    const thoughts = show.querySelector('[data-testid="shared-show-thoughts"]') as HTMLInputElement;
    const tools = show.querySelector('[data-testid="shared-show-tools"]') as HTMLInputElement;
    expect([thoughts.checked, tools.checked]).toEqual([false, false]);

    await app!.session.prompt('without');
    thoughts.click();
    flushSync();
    expect(readShareChoice('s1')).toEqual({ thoughts: true, toolSummaries: false });
    await app!.session.prompt('with thoughts');
    const sent = f.call.mock.calls.filter((c) => c[0] === 'sessions.prompt').map((c) => c[1]);
    expect(sent).toEqual([
      { id: 's1', text: 'without' },
      { id: 's1', text: 'with thoughts', share: { thoughts: true, toolSummaries: false } },
    ]);
  });
});

describe("a shared thread on the actor's machine", () => {
  it('shows its own runs in full from the local thread and the others as their projection', async () => {
    setup({ r1: 1 });
    await app!.openSession('s1');
    comp = mount(ChatPanel, { target });
    await settle();
    const thread = target.querySelector('[data-testid="shared-thread"]')!;
    const own = thread.querySelectorAll('[data-testid="shared-own-turn"]');
    expect(own).toHaveLength(1);
    // ada's turn: her tool card (with its diff), her thought, the answer;
    // the prompt as typed with her name, not the context her agent got.
    expect(own[0].querySelector('[data-testid="tool-card"]')).not.toBeNull();
    expect(own[0].querySelector('[data-testid="thought"]')).not.toBeNull();
    expect(own[0].textContent).toContain('fixed it');
    const prompts = [...thread.querySelectorAll('[data-testid="shared-prompt"]')].map((p) => p.textContent);
    expect(prompts[0]).toContain('ada (you)');
    expect(prompts[0]).not.toContain('earlier context');
    // bob's turn: title, kind, status, the summary and thought he shared.
    const tools = [...thread.querySelectorAll('[data-testid="shared-tool"]')];
    expect(tools).toHaveLength(1);
    expect(tools[0].textContent).toContain('Edit cache.md');
    expect(tools[0].querySelector('[data-testid="shared-tool-summary"]')?.textContent).toBe('notes/cache.md +2 −1');
    expect(thread.querySelector('[data-testid="shared-thought"]')?.textContent).toContain('bob thinks aloud');
    expect(thread.querySelectorAll('[data-testid="tool-card"]')).toHaveLength(1);
  });

  it('shows a run as its projection until it is linked to a local turn (the run event)', async () => {
    const f = setup({});
    await app!.openSession('s1');
    comp = mount(ChatPanel, { target });
    await settle();
    expect(target.querySelectorAll('[data-testid="shared-own-turn"]')).toHaveLength(0);
    expect(target.querySelectorAll('[data-testid="shared-tool"]')).toHaveLength(2);
    f.emit('shared:event', { sessionId: 's1', type: 'run', run: { runId: 'r1', turn: 1 } });
    await settle();
    expect(target.querySelectorAll('[data-testid="shared-own-turn"]')).toHaveLength(1);
    expect(target.querySelectorAll('[data-testid="shared-tool"]')).toHaveLength(1);
  });
});
