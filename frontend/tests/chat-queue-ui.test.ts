// Issue 17 in the components: Enter while a turn runs queues the prompt
// (shown as Queued above the box; a click edits it back, × removes it),
// Esc still stops the turn; Retry on a failed turn; Copy on messages.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Entry, Snapshot, ThreadEvent } from '../src/api/types';
import AssistantMessage from '../src/components/AssistantMessage.svelte';
import ChatPanel from '../src/components/ChatPanel.svelte';
import Composer from '../src/components/Composer.svelte';
import UserMessage from '../src/components/UserMessage.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function setup(snap: Snapshot = snapshot('s1', 0)) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': () => snap,
    'sessions.prompt': () => ({ turn: 1 }),
    'sessions.cancel': () => ({}),
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule, workspace: { filterDelayMs: 0 } });
  app.start();
  setApp(app);
  let seq = snap.seq;
  const emit = (type: ThreadEvent['type'], payload: unknown) => f.emit('thread:event', { sessionId: 's1', seq: ++seq, type, payload });
  return { ...f, app, emit };
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

const key = (el: Element, k: string) => el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
function type(ta: HTMLTextAreaElement, text: string) {
  ta.value = text;
  ta.dispatchEvent(new Event('input', { bubbles: true }));
}
const prompts = (call: ReturnType<typeof fakeClient>['call']) => call.mock.calls.filter((c) => c[0] === 'sessions.prompt').map((c) => (c[1] as { text: string }).text);

describe('Composer: queue while a turn runs', () => {
  it('Enter queues, a click edits it back, × removes it, Esc stops the turn, the end of the turn sends it', async () => {
    const { call, app, emit } = setup();
    await app.openSession('s1');
    comp = mount(Composer, { target });
    flushSync();
    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    emit('turn', { state: 'running', turn: 1 });
    flushSync();
    expect(target.textContent).toContain('queue'); // the hint: Enter queues

    type(ta, 'next question');
    key(ta, 'Enter');
    flushSync();
    expect(ta.value).toBe('');
    let items = target.querySelectorAll('[data-testid="queued"]');
    expect(items).toHaveLength(1);
    expect(items[0].textContent).toContain('Queued');
    expect(items[0].textContent).toContain('next question');
    expect(prompts(call)).toEqual([]);

    // A click puts it back in the box (and out of the queue).
    (items[0].querySelector('.q-text') as HTMLButtonElement).click();
    flushSync();
    expect(ta.value).toBe('next question');
    expect(target.querySelectorAll('[data-testid="queued"]')).toHaveLength(0);

    type(ta, 'next question, edited');
    key(ta, 'Enter');
    type(ta, 'a third');
    key(ta, 'Enter');
    flushSync();
    items = target.querySelectorAll('[data-testid="queued"]');
    expect([...items].map((i) => i.querySelector('.q-text')?.textContent)).toEqual(['next question, edited', 'a third']);
    (items[1].querySelector('button[aria-label="Remove from the queue"]') as HTMLButtonElement).click();
    flushSync();
    expect(target.querySelectorAll('[data-testid="queued"]')).toHaveLength(1);

    // Esc stops the turn and leaves the queue.
    key(ta, 'Escape');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('sessions.cancel', { id: 's1' }));
    expect(target.querySelectorAll('[data-testid="queued"]')).toHaveLength(1);
    emit('turn', { state: 'ended', turn: 1, stopReason: 'cancelled' });
    await vi.waitFor(() => expect(prompts(call)).toEqual(['next question, edited']));
    flushSync();
    expect(target.querySelectorAll('[data-testid="queued"]')).toHaveLength(0);
  });

  it('after a failed turn the queued prompt says so and Send now sends it', async () => {
    const { call, app, emit } = setup();
    await app.openSession('s1');
    comp = mount(Composer, { target });
    flushSync();
    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    emit('turn', { state: 'running', turn: 1 });
    type(ta, 'then this');
    key(ta, 'Enter');
    emit('turn', { state: 'ended', turn: 1, stopReason: 'error', error: 'boom' });
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
    expect(target.querySelector('[data-testid="queue-held"]')?.textContent).toBe('Not sent: the turn before it failed.');
    expect(prompts(call)).toEqual([]);
    const now = [...target.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Send now') as HTMLButtonElement;
    now.click();
    await vi.waitFor(() => expect(prompts(call)).toEqual(['then this']));
  });
});

describe('ChatPanel: Retry on a failed turn', () => {
  it('a session whose last turn failed offers Retry on the turn, which sends its prompt again', async () => {
    const entries: Entry[] = [{ id: 'u1', kind: 'user_message', turn: 1, text: 'summarise the notes' }];
    const { call, app } = setup(
      snapshot('s1', 3, entries, { thread: { entries, usage: { used: 0, size: 0 }, turn: 1, stopReason: 'error' } }),
    );
    await app.openSession('s1');
    comp = mount(ChatPanel, { target });
    flushSync();
    const stopped = target.querySelector('.stopped') as HTMLElement;
    expect(stopped.textContent).toContain('The turn ended with an error.');
    const retry = target.querySelector('[data-testid="retry-turn"]') as HTMLButtonElement;
    expect(retry.textContent?.trim()).toBe('Retry');
    retry.click();
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('sessions.prompt', { id: 's1', text: 'summarise the notes' }));
  });
});

describe('Copy on messages', () => {
  for (const [name, C, entry] of [
    ['user', UserMessage, { id: 'u1', kind: 'user_message', turn: 1, text: 'Why **this**?\n- a' }],
    ['assistant', AssistantMessage, { id: 'a1', kind: 'assistant_message', turn: 1, text: '# Answer\n\n```js\nx()\n```\n' }],
  ] as const) {
    it(`a ${name} message copies its Markdown source and says Copied`, async () => {
      const { client } = setup();
      const copy = vi.spyOn(client, 'copyText').mockResolvedValue();
      comp = mount(C, { target, props: { entry: entry as Entry } });
      flushSync();
      const btn = target.querySelector('[data-testid="copy-message"]') as HTMLButtonElement;
      expect(btn.tagName).toBe('BUTTON'); // keyboard-reachable
      expect(btn.getAttribute('aria-label')).toBe('Copy message');
      expect(btn.getAttribute('data-label')).toBe('Copy');
      // The label is drawn by CSS: the message's text is only the message.
      expect(btn.textContent).toBe('');
      btn.click();
      await vi.waitFor(() => expect(btn.getAttribute('aria-label')).toBe('Copied'));
      expect(copy).toHaveBeenCalledWith(entry.text);
      expect(btn.getAttribute('data-label')).toBe('Copied');
    });
  }

  it('says Failed when the copy fails; a streaming answer has no Copy yet', async () => {
    const { client } = setup();
    vi.spyOn(client, 'copyText').mockRejectedValue(new Error('denied'));
    comp = mount(UserMessage, { target, props: { entry: { id: 'u1', kind: 'user_message', turn: 1, text: 'hi' } } });
    flushSync();
    const btn = target.querySelector('[data-testid="copy-message"]') as HTMLButtonElement;
    btn.click();
    await vi.waitFor(() => expect(btn.getAttribute('data-label')).toBe('Failed'));
    unmount(comp);
    comp = mount(AssistantMessage, { target, props: { entry: { id: 'a1', kind: 'assistant_message', turn: 1, text: 'Hel', streaming: true } } });
    flushSync();
    expect(target.querySelector('[data-testid="copy-message"]')).toBeNull();
  });
});
