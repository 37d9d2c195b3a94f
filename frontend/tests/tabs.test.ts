// Parallel chat sessions in tabs (stores/tabs.svelte.ts, SessionTabs, the
// keys in App.svelte): each tab its own SessionStore streaming in the
// background, badges on background tabs, closing a busy tab asks, the
// LRU limit, the tabs kept across reloads, deleted sessions' tabs close.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Entry, PermissionRequest, SessionSummary, Snapshot, ThreadEvent } from '../src/api/types';
import App from '../src/components/App.svelte';
import ChatPanel from '../src/components/ChatPanel.svelte';
import SessionTabs from '../src/components/SessionTabs.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot, summary } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let apps: AppState[] = [];

function setup(opts: { list?: SessionSummary[]; snaps?: Record<string, Snapshot>; maxTabs?: number; listFails?: boolean } = {}) {
  const list = opts.list ?? ['s1', 's2', 's3', 's4', 's5'].map((id) => summary(id));
  const snaps = opts.snaps ?? {};
  const f = fakeClient({
    'sessions.list': () => {
      if (opts.listFails) throw { code: 'internal', message: 'the index is busy' };
      return list;
    },
    'agents.list': () => [],
    'sessions.open': (a) => {
      const id = a.id as string;
      if (!list.some((s) => s.id === id)) throw { code: 'not_found', message: 'no such session' };
      return snaps[id] ?? snapshot(id, 0, [{ id: `${id}-u0`, kind: 'user_message', turn: 0, text: 'hello ' + id }]);
    },
    'sessions.prompt': () => ({ turn: 1 }),
    'sessions.cancel': () => ({}),
    'sessions.close': () => ({}),
    'sessions.delete': () => ({}),
    'sessions.create': () => summary('new1'),
    'permissions.decide': () => ({}),
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
  });
  const frames = manualFrames();
  const app = new AppState(f.client, { schedule: frames.schedule, workspace: { filterDelayMs: 0 }, maxTabs: opts.maxTabs });
  app.start();
  setApp(app);
  apps.push(app);
  const seqs = new Map<string, number>();
  const emit = (sessionId: string, type: ThreadEvent['type'], payload: unknown) => {
    const seq = (seqs.get(sessionId) ?? 0) + 1;
    seqs.set(sessionId, seq);
    f.emit('thread:event', { sessionId, seq, type, payload });
  };
  const calls = (method: string) => f.call.mock.calls.filter((c) => c[0] === method).map((c) => c[1] as Record<string, unknown>);
  return { ...f, raw: f.emit, app, emit, frames, calls };
}

const perm = (requestId: string): PermissionRequest => ({
  requestId,
  toolCallId: 't1',
  title: 'Write a file',
  kind: 'edit',
  options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
  toolCall: null,
});

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  for (const a of apps) a.stop();
  apps = [];
  setApp(null);
  target.remove();
  localStorage.clear();
});

const ids = (app: AppState) => app.tabs.list.map((s) => s.id);

describe('tabs: several sessions at once', () => {
  it('two sessions stream at once; the background one is complete when shown', async () => {
    const { app, emit, frames } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    expect(ids(app)).toEqual(['s1', 's2']);
    expect(app.session.id).toBe('s2');
    const s1 = app.tabs.find('s1')!;

    const a1: Entry = { id: 'a1', kind: 'assistant_message', turn: 1, text: 'one ', streaming: true };
    const a2: Entry = { id: 'a2', kind: 'assistant_message', turn: 1, text: 'two ', streaming: true };
    emit('s1', 'turn', { turn: 1, state: 'running' });
    emit('s2', 'turn', { turn: 1, state: 'running' });
    emit('s1', 'entry', a1);
    emit('s2', 'entry', a2);
    emit('s1', 'append', { entryId: 'a1', delta: 'and more' });
    emit('s2', 'append', { entryId: 'a2', delta: 'as well' });
    emit('s1', 'append', { entryId: 'a1', delta: ', the end' });
    frames.run();
    // Both applied; the other tab's events do not mark History.
    expect(app.session.entry('a2')?.text).toBe('two as well');
    expect(s1.entry('a1')?.text).toBe('one and more, the end');
    expect(s1.running).toBe(true);
    expect(app.sessions.attention.size).toBe(0);

    emit('s1', 'turn', { turn: 1, state: 'ended', stopReason: 'end_turn' });
    frames.run();
    comp = mount(ChatPanel, { target });
    flushSync();
    expect(target.textContent).not.toContain('one and more');
    app.tabs.activate('s1');
    flushSync();
    expect(app.session).toBe(s1);
    expect(s1.running).toBe(false);
    expect(s1.cell('a1')?.v.text).toBe('one and more, the end');
    expect(s1.cell('a1')?.v.streaming).toBe(false);
    // The prompt queue is each session's own.
    expect(s1.enqueue('later')).toBe(true);
    expect(app.tabs.find('s2')!.queue).toEqual([]);
  });

  it('opening a session already in a tab focuses it; an untouched empty tab is replaced', async () => {
    const { app } = setup({ snaps: { s3: snapshot('s3', 0) } });
    await app.openSession('s1');
    await app.openSession('s2');
    await app.openSession('s1');
    expect(ids(app)).toEqual(['s1', 's2']);
    expect(app.session.id).toBe('s1');
    await app.openSession('s3'); // after the active tab
    expect(ids(app)).toEqual(['s1', 's3', 's2']);
    await app.openSession('s4'); // s3 is empty and untouched: s4 takes its place
    expect(ids(app)).toEqual(['s1', 's4', 's2']);
  });

  it("the turns' Changes anchor on the shown tab's entries", async () => {
    const { app } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    app.checkpoints.turns = [{ turn: 0 } as never];
    expect([...app.checkpoints.anchors.keys()]).toEqual(['s2-u0']);
    app.tabs.activate('s1');
    expect([...app.checkpoints.anchors.keys()]).toEqual(['s1-u0']);
  });

  it('New session opens a new tab', async () => {
    const { app } = setup({ list: ['s1', 'new1'].map((id) => summary(id)) });
    await app.openSession('s1');
    expect(await app.newSession('test-agent')).toBe(true);
    expect(ids(app)).toEqual(['s1', 'new1']);
    expect(app.session.id).toBe('new1');
  });
});

describe('tabs: badges', () => {
  it('a background tab shows waiting while it waits, finished after its turn ends; showing it clears finished', async () => {
    const { app, emit, frames } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    comp = mount(SessionTabs, { target });
    flushSync();
    const badgeOf = (id: string) => target.querySelector(`[role="tab"][data-id="${id}"] [data-testid="tab-badge"]`)?.getAttribute('data-badge') ?? null;
    const s1 = app.tabs.find('s1')!;

    emit('s1', 'turn', { turn: 1, state: 'running' });
    emit('s1', 'permission', perm('r1'));
    frames.run();
    flushSync();
    expect(badgeOf('s1')).toBe('waiting');
    expect(badgeOf('s2')).toBeNull();
    expect(target.querySelector('[data-id="s1"] [data-testid="tab-badge"]')?.getAttribute('aria-label')).toBe('Waiting for you');
    expect(app.tabs.status(s1)).toBe('waiting');

    // Shown and left while it still waits: the badge stays.
    app.tabs.activate('s1');
    flushSync();
    expect(badgeOf('s1')).toBeNull();
    app.tabs.activate('s2');
    flushSync();
    expect(badgeOf('s1')).toBe('waiting');

    emit('s1', 'permission_resolved', { requestId: 'r1' });
    flushSync();
    expect(badgeOf('s1')).toBeNull();
    expect(app.tabs.status(s1)).toBe('working');
    emit('s1', 'turn', { turn: 1, state: 'ended', stopReason: 'end_turn' });
    flushSync();
    expect(badgeOf('s1')).toBe('done');
    expect(target.querySelector('[data-id="s1"] [data-testid="tab-badge"]')?.getAttribute('aria-label')).toBe('Finished while in the background');

    // Shown: "finished" is gone, also after leaving it again.
    (target.querySelector('[role="tab"][data-id="s1"]') as HTMLButtonElement).click();
    flushSync();
    expect(app.session.id).toBe('s1');
    expect(target.querySelector('[role="tab"][data-id="s1"]')?.getAttribute('aria-selected')).toBe('true');
    app.tabs.activate('s2');
    flushSync();
    expect(badgeOf('s1')).toBeNull();

    // A failed turn in the background.
    emit('s1', 'turn', { turn: 2, state: 'running' });
    emit('s1', 'turn', { turn: 2, state: 'ended', stopReason: 'error', error: { code: 'agent_failed', message: 'crashed' } });
    flushSync();
    expect(badgeOf('s1')).toBe('failed');
    expect(app.tabs.status(s1)).toBe('failed');
  });
});

describe('tabs: keys', () => {
  const press = (k: string, init: KeyboardEventInit = {}, el: Element | Window = window) =>
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, ctrlKey: true, bubbles: true, cancelable: true, ...init }));

  it('Ctrl+Tab / Ctrl+Shift+Tab, Ctrl+1…8, Ctrl+9 the last; Ctrl+W only on the chat side', async () => {
    const { app } = setup();
    for (const id of ['s1', 's2', 's3', 's4']) {
      await app.openSession(id);
      app.tabs.find(id)!.lastPrompt = 'touched';
    }
    comp = mount(App, { target });
    flushSync();
    expect(target.querySelectorAll('[role="tab"]').length).toBe(4);
    expect(app.session.id).toBe('s4');
    press('Tab');
    expect(app.session.id).toBe('s1');
    press('Tab');
    expect(app.session.id).toBe('s2');
    press('Tab', { shiftKey: true });
    press('Tab', { shiftKey: true });
    expect(app.session.id).toBe('s4');
    press('3');
    expect(app.session.id).toBe('s3');
    press('1');
    expect(app.session.id).toBe('s1');
    press('9');
    expect(app.session.id).toBe('s4');
    press('8'); // no 8th tab: nothing changes
    expect(app.session.id).toBe('s4');
    // IME composition keys are never shortcuts.
    press('2', { isComposing: true });
    expect(app.session.id).toBe('s4');

    // Ctrl+W from outside the chat side (the notes side, the page): the tab stays.
    const notes = target.querySelector('.layout > .notes')!;
    expect(notes).toBeTruthy();
    press('w', {}, notes);
    press('w', {}, document.body);
    await tick();
    expect(ids(app)).toEqual(['s1', 's2', 's3', 's4']);
    const inChat = target.querySelector('.chat-side [data-testid="session-tabs"]')!;
    expect(inChat).toBeTruthy();
    const ev = new KeyboardEvent('keydown', { key: 'w', ctrlKey: true, bubbles: true, cancelable: true });
    inChat.dispatchEvent(ev);
    await tick();
    expect(ev.defaultPrevented).toBe(true);
    expect(ids(app)).toEqual(['s1', 's2', 's3']);
    expect(app.session.id).toBe('s3');
  });
});

describe('tabs: closing', () => {
  it('a running tab asks: keep running closes it without cancelling, stop and close cancels, Cancel keeps it', async () => {
    const { app, emit, calls } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    await app.openSession('s3');
    emit('s1', 'turn', { turn: 1, state: 'running' });
    emit('s2', 'turn', { turn: 1, state: 'running' });
    emit('s3', 'turn', { turn: 1, state: 'running' });

    let closing = app.tabs.close('s3');
    await tick();
    const q = app.confirm.current!;
    expect(q.title).toBe('Close a session that is still working?');
    expect(q.buttons.map((b) => b.value)).toEqual(['keep', 'stop', 'cancel']);
    expect(q.buttons.map((b) => b.label)).toEqual(['Keep running in background', 'Stop and close', 'Cancel']);
    app.confirm.answer('cancel');
    expect(await closing).toBe(false);
    expect(ids(app)).toEqual(['s1', 's2', 's3']);

    closing = app.tabs.close('s1');
    await tick();
    app.confirm.answer('keep');
    expect(await closing).toBe(true);
    expect(ids(app)).toEqual(['s2', 's3']);
    expect(calls('sessions.cancel')).toEqual([]);
    expect(app.sessions.byId('s1')).toBeTruthy();
    // Its events now mark History (it needs the user).
    emit('s1', 'permission', perm('r9'));
    expect(app.sessions.attention.has('s1')).toBe(true);

    closing = app.tabs.close('s2');
    await tick();
    app.confirm.answer('stop');
    expect(await closing).toBe(true);
    expect(calls('sessions.cancel')).toEqual([{ id: 's2' }]);
    expect(ids(app)).toEqual(['s3']);
    // A closed tab lets go of its agent session (sessions.close: session/close
    // where the agent offers it); one kept running in the background does not.
    expect(calls('sessions.close')).toEqual([{ id: 's2' }]);

    // An idle tab closes without asking.
    emit('s3', 'turn', { turn: 1, state: 'ended', stopReason: 'end_turn' });
    expect(await app.tabs.close('s3')).toBe(true);
    expect(calls('sessions.close')).toEqual([{ id: 's2' }, { id: 's3' }]);
    expect(app.confirm.current).toBeNull();
    expect(ids(app)).toEqual([]);
    expect(app.session.id).toBeNull();
    expect(app.session).toBe(app.tabs.empty);
  });

  it('closing a running tab with queued prompts says they wait until it is opened again', async () => {
    const { app, emit } = setup();
    await app.openSession('s1');
    emit('s1', 'turn', { turn: 1, state: 'running' });
    expect(app.session.enqueue('next one')).toBe(true);
    expect(app.session.enqueue('and another')).toBe(true);
    const closing = app.tabs.close('s1');
    await tick();
    const q = app.confirm.current!;
    expect(q.message).toContain('Its queued prompts (2) are sent when you open it again.');
    app.confirm.answer('cancel');
    expect(await closing).toBe(false);
  });

  it('a tab waiting for a permission asks too; kept, History shows it waits', async () => {
    const { app, emit } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    emit('s1', 'permission', perm('r1'));
    const closing = app.tabs.close('s1');
    await tick();
    expect(app.confirm.current).not.toBeNull();
    app.confirm.answer('keep');
    await closing;
    expect(app.sessions.attention.has('s1')).toBe(true);
  });

  it('the limit closes the least recently used idle tab, never a running one', async () => {
    const { app, emit } = setup({ maxTabs: 3 });
    for (const id of ['s1', 's2', 's3']) {
      await app.openSession(id);
      app.tabs.find(id)!.lastPrompt = 'touched';
    }
    emit('s1', 'turn', { turn: 1, state: 'running' }); // s1 is the oldest, but running
    await app.openSession('s4');
    expect(ids(app)).toEqual(['s1', 's3', 's4']);
    emit('s3', 'turn', { turn: 1, state: 'running' });
    emit('s4', 'turn', { turn: 1, state: 'running' });
    // Every other tab is busy: one more tab than the limit rather than stopping one.
    await app.openSession('s5');
    expect(ids(app)).toEqual(['s1', 's3', 's4', 's5']);
    expect(app.tabs.find('s1')!.running).toBe(true);
  });
});

describe('tabs: kept across reloads, deleted sessions', () => {
  it('the open tabs and the active one come back in a new AppState; deleted ones are left out', async () => {
    const first = setup();
    await first.app.openSession('s1');
    await first.app.openSession('s2');
    await first.app.openSession('s3');
    first.app.tabs.activate('s2');
    first.app.stop();

    // s3 was deleted meanwhile.
    const { app, calls } = setup({ list: ['s1', 's2', 's4'].map((id) => summary(id)) });
    await vi.waitFor(() => expect(ids(app)).toEqual(['s1', 's2']));
    expect(app.session.id).toBe('s2');
    await vi.waitFor(() => expect(app.session.order.length).toBe(1));
    expect(app.tabs.find('s1')!.entry('s1-u0')?.text).toBe('hello s1');
    // Not even asked for: the list said it is gone.
    expect(calls('sessions.open').map((a) => a.id)).toEqual(['s1', 's2']);
  });

  it('a kept tab whose session cannot be found closes (the list could not say)', async () => {
    const first = setup();
    await first.app.openSession('s1');
    await first.app.openSession('s3');
    first.app.stop();
    const { app, calls } = setup({ list: ['s1'].map((id) => summary(id)), listFails: true });
    await vi.waitFor(() => expect(calls('sessions.open').map((a) => a.id)).toEqual(['s1', 's3']));
    await vi.waitFor(() => expect(ids(app)).toEqual(['s1']));
    expect(app.session.id).toBe('s1');
  });

  it('deleting a session closes its tab (here or from elsewhere)', async () => {
    const { app, emit, raw } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    await app.openSession('s3');
    await app.deleteSession('s3');
    expect(ids(app)).toEqual(['s1', 's2']);
    expect(app.session.id).toBe('s2');
    emit('s1', 'turn', { turn: 1, state: 'running' });
    raw('sessions:changed', { changed: [], removed: ['s1'] });
    expect(ids(app)).toEqual(['s2']);
  });

  it('a search hit shown in a tab is not shown again when the tab comes back', async () => {
    // The thread has a height (jsdom lays nothing out): its rows render.
    const desc = Object.getOwnPropertyDescriptor(Element.prototype, 'clientHeight')!;
    Object.defineProperty(Element.prototype, 'clientHeight', {
      configurable: true,
      get(this: HTMLElement) {
        return this.dataset?.testid === 'thread' ? 600 : 0;
      },
    });
    onTestFinished(() => {
      Object.defineProperty(Element.prototype, 'clientHeight', desc);
    });
    const { app } = setup();
    await app.openSession('s2');
    await app.openSession('s1', 's1-u0');
    comp = mount(ChatPanel, { target });
    flushSync();
    await tick();
    await vi.waitFor(() => expect(target.querySelector('.row.flash')).not.toBeNull());
    app.tabs.activate('s2');
    flushSync();
    expect(target.querySelector('.row.flash')).toBeNull();
    app.tabs.activate('s1');
    flushSync();
    await tick();
    await tick();
    expect(target.querySelector('[data-testid="thread"]')).not.toBeNull();
    expect(target.querySelector('.row.flash')).toBeNull();
  });

  it('each tab keeps its own composer draft', async () => {
    const { app } = setup();
    await app.openSession('s1');
    await app.openSession('s2');
    comp = mount(ChatPanel, { target });
    flushSync();
    const ta = () => target.querySelector('textarea') as HTMLTextAreaElement;
    ta().value = 'draft for two';
    ta().dispatchEvent(new Event('input', { bubbles: true }));
    app.tabs.activate('s1');
    flushSync();
    expect(ta().value).toBe('');
    ta().value = 'draft for one';
    ta().dispatchEvent(new Event('input', { bubbles: true }));
    app.tabs.activate('s2');
    flushSync();
    expect(ta().value).toBe('draft for two');
    app.tabs.activate('s1');
    flushSync();
    expect(ta().value).toBe('draft for one');
  });
});
