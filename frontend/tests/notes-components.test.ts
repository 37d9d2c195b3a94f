// The notes side's components as a person uses them: the tree (click,
// keyboard, rename, delete), the composer's @ picker and context chip,
// and the editor's conflict and deleted bars.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Composer from '../src/components/Composer.svelte';
import EditorPane from '../src/components/EditorPane.svelte';
import NotesArea from '../src/components/NotesArea.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function setup() {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': () => snapshot('s1', 0),
    'sessions.prompt': () => ({ turn: 1 }),
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: ['/w', '/old'], canPick: false }),
    'workspace.tree': () => ({
      name: 'w',
      path: '',
      dir: true,
      children: [
        { name: 'notes', path: 'notes', dir: true, children: [{ name: 'garden.md', path: 'notes/garden.md' }] },
        { name: 'todo.md', path: 'todo.md' },
      ],
    }),
    'workspace.find': (a) => (String(a.query).startsWith('gar') ? [{ path: 'notes/garden.md', name: 'garden.md', score: 80 }] : []),
    'files.open': (a) => ({ path: a.path, content: '# ' + a.path + '\n', dirty: false, version: 1 }),
    'files.rename': () => ({}),
    'files.delete': () => ({ trash: { trash: 'T' } }),
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

const rowPaths = () => [...target.querySelectorAll('[role="treeitem"]')].map((r) => r.getAttribute('data-path'));
const key = (el: Element, k: string) => el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));

describe('NotesArea and FileTree', () => {
  it('shows the folder, opens folders and notes by click and keyboard, renames with F2, deletes with Delete', async () => {
    const { call, app } = setup();
    comp = mount(NotesArea, { target });
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'todo.md']));
    expect(target.querySelector('[data-testid="workspace-name"]')?.textContent).toContain('w');

    (target.querySelector('[data-path="notes"]') as HTMLElement).click();
    flushSync();
    expect(rowPaths()).toEqual(['notes', 'notes/garden.md', 'todo.md']);
    expect(target.querySelector('[data-path="notes"]')?.getAttribute('aria-expanded')).toBe('true');

    const tree = target.querySelector('[role="tree"]') as HTMLElement;
    tree.focus();
    key(tree, 'ArrowDown');
    flushSync();
    expect(app.workspace.selected).toBe('notes/garden.md');
    key(tree, 'Enter');
    await vi.waitFor(() => expect(app.editor.activePath).toBe('notes/garden.md'));
    expect(call).toHaveBeenCalledWith('files.open', { path: 'notes/garden.md' });

    key(tree, 'ArrowLeft'); // to the folder
    flushSync();
    expect(app.workspace.selected).toBe('notes');
    key(tree, 'ArrowLeft'); // closes it
    flushSync();
    expect(rowPaths()).toEqual(['notes', 'todo.md']);

    key(tree, 'ArrowDown');
    key(tree, 'F2');
    await tick();
    await tick();
    const input = target.querySelector('input.rename') as HTMLInputElement;
    expect(input.value).toBe('todo.md');
    input.value = 'done.md';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    key(input, 'Enter');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('files.rename', { from: 'todo.md', to: 'done.md' }));
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'done.md']));

    tree.focus();
    app.workspace.selected = 'done.md';
    key(tree, 'Delete');
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes']));
    expect(call).toHaveBeenCalledWith('files.delete', { path: 'done.md' });
    expect(app.toasts.items.at(-1)?.action?.label).toBe('Undo');
  });

  it('a rename keeps .md when the extension went with a select-all, asks about another one, and starts from a tab or the editor', async () => {
    const { call, app } = setup();
    comp = mount(NotesArea, { target });
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'todo.md']));
    const rename = async (path: string, typed: string) => {
      app.startRename(path); // as a tab's double-click or F2 in the editor ask
      let input: HTMLInputElement | null = null;
      await vi.waitFor(() => {
        input = target.querySelector('input.rename');
        expect(input).not.toBeNull();
      });
      const el = input as unknown as HTMLInputElement;
      expect(document.activeElement).toBe(el);
      expect(el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0)).toBe(el.value.replace(/\.md$/, ''));
      el.value = typed;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      key(el, 'Enter');
    };
    await rename('todo.md', '缓存实验');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('files.rename', { from: 'todo.md', to: '缓存实验.md' }));
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', '缓存实验.md']));

    await rename('缓存实验.md', '实验.txt');
    await vi.waitFor(() => expect(app.confirm.current?.title).toBe('Change 缓存实验.md to a .txt file?'));
    expect(app.confirm.current?.buttons.map((b) => b.label)).toEqual(['Keep .md', 'Use .txt', 'Cancel']);
    app.confirm.answer('keep');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('files.rename', { from: '缓存实验.md', to: '实验.md' }));

    await rename('实验.md', '实验.txt');
    await vi.waitFor(() => expect(app.confirm.current).not.toBeNull());
    app.confirm.answer('use');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('files.rename', { from: '实验.md', to: '实验.txt' }));
  });

  it('the context menu renames in place and makes a note in the folder', async () => {
    const { call, handlers } = setup();
    handlers['files.create'] = () => ({});
    comp = mount(NotesArea, { target });
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'todo.md']));
    const row = target.querySelector('[data-path="todo.md"]') as HTMLElement;
    row.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: 20, clientY: 40 }));
    await vi.waitFor(() => expect(target.querySelector('[role="menu"][aria-label="File actions"]')).not.toBeNull());
    const item = (name: string) => [...target.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')].find((b) => b.textContent?.includes(name))!;
    expect([...target.querySelectorAll('[role="menuitem"]')].map((b) => b.textContent?.trim().split(/\s+/)[0])).toEqual(['Open', 'New', 'New', 'Rename', 'Delete', 'Copy']);
    item('Rename').click();
    await vi.waitFor(() => expect(target.querySelector('input.rename')).not.toBeNull());
    expect(target.querySelector('[role="menu"]')).toBeNull();
    const input = target.querySelector('input.rename') as HTMLInputElement;
    input.value = 'later.md';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    key(input, 'Enter');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('files.rename', { from: 'todo.md', to: 'later.md' }));

    (target.querySelector('[data-path="notes"]') as HTMLElement).dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(target.querySelector('[role="menu"]')).not.toBeNull());
    item('New note').click();
    await vi.waitFor(() => expect(target.querySelector('input[aria-label="New note name"]')).not.toBeNull());
    expect(target.querySelector('form.new .in')?.textContent).toBe('in notes');
  });

  it('filters by name, matches highlighted', async () => {
    setup();
    comp = mount(NotesArea, { target });
    await vi.waitFor(() => expect(rowPaths()).toHaveLength(2));
    const filter = target.querySelector('[data-testid="tree-filter"]') as HTMLInputElement;
    filter.value = 'gard';
    filter.dispatchEvent(new Event('input', { bubbles: true }));
    await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'notes/garden.md']));
    expect(target.querySelector('[data-path="notes/garden.md"] mark')?.textContent).toBe('gard');
  });
});

describe('Composer', () => {
  it('“@” opens the file picker: Enter inserts the path; the prompt carries it and the open note', async () => {
    const { call, app } = setup();
    await app.openSession('s1');
    await vi.waitFor(() => expect(app.workspace.info).not.toBeNull());
    await app.openFile('todo.md');
    comp = mount(Composer, { target });
    flushSync();
    const chip = target.querySelector('[data-testid="context-chip"]');
    expect(chip?.textContent).toContain('todo.md');

    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    ta.focus();
    ta.value = 'tidy @gar';
    ta.setSelectionRange(9, 9);
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    await vi.waitFor(() => expect(target.querySelector('#file-menu')).not.toBeNull());
    expect(target.querySelector('#file-menu [aria-selected="true"]')?.textContent).toContain('garden.md');
    key(ta, 'Enter');
    flushSync();
    expect(ta.value).toBe('tidy @notes/garden.md ');
    expect(target.querySelector('#file-menu')).toBeNull();

    key(ta, 'Enter'); // send
    await vi.waitFor(() =>
      expect(call).toHaveBeenCalledWith('sessions.prompt', {
        id: 's1',
        text: 'tidy @notes/garden.md ',
        context: { path: 'todo.md' },
        mentions: ['notes/garden.md'],
      }),
    );
  });

  it('the context chip can be removed (and the note offered again)', async () => {
    const { call, app } = setup();
    await app.openSession('s1');
    await app.openFile('todo.md');
    comp = mount(Composer, { target });
    flushSync();
    (target.querySelector('[data-testid="context-chip"] button') as HTMLButtonElement).click();
    flushSync();
    expect(target.querySelector('[data-testid="context-chip"]')).toBeNull();
    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    ta.value = 'no context';
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    key(ta, 'Enter');
    await vi.waitFor(() => expect(call).toHaveBeenCalledWith('sessions.prompt', { id: 's1', text: 'no context' }));
    (target.querySelector('.chip.ghost') as HTMLButtonElement).click();
    flushSync();
    expect(target.querySelector('[data-testid="context-chip"]')).not.toBeNull();
  });
});

describe('EditorPane', () => {
  it('shows the conflict bar with Keep mine / Take theirs / Show diff, and the deleted bar with Save again', async () => {
    const { app, handlers } = setup();
    handlers['files.resolve'] = (a) => ({ path: a.path, content: 'theirs\n', dirty: false, version: 9 });
    await app.openFile('todo.md');
    comp = mount(EditorPane, { target });
    flushSync();
    expect(target.querySelector('[role="tab"][aria-selected="true"]')?.textContent).toContain('todo.md');
    app.editor.applyBuffers([{ kind: 'conflict', buffer: { path: 'todo.md', content: '# todo.md\n', dirty: true, conflict: true, version: 3 } }]);
    flushSync();
    const bar = target.querySelector('[data-testid="conflict-bar"]')!;
    expect(bar.textContent).toContain('changed on disk');
    expect([...bar.querySelectorAll('button')].map((b) => b.textContent?.trim())).toEqual(['Keep mine', 'Take theirs', 'Keep both', 'Show diff']);
    ([...bar.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Take theirs') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(target.querySelector('[data-testid="conflict-bar"]')).toBeNull());
    expect(app.editor.active?.text()).toBe('theirs\n');

    app.editor.applyBuffers([{ kind: 'deleted', buffer: { path: 'todo.md', content: 'theirs\n', dirty: false, deleted: true, version: 10 } }]);
    flushSync();
    expect(target.querySelector('[data-testid="deleted-bar"]')?.textContent).toContain('was deleted on disk');
    expect(target.querySelector('.tab.deleted')).not.toBeNull();
    expect(target.querySelector('[data-testid="save-state"]')?.textContent).toBe('Deleted on disk');
  });
});
