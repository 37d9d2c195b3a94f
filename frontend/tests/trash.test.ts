// The Trash in History: the store lists deleted sessions, restores one in
// its place by last activity, and deletes one for good; the view shows
// them with their deletion time, and an empty trash says so.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrashedSession } from '../src/api/types';
import History from '../src/components/History.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { SessionsStore } from '../src/stores/sessions.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient, manualFrames, summary } from './helpers';

const now = Date.now();

// The test DOM has no CSS.escape (History focuses rows by id with it).
const g = globalThis as { CSS?: { escape?: (s: string) => string } };
g.CSS ??= {};
g.CSS.escape ??= (s: string) => s.replace(/["\\]/g, '\\$&');

function trashed(id: string, extra: Partial<TrashedSession> = {}): TrashedSession {
  return { id, title: 'Session ' + id, workspace: '/notes', agent: 'test-agent', createdMs: 1, updatedMs: 15, deletedMs: now - 5_000, turns: 1, ...extra };
}

/** A fake Go side: the list and the trash, with delete / restore / purge moving sessions between them. */
function backend() {
  const list = [summary('c', { updatedMs: 30 }), summary('a', { updatedMs: 10 })];
  const trash = [trashed('b', { updatedMs: 20, title: 'The heron one' })];
  const f = fakeClient({
    'sessions.list': () => [...list].sort((x, y) => y.updatedMs - x.updatedMs),
    'sessions.trash': () => [...trash],
    'sessions.restore': (a) => {
      const i = trash.findIndex((t) => t.id === a.id);
      if (i < 0) throw { code: 'not_found', message: 'not in the trash' };
      const [t] = trash.splice(i, 1);
      const s = summary(t.id, { title: t.title, updatedMs: t.updatedMs });
      list.push(s);
      return s;
    },
    'sessions.purge': (a) => {
      const i = trash.findIndex((t) => t.id === a.id);
      if (i < 0) throw { code: 'not_found', message: 'not in the trash' };
      trash.splice(i, 1);
      return {};
    },
    'sessions.delete': (a) => {
      const i = list.findIndex((s) => s.id === a.id);
      const [s] = list.splice(i, 1);
      trash.unshift(trashed(s.id, { title: s.title, updatedMs: s.updatedMs, deletedMs: Date.now() }));
      return {};
    },
    'agents.list': () => [],
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
  });
  return { f, list, trash };
}

describe('SessionsStore trash', () => {
  it('lists, restores in place by last activity, and purges', async () => {
    const { f, trash } = backend();
    const s = new SessionsStore(f.client, new ToastStore());
    await s.refresh();
    await s.showTrash(true);
    expect(s.trashLoaded).toBe(true);
    expect(s.trash.map((t) => t.id)).toEqual(['b']);
    expect(await s.restore('b')).toBe(true);
    expect(s.items.map((x) => x.id)).toEqual(['c', 'b', 'a']);
    expect(s.trash).toEqual([]);
    await s.remove('a');
    await s.loadTrash();
    expect(s.trash.map((t) => t.id)).toEqual(['a']);
    expect(await s.purge('a')).toBe(true);
    expect(s.trash).toEqual([]);
    expect(trash).toEqual([]);
    // A purge that fails puts the row back and says so.
    trash.push(trashed('z'));
    await s.loadTrash();
    f.handlers['sessions.purge'] = () => {
      throw { code: 'write_failed', message: 'disk full' };
    };
    expect(await s.purge('z')).toBe(false);
    expect(s.trash.map((t) => t.id)).toEqual(['z']);
  });

  it('reloads a shown trash when a session is deleted elsewhere', async () => {
    const { f, trash } = backend();
    const s = new SessionsStore(f.client, new ToastStore());
    await s.refresh();
    await s.showTrash(true);
    trash.unshift(trashed('c', { deletedMs: now }));
    s.applyChange({ removed: ['c'] });
    await new Promise((r) => setTimeout(r, 0));
    expect(s.trash.map((t) => t.id)).toEqual(['c', 'b']);
    await s.showTrash(false);
    f.call.mockClear();
    s.applyChange({ removed: ['a'] });
    await new Promise((r) => setTimeout(r, 0));
    expect(f.call).not.toHaveBeenCalledWith('sessions.trash', expect.anything());
  });
});

describe('History: Trash view', () => {
  let comp: Record<string, unknown> | null = null;
  let app: AppState | null = null;
  let target: HTMLElement | null = null;
  afterEach(() => {
    if (comp) unmount(comp);
    comp = null;
    app?.stop();
    app = null;
    target?.remove();
  });

  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('shows deleted sessions with when, restores one, and says when it is empty', async () => {
    const { f } = backend();
    app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    setApp(app);
    await app.sessions.refresh();
    target = document.createElement('div');
    document.body.appendChild(target);
    comp = mount(History, { target });
    flushSync();
    const open = target.querySelector<HTMLButtonElement>('[data-testid="open-trash"]')!;
    expect(open.textContent?.trim()).toBe('Trash');
    open.click();
    await tick();
    flushSync();
    const row = target.querySelector<HTMLElement>('li.trashed[data-id="b"]')!;
    expect(row.textContent).toContain('The heron one');
    expect(row.textContent).toMatch(/Deleted (just now|\d+ seconds? ago)/);
    const buttons = [...row.querySelectorAll('button')].map((b) => b.textContent?.trim());
    expect(buttons).toEqual(['Restore', 'Delete forever']);
    row.querySelector<HTMLButtonElement>('button')!.click();
    await tick();
    await tick();
    flushSync();
    // Back in the list, in its place.
    expect(target.querySelector('[data-testid="trash"]')).toBeNull();
    expect([...target.querySelectorAll<HTMLElement>('button.open')].map((b) => b.dataset.id)).toEqual(['c', 'b', 'a']);
    expect(f.call).toHaveBeenCalledWith('sessions.restore', { id: 'b' });

    target.querySelector<HTMLButtonElement>('[data-testid="open-trash"]')!.click();
    await tick();
    flushSync();
    expect(target.querySelector('[data-testid="trash-empty"]')?.textContent).toContain('The trash is empty.');
    target.querySelector<HTMLButtonElement>('button[aria-label="Back to sessions"]')!.click();
    flushSync();
    expect(target.querySelector('[data-testid="trash"]')).toBeNull();
  });
});
