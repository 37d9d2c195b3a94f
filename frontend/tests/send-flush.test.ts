// A prompt sent right after typing in a note: the typed edits reach Go
// before the prompt does, so the agent reads the note as the person has it
// and a write that would drop those words is shown before it is allowed.
import { describe, expect, it } from 'vitest';
import { fakeClient, manualFrames } from './helpers';

describe('send', () => {
  it('pushes the notes’ typed edits before the prompt', async () => {
    const { AppState } = await import('../src/stores/app.svelte');
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => [],
      'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
      'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [{ name: 'a.md', path: 'a.md' }] }),
      'files.open': (a) => ({ path: a.path, content: 'one\n', dirty: false, version: 1 }),
      'files.update': (a) => ({ path: a.path, content: a.content, dirty: true, version: 2 }),
      'sessions.open': () => ({ id: 's1', thread: { entries: [] } }),
      'sessions.prompt': () => ({ turn: 1 }),
    });
    const app = new AppState(f.client, { schedule: manualFrames().schedule, editor: { updateDelayMs: 60_000, autosaveDelayMs: 60_000 } });
    app.start();
    const t = (await app.editor.open('a.md'))!;
    app.editor.edited(t, 'one\n周五前给出方案\n');
    (app.session as unknown as { id: string }).id = 's1';
    await app.send('整理这篇笔记');
    const order = f.call.mock.calls.map((c) => c[0]).filter((m) => m === 'files.update' || m === 'sessions.prompt');
    expect(order).toEqual(['files.update', 'sessions.prompt']);
    expect(f.call.mock.calls.find((c) => c[0] === 'files.update')?.[1]).toMatchObject({ path: 'a.md', content: 'one\n周五前给出方案\n' });
  });
});
