// The workspace store: the open folder, the tree patched from
// workspace:changed, agent marks, and tree operations (with undo).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TreeNode, WorkspaceInfo } from '../src/api/types';
import { ToastStore } from '../src/stores/toasts.svelte';
import { MARK_MS, WorkspaceStore } from '../src/stores/workspace.svelte';
import { fakeClient } from './helpers';

const INFO: WorkspaceInfo = { dir: '/home/me/notes', name: 'notes', recent: ['/home/me/notes'], canPick: false };

function rootTree(): TreeNode {
  return {
    name: 'notes',
    path: '',
    dir: true,
    children: [
      { name: 'ideas', path: 'ideas', dir: true, children: [{ name: 'a.md', path: 'ideas/a.md' }] },
      { name: 'todo.md', path: 'todo.md' },
    ],
  };
}

function setup(info: WorkspaceInfo | null = INFO) {
  const trees: unknown[] = [];
  const f = fakeClient({
    'workspace.get': () => info,
    'workspace.tree': (a) => {
      trees.push(a);
      // As Go answers without a folder open.
      if (!info) throw { code: 'bad_request', reason: 'no_folder_open', message: 'no folder is open: open a folder of notes first' };
      return rootTree();
    },
  });
  const toasts = new ToastStore();
  const ws = new WorkspaceStore(f.client, toasts, { refetchDelayMs: 20, filterDelayMs: 0 });
  return { ...f, ws, toasts, trees };
}

const paths = (ws: WorkspaceStore) => ws.rows.map((r) => r.node.path);

afterEach(() => {
  vi.useRealTimers();
});

describe('WorkspaceStore', () => {
  it('loads the open folder and its tree; no folder, no tree', async () => {
    const { ws, trees } = setup();
    await ws.load();
    expect(ws.info?.name).toBe('notes');
    expect(paths(ws)).toEqual(['ideas', 'todo.md']);
    expect(ws.count).toBe(3);
    expect(trees).toEqual([{}]);

    // No folder: no tree and no error (the tree, asked for together with
    // workspace.get, is not shown and its refusal is no error).
    const none = setup(null);
    await none.ws.load();
    expect(none.ws.loaded).toBe(true);
    expect(none.ws.info).toBeNull();
    expect(none.ws.root).toBeNull();
    expect(none.ws.rows).toEqual([]);
    expect(none.ws.error).toBeNull();
    expect(none.trees.length).toBeLessThanOrEqual(1);
  });

  it('asks for the tree together with workspace.get, not after its answer', async () => {
    let answerGet: (v: WorkspaceInfo) => void = () => {};
    const f = fakeClient({
      'workspace.get': () => new Promise<WorkspaceInfo>((r) => (answerGet = r)),
      'workspace.tree': () => rootTree(),
    });
    const ws = new WorkspaceStore(f.client, new ToastStore());
    const loading = ws.load();
    await Promise.resolve();
    expect(f.call.mock.calls.map((c) => c[0]).sort()).toEqual(['workspace.get', 'workspace.tree']);
    answerGet(INFO);
    await loading;
    expect(paths(ws)).toEqual(['ideas', 'todo.md']);
    expect(f.call.mock.calls.filter((c) => c[0] === 'workspace.tree')).toHaveLength(1);
  });

  it('asks again when the tree asked for with workspace.get failed but a folder is open', async () => {
    let n = 0;
    const f = fakeClient({
      'workspace.get': () => INFO,
      'workspace.tree': () => {
        if (n++ === 0) throw { code: 'bad_request', reason: 'no_folder_open', message: 'no folder is open' };
        return rootTree();
      },
    });
    const ws = new WorkspaceStore(f.client, new ToastStore());
    await ws.load();
    expect(n).toBe(2);
    expect(ws.error).toBeNull();
    expect(paths(ws)).toEqual(['ideas', 'todo.md']);
  });

  it('applies created, removed and renamed changes in place', async () => {
    const { ws, trees } = setup();
    await ws.load();
    ws.setOpen('ideas', true);
    ws.applyChanges([
      { path: 'ideas/b.md', op: 'created' },
      { path: 'ideas/pic.png', op: 'created' }, // not Markdown: hidden unless "all files"
      { path: 'ideas/.b.md.swp', op: 'created' },
      { path: 'new', op: 'created', dir: true },
      { path: 'todo.md', op: 'removed' },
    ]);
    expect(paths(ws)).toEqual(['ideas', 'ideas/a.md', 'ideas/b.md', 'new']);
    // A folder renamed: it stays open, its files follow, the selection too.
    ws.selected = 'ideas/a.md';
    ws.applyChanges([{ path: 'new/ideas2', from: 'ideas', op: 'renamed', dir: true }]);
    expect(ws.isOpen('new/ideas2')).toBe(true);
    expect(ws.selected).toBe('new/ideas2/a.md');
    ws.setOpen('new', true);
    expect(paths(ws)).toEqual(['new', 'new/ideas2', 'new/ideas2/a.md', 'new/ideas2/b.md']);
    // The same change again changes nothing; no refetch was needed.
    const v = ws.version;
    ws.applyChanges([{ path: 'ideas/b.md', op: 'removed' }]);
    expect(ws.version).toBe(v);
    expect(trees).toHaveLength(1);
  });

  it('fetches the tree again (once, debounced) on a rescan or a huge batch', async () => {
    const { ws, trees } = setup();
    await ws.load();
    ws.applyChanges([], true);
    ws.applyChanges(Array.from({ length: 400 }, (_, i) => ({ path: `x/${i}.md`, op: 'created' })));
    expect(trees).toHaveLength(1);
    await vi.waitFor(() => expect(trees).toHaveLength(2));
    await new Promise((r) => setTimeout(r, 60));
    expect(trees).toHaveLength(2);
  });

  it('marks what an agent changed for a few seconds (and the folders leading to it)', async () => {
    const { ws } = setup();
    await ws.load();
    vi.useFakeTimers();
    ws.applyChanges([
      { path: 'ideas/a.md', op: 'changed', origin: 'agent', turn: 's/1' },
      { path: 'todo.md', op: 'changed', origin: 'app' },
      { path: 'ideas/c.md', op: 'created', turn: 's/1' }, // an agent writing to disk itself
    ]);
    expect(ws.isMarked('ideas/a.md')).toBe(true);
    expect(ws.isMarked('ideas')).toBe(true);
    expect(ws.isMarked('ideas/c.md')).toBe(true);
    expect(ws.isMarked('todo.md')).toBe(false);
    vi.advanceTimersByTime(MARK_MS + 10);
    expect(ws.marks.size).toBe(0);
  });

  it('filters by name and shows every file with "all files"', async () => {
    const { ws, trees } = setup();
    await ws.load();
    ws.setFilter('a.m');
    await vi.waitFor(() => expect(paths(ws)).toEqual(['ideas', 'ideas/a.md']));
    ws.setFilter('');
    expect(paths(ws)).toEqual(['ideas', 'todo.md']);
    ws.setShowAll(true);
    await vi.waitFor(() => expect(trees).toEqual([{}, { all: true }]));
    ws.applyChanges([{ path: 'pic.png', op: 'created' }]);
    expect(paths(ws)).toContain('pic.png');
    ws.setShowAll(false);
  });

  it('creates, renames, moves and deletes through files.*, with Undo for a delete', async () => {
    const { ws, handlers, call, toasts } = setup();
    await ws.load();
    handlers['files.create'] = () => ({});
    handlers['files.rename'] = () => ({});
    handlers['files.delete'] = () => ({ trash: { trash: 'T1', path: 'todo.md' } });
    handlers['files.restore'] = () => ({});

    expect(await ws.create('ideas', 'plan', false)).toBe('ideas/plan.md');
    expect(call).toHaveBeenLastCalledWith('files.create', { path: 'ideas/plan.md' });
    expect(ws.isOpen('ideas')).toBe(true);
    expect(ws.selected).toBe('ideas/plan.md');
    expect(await ws.create('', 'archive', true)).toBe('archive');
    expect(call).toHaveBeenLastCalledWith('files.create', { path: 'archive', dir: true });
    expect(await ws.create('', '../x', false)).toBeNull();

    expect(await ws.rename('ideas/plan.md', 'Plan B.md')).toBe('ideas/Plan B.md');
    expect(call).toHaveBeenLastCalledWith('files.rename', { from: 'ideas/plan.md', to: 'ideas/Plan B.md' });
    expect(await ws.rename('ideas/Plan B.md', 'a/b.md')).toBeNull(); // a name, not a path
    expect(await ws.moveInto('ideas', 'archive')).toBe('archive/ideas');
    expect(await ws.move('archive', 'archive/ideas/x')).toBeNull(); // not into itself
    expect(ws.node('archive/ideas/Plan B.md')).toBeDefined();

    expect(await ws.remove('todo.md')).toBe(true);
    expect(ws.node('todo.md')).toBeUndefined();
    const t = toasts.items.at(-1)!;
    expect(t.message).toBe('Deleted todo.md');
    await toasts.runAction(t.id);
    expect(call).toHaveBeenLastCalledWith('files.restore', { trash: { trash: 'T1', path: 'todo.md' } });
    expect(ws.node('todo.md')).toBeDefined();
  });

  it('says why an operation failed and changes nothing', async () => {
    const { ws, handlers, toasts } = setup();
    await ws.load();
    handlers['files.rename'] = () => {
      throw { code: 'bad_request', message: 'ideas/a.md already exists: pick another name' };
    };
    expect(await ws.move('todo.md', 'ideas/a.md')).toBeNull();
    expect(toasts.items.at(-1)?.message).toBe('Could not move todo.md: ideas/a.md already exists: pick another name');
    expect(ws.node('todo.md')).toBeDefined();
  });

  it('opens another folder: the old tree state goes', async () => {
    const { ws, handlers } = setup();
    await ws.load();
    ws.setOpen('ideas', true);
    handlers['workspace.open'] = (a) => ({ dir: a.dir, name: 'work', recent: [a.dir, INFO.dir], canPick: false });
    await ws.openFolder('/home/me/work');
    expect(ws.info?.name).toBe('work');
    expect(ws.isOpen('ideas')).toBe(false);
    expect(paths(ws)).toEqual(['ideas', 'todo.md']);
  });
});
