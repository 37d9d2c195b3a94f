// The Backlinks and Unresolved links panels while a person writes: each
// autosave makes the notes index answer again, and a panel keeps what it
// showed until the answer comes ("no other note links here" or the links),
// rather than flicking to "finding links…" after every save; a note just
// opened (a folder just opened) is still "finding" until its first answer.
import { afterEach, describe, expect, it } from 'vitest';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames } from './helpers';

afterEach(() => setApp(null));

function setup() {
  let answers = 0;
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
    'notes.status': () => ({ dir: '/w', ready: true, done: 1, total: 1, notes: 1 }),
    'notes.backlinks': () => {
      answers++;
      return [];
    },
    'notes.unresolved': () => [],
  });
  const app = new AppState(f.client, { schedule: manualFrames().schedule, notesDelayMs: 0 });
  return { app, answers: () => answers };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('backlinks refreshed after a save', () => {
  it('a note just opened is "finding links" until answered; after a save it stays answered', async () => {
    const { app, answers } = setup();
    const notes = app.notes;
    notes.setBacklinksPath('日记/2026-12-07.md');
    expect(notes.backlinksLoading).toBe(true);
    await settle();
    expect(notes.backlinksLoading).toBe(false);
    expect(answers()).toBe(1);

    // An autosave: the note changed on disk.
    notes.applyWorkspaceChanged({ changes: [{ path: '日记/2026-12-07.md', op: 'changed' }] } as never);
    expect(notes.backlinksLoading).toBe(false);
    await new Promise((r) => setTimeout(r, 450));
    expect(answers()).toBe(2);
    expect(notes.backlinksLoading).toBe(false);

    // Another note, then back: each is "finding links" until its own answer.
    notes.setBacklinksPath('缓存设计.md');
    expect(notes.backlinksLoading).toBe(true);
    notes.setBacklinksPath('日记/2026-12-07.md');
    expect(notes.backlinksLoading).toBe(true);
    await settle();
    expect(notes.backlinksLoading).toBe(false);
  });

  it('the folder’s unresolved links, shown, stay on while they are asked again after a save', async () => {
    const { app } = setup();
    const notes = app.notes;
    notes.showUnresolved(true);
    expect(notes.unresolvedLoading).toBe(true);
    await settle();
    expect(notes.unresolvedLoading).toBe(false);
    notes.setBacklinksPath('a.md');
    notes.applyWorkspaceChanged({ changes: [{ path: 'a.md', op: 'changed' }] } as never);
    expect(notes.unresolvedLoading).toBe(false);
    // Another folder: asked anew.
    notes.reset();
    notes.refreshUnresolved(0);
    expect(notes.unresolvedLoading).toBe(true);
    await settle();
    notes.showUnresolved(false);
  });
});
