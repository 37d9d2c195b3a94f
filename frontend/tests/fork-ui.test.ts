// Issue 17: Edit on a user message resends it as a fork (sessions.fork) and
// opens the new session; the fork says where it came from (and when its
// agent got the earlier turns only as context); the original links its
// forks at the message.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Entry, ForkResult, Snapshot, SessionSummary } from '../src/api/types';
import ForkBanner from '../src/components/ForkBanner.svelte';
import UserMessage from '../src/components/UserMessage.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot, summary } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

const first: Entry = { id: 'u1', kind: 'user_message', turn: 1, text: 'first question' };
const second: Entry = { id: 'u2', kind: 'user_message', turn: 2, text: 'second question' };

function setup(snaps: Record<string, Snapshot>, fork?: (args: unknown) => unknown) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': (a: unknown) => snaps[(a as { id: string }).id],
    'sessions.fork': fork ?? (() => ({})),
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule, workspace: { filterDelayMs: 0 } });
  app.start();
  setApp(app);
  return { ...f, app };
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

const key = (el: Element, k: string, init: KeyboardEventInit = {}) =>
  el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
function type(ta: HTMLTextAreaElement, text: string) {
  ta.value = text;
  ta.dispatchEvent(new Event('input', { bubbles: true }));
}
const forkCalls = (call: ReturnType<typeof fakeClient>['call']) => call.mock.calls.filter((c) => c[0] === 'sessions.fork').map((c) => c[1]);

describe('Edit and resend', () => {
  it('Esc cancels; Enter resends as a fork of that turn and opens the new session', async () => {
    const forked: SessionSummary = { ...summary('s2'), forkedFrom: { sessionId: 's1', turn: 2, title: 'Original', how: 'context' } };
    const result: ForkResult = { session: forked, turn: 2, how: 'context' };
    const { call, app } = setup({ s1: snapshot('s1', 0, [first, second]), s2: snapshot('s2', 0, [first], { session: forked }) }, () => result);
    await app.openSession('s1');
    comp = mount(UserMessage, { target, props: { entry: second } });
    flushSync();

    (target.querySelector('[data-testid="edit-message"]') as HTMLButtonElement).click();
    flushSync();
    let ta = target.querySelector('[data-testid="edit-message-input"]') as HTMLTextAreaElement;
    expect(ta.value).toBe('second question');
    type(ta, 'never sent');
    key(ta, 'Escape');
    flushSync();
    expect(target.querySelector('[data-testid="edit-message-input"]')).toBeNull();
    expect(target.textContent).toContain('second question');

    (target.querySelector('[data-testid="edit-message"]') as HTMLButtonElement).click();
    flushSync();
    ta = target.querySelector('[data-testid="edit-message-input"]') as HTMLTextAreaElement;
    type(ta, 'second question, edited');
    // Enter that commits an IME candidate sends nothing.
    key(ta, 'Enter', { isComposing: true });
    expect(forkCalls(call)).toHaveLength(0);
    key(ta, 'Enter');
    await vi.waitFor(() => expect(app.session.id).toBe('s2'));
    expect(forkCalls(call)).toEqual([{ sessionId: 's1', turn: 2, text: 'second question, edited', locale: 'en' }]);
    expect(app.sessions.items[0]?.id).toBe('s2');
  });

  it('a refused resend keeps the editor open and says why', async () => {
    const { app } = setup({ s1: snapshot('s1', 0, [first]) }, () => {
      throw new Error('turn 1 cannot be edited');
    });
    await app.openSession('s1');
    comp = mount(UserMessage, { target, props: { entry: first } });
    flushSync();
    (target.querySelector('[data-testid="edit-message"]') as HTMLButtonElement).click();
    flushSync();
    (target.querySelector('[data-testid="edit-message-resend"]') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(target.textContent).toContain('Could not resend'));
    expect(target.querySelector('[data-testid="edit-message-input"]')).not.toBeNull();
    expect(app.session.id).toBe('s1');
  });
});

describe('fork links', () => {
  it('the fork says where it came from, and that the agent got the earlier turns as context', async () => {
    const forked: SessionSummary = { ...summary('s2'), forkedFrom: { sessionId: 's1', turn: 2, title: 'Original', how: 'context' } };
    const { app } = setup({ s1: snapshot('s1', 0, [first, second]), s2: snapshot('s2', 0, [first], { session: forked }) });
    await app.openSession('s2');
    comp = mount(ForkBanner, { target });
    flushSync();
    const link = target.querySelector('[data-testid="fork-origin"]') as HTMLAnchorElement;
    expect(link.textContent).toBe('Forked from Original at turn 2');
    expect(target.querySelector('[data-testid="fork-context-note"]')?.textContent).toBe('The agent got the earlier turns as context (it has no fork)');
    link.click();
    await vi.waitFor(() => expect(app.session.id).toBe('s1'));
    flushSync();
    expect(target.querySelector('[data-testid="fork-banner"]')).toBeNull(); // the original is no fork
  });

  it('a fork by session/fork has no context note; the original lists its forks at their message', async () => {
    const orig: SessionSummary = { ...summary('s1'), forks: [{ sessionId: 's2', title: 'A', turn: 2 }, { sessionId: 's3', title: 'A', turn: 1 }] };
    const forked: SessionSummary = { ...summary('s2'), forkedFrom: { sessionId: 's1', turn: 2, title: 'A', how: 'fork' } };
    const { app } = setup({ s1: snapshot('s1', 0, [first, second], { session: orig }), s2: snapshot('s2', 0, [first], { session: forked }) });
    await app.openSession('s2');
    comp = mount(ForkBanner, { target });
    flushSync();
    expect(target.querySelector('[data-testid="fork-origin"]')).not.toBeNull();
    expect(target.querySelector('[data-testid="fork-context-note"]')).toBeNull();
    unmount(comp);

    await app.openSession('s1');
    comp = mount(UserMessage, { target, props: { entry: second } });
    flushSync();
    const forks = target.querySelector('[data-testid="message-forks"]') as HTMLElement;
    expect(forks.textContent).toContain('Forks:');
    const links = forks.querySelectorAll('a');
    expect([...links].map((a) => a.textContent)).toEqual(['fork 1']);
    links[0]!.click();
    await vi.waitFor(() => expect(app.session.id).toBe('s2'));
  });
});
