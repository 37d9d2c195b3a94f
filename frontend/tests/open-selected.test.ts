// `mnote ~/notes/日记/今天.md`: Go names the note once in workspace.get and
// the app opens it in the editor when it starts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppState } from '../src/stores/app.svelte';
import { fakeClient, manualFrames } from './helpers';

let live: AppState | null = null;
afterEach(() => {
  live?.stop();
  live = null;
});

function start(select?: string) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false, ...(select ? { select } : {}) }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [{ name: '日记', path: '日记', dir: true, children: [{ name: '今天.md', path: '日记/今天.md' }] }] }),
    'files.open': (a) => ({ path: a.path, content: '# 今天\n', dirty: false, version: 1 }),
  });
  const app = new AppState(f.client, { schedule: manualFrames().schedule, workspace: { refetchDelayMs: 5 } });
  live = app;
  app.start();
  return { ...f, app };
}

describe('the note named at start', () => {
  it('opens in the editor', async () => {
    const { app, call } = start('日记/今天.md');
    await vi.waitFor(() => expect(app.editor.activePath).toBe('日记/今天.md'));
    expect(call).toHaveBeenCalledWith('files.open', expect.objectContaining({ path: '日记/今天.md' }));
  });

  it('opens nothing when none is named', async () => {
    const { app, call } = start();
    await vi.waitFor(() => expect(app.workspace.loaded).toBe(true));
    await new Promise((r) => setTimeout(r, 20));
    expect(app.editor.activePath ?? null).toBeNull();
    expect(call).not.toHaveBeenCalledWith('files.open', expect.anything());
  });
});
