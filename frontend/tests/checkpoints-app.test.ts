// The Changes per turn (checkpoints store) and the wiring in AppState:
// workspace:changed reaches the tree and the tabs, a turn's end refreshes
// the changes, and a prompt carries the offered file and the mentions.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Entry, TurnChanges } from '../src/api/types';
import { AppState } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

const S = 'sess-1';

const TURNS: TurnChanges[] = [
  { turn: 1, ended: '2026-01-01T10:00:00Z', files: [{ path: 'a.md', op: 'changed' }] },
  { turn: 3, ended: '2026-01-01T10:05:00Z', files: [{ path: 'b.md', op: 'created' }, { path: 'c.png', op: 'changed', notKept: 'not text' }] },
];

function entries(): Entry[] {
  return [
    { id: 'e1', kind: 'user_message', turn: 1, text: 'fix a' },
    { id: 'e2', kind: 'assistant_message', turn: 1, text: 'done' },
    { id: 'e3', kind: 'user_message', turn: 2, text: 'hi' },
    { id: 'e4', kind: 'assistant_message', turn: 2, text: 'hello' },
    { id: 'e5', kind: 'user_message', turn: 3, text: 'make b' },
    { id: 'e6', kind: 'tool_call', turn: 3, toolCall: { id: 'e6', toolCallId: 't', title: 'Write b.md', status: 'completed' } },
  ];
}

function setup() {
  let turns = TURNS.map((t) => ({ ...t }));
  const f = fakeClient({
    'sessions.open': () => snapshot(S, 6, entries()),
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [{ name: 'a.md', path: 'a.md' }] }),
    'checkpoints.list': () => turns,
    'checkpoints.changes': (a) => [{ path: 'a.md', op: 'changed', diff: `--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-old ${a.turn}\n+new\n` }],
    'files.open': (a) => ({ path: a.path, content: 'text of ' + a.path, dirty: false, version: 1 }),
  });
  const frames = manualFrames();
  const app = new AppState(f.client, { schedule: frames.schedule, checkpointsDelayMs: 5, workspace: { refetchDelayMs: 5 } });
  app.start();
  return {
    ...f,
    app,
    frames,
    setTurns: (t: TurnChanges[]) => (turns = t),
  };
}

let live: AppState | null = null;
afterEach(() => {
  live?.stop();
  live = null;
});

describe('CheckpointsStore', () => {
  it('lists a session’s turns that changed files and anchors each on its turn’s last entry', async () => {
    const { app, call } = setup();
    live = app;
    await app.openSession(S);
    app.checkpoints.track(S);
    await vi.waitFor(() => expect(app.checkpoints.turns).toHaveLength(2));
    expect(call).toHaveBeenCalledWith('checkpoints.list', { sessionId: S });
    const anchors = app.checkpoints.anchors;
    expect([...anchors.keys()]).toEqual(['e6', 'e2']);
    expect(anchors.get('e2')?.turn).toBe(1);
  });

  it('loads a turn’s diffs when shown, and refreshes after a turn ends', async () => {
    const { app, call, emit, setTurns } = setup();
    live = app;
    await app.openSession(S);
    app.checkpoints.track(S);
    await vi.waitFor(() => expect(app.checkpoints.turns).toHaveLength(2));
    app.checkpoints.show();
    expect(app.checkpoints.focus).toBe(3);
    await vi.waitFor(() => expect(app.checkpoints.diffs.get(3)?.state).toBe('ok'));
    expect(call).toHaveBeenCalledWith('checkpoints.changes', { sessionId: S, turn: 3 });

    setTurns([...TURNS, { turn: 4, ended: '2026-01-01T10:09:00Z', files: [{ path: 'd.md', op: 'created' }] }]);
    emit('thread:event', { sessionId: S, seq: 7, type: 'turn', payload: { state: 'ended', turn: 4, stopReason: 'end_turn' } });
    await vi.waitFor(() => expect(app.checkpoints.turns).toHaveLength(3));
  });

  it('reverts a turn; a conflict writes nothing and keeps the diffs to show', async () => {
    const { app, handlers, toasts } = setupWithToasts();
    live = app;
    await app.openSession(S);
    app.checkpoints.track(S);
    await vi.waitFor(() => expect(app.checkpoints.turns).toHaveLength(2));

    handlers['checkpoints.revert'] = () => {
      throw { code: 'conflict', message: 'cannot revert turn 1: a.md changed since (nothing was reverted)', details: '--- turn/a.md\n+++ now/a.md\n@@ -1 +1 @@\n-new\n+mine\n' };
    };
    const r = await app.checkpoints.revert(1);
    expect(r.state).toBe('conflict');
    const st = app.checkpoints.reverts.get(1);
    expect(st?.state === 'conflict' && st.error.details).toContain('+mine');

    handlers['checkpoints.revert'] = () => ({ restored: ['a.md'], deleted: [] });
    const ok = await app.checkpoints.revert(1);
    expect(ok).toEqual({ state: 'done', result: { restored: ['a.md'], deleted: [], skipped: [] } });
    expect(toasts.items.at(-1)?.message).toBe('Reverted turn 1: 1 file.');
  });

  it('forgets the old session’s changes when another opens', async () => {
    const { app } = setup();
    live = app;
    app.checkpoints.track(S);
    await vi.waitFor(() => expect(app.checkpoints.turns).toHaveLength(2));
    app.checkpoints.track(null);
    expect(app.checkpoints.turns).toEqual([]);
    expect(app.checkpoints.anchors.size).toBe(0);
  });
});

function setupWithToasts() {
  const s = setup();
  return { ...s, toasts: s.app.toasts };
}

describe('AppState wiring', () => {
  it('sends the open file, the selection and the mentions with a prompt', async () => {
    const { app, handlers, call } = setup();
    live = app;
    handlers['sessions.prompt'] = () => ({ turn: 1 });
    await app.openSession(S);
    await app.openFile('a.md');
    app.editor.setSelection({ path: 'a.md', text: 'of', fromLine: 1, toLine: 1 });
    await app.send('look @b.md', { context: app.editor.context!, mentions: ['b.md'] });
    expect(call).toHaveBeenLastCalledWith('sessions.prompt', {
      id: S,
      text: 'look @b.md',
      context: { path: 'a.md', selection: { text: 'of', fromLine: 1, toLine: 1 } },
      mentions: ['b.md'],
    });
    await app.send('plain');
    expect(call).toHaveBeenLastCalledWith('sessions.prompt', { id: S, text: 'plain' });
  });

  it('applies workspace:changed to the tree and the open tabs; a turn’s changes refresh the Changes', async () => {
    const { app, emit, call } = setup();
    live = app;
    await vi.waitFor(() => expect(app.workspace.rows).toHaveLength(1));
    await app.openFile('a.md');
    app.checkpoints.track(S);
    await vi.waitFor(() => expect(app.checkpoints.turns).toHaveLength(2));
    const lists = () => call.mock.calls.filter((c) => c[0] === 'checkpoints.list').length;
    const before = lists();
    emit('workspace:changed', {
      changes: [
        { path: 'a.md', op: 'changed', origin: 'agent', turn: `${S}/5` },
        { path: 'n.md', op: 'created', origin: 'agent', turn: `${S}/5` },
      ],
      buffers: [{ kind: 'written', buffer: { path: 'a.md', content: 'agent text', dirty: false, version: 2 } }],
    });
    expect(app.workspace.rows.map((r) => r.node.path)).toEqual(['a.md', 'n.md']);
    expect(app.workspace.isMarked('n.md')).toBe(true);
    expect(app.editor.active?.text()).toBe('agent text');
    await vi.waitFor(() => expect(lists()).toBe(before + 1));
    emit('workspace:changed', { warning: 'could not watch big/: too many folders' });
    expect(app.toasts.items.at(-1)?.message).toBe('could not watch big/: too many folders');
  });

  it('opening another folder closes the open notes first (an unsaved one asks)', async () => {
    const { app, handlers, call } = setup();
    live = app;
    handlers['workspace.open'] = (a) => ({ dir: a.dir, name: 'other', recent: [a.dir], canPick: false });
    handlers['files.close'] = () => ({});
    const t = (await app.editor.open('a.md'))!;
    app.editor.edited(t, 'changed');
    const p = app.openFolder('/other');
    await vi.waitFor(() => expect(app.confirm.current?.title).toBe('Save changes to a.md?'));
    app.confirm.answer('cancel');
    expect(await p).toBe(false);
    expect(app.workspace.info?.name).toBe('w');

    const q = app.openFolder('/other');
    await vi.waitFor(() => expect(app.confirm.current).not.toBeNull());
    app.confirm.answer('discard');
    expect(await q).toBe(true);
    expect(app.editor.tabs).toHaveLength(0);
    expect(call).toHaveBeenCalledWith('files.close', { path: 'a.md' });
    expect(app.workspace.info?.name).toBe('other');
  });
});
