// The notes side in both languages: the notes area, its tree menu and the
// search view render in Chinese, and switch to English at once (the same
// elements, no remount); toasts made by the stores follow the switch while
// they show; counts take the plural forms; and the tree sorts names with
// the interface locale's collation (pinyin in Chinese, digits by value).
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TreeNode } from '../src/api/types';
import NoteSearch from '../src/components/NoteSearch.svelte';
import NotesArea from '../src/components/NotesArea.svelte';
import { i18n, m } from '../src/lib/i18n.svelte';
import { compareNodes, sortTree } from '../src/lib/tree';
import { AppState, setApp } from '../src/stores/app.svelte';
import { WorkspaceStore } from '../src/stores/workspace.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient, manualFrames } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function setup(tree: TreeNode) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: ['/w', '/old'], canPick: false }),
    'workspace.tree': () => tree,
    'notes.status': () => ({ dir: '/w', ready: true, done: 3, total: 3, notes: 3, tooBig: 1, notText: 1 }),
    'notes.search': () => [],
    'files.delete': () => ({ trash: { trash: 'T' } }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule, notesDelayMs: 0, workspace: { filterDelayMs: 0 } });
  app.start();
  setApp(app);
  return { ...f, app };
}

const TREE: TreeNode = {
  name: 'w',
  path: '',
  dir: true,
  children: [
    { name: 'notes', path: 'notes', dir: true, children: [{ name: 'garden.md', path: 'notes/garden.md' }] },
    { name: 'todo.md', path: 'todo.md' },
  ],
};

const clone = (t: TreeNode): TreeNode => JSON.parse(JSON.stringify(t)) as TreeNode;
const rowPaths = () => [...target.querySelectorAll('[role="treeitem"]')].map((r) => r.getAttribute('data-path'));

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
  i18n.choose('system');
});

describe('the notes area in Chinese and English', () => {
  it('renders in Chinese and switches to English at once, in the same elements', async () => {
    try {
      i18n.choose('zh-CN');
      setup(clone(TREE));
      comp = mount(NotesArea, { target });
      await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'todo.md']));

      const aside = target.querySelector('aside.notes')!;
      const newNote = target.querySelector<HTMLButtonElement>('button[title^="新建笔记"]')!;
      const filter = target.querySelector<HTMLInputElement>('[data-testid="tree-filter"]')!;
      const count = target.querySelector('footer.count')!;
      const tree = target.querySelector('[role="tree"]')!;
      expect(aside.getAttribute('aria-label')).toBe('笔记');
      expect(newNote.getAttribute('aria-label')).toBe('新建笔记');
      expect(newNote.title).toBe('新建笔记 (Alt+N)');
      expect(filter.placeholder).toBe('按名称筛选');
      expect(count.textContent?.trim()).toBe('3 个笔记和文件夹');
      expect(tree.getAttribute('aria-label')).toBe('文件');
      expect(target.querySelector('label.all')?.textContent?.trim()).toBe('所有文件');

      i18n.choose('en');
      flushSync();
      // The same nodes, now in English: nothing was mounted again.
      expect(target.querySelector('aside.notes')).toBe(aside);
      expect(aside.getAttribute('aria-label')).toBe('Notes');
      expect(newNote.getAttribute('aria-label')).toBe('New note');
      expect(newNote.title).toBe('New note (Alt+N)');
      expect(filter.placeholder).toBe('Filter by name');
      expect(count.textContent?.trim()).toBe('3 notes and folders');
      expect(tree.getAttribute('aria-label')).toBe('Files');
    } finally {
      i18n.choose('system');
    }
  });

  it('shows the tree menu in Chinese, and its labels follow a switch', async () => {
    try {
      i18n.choose('zh-CN');
      setup(clone(TREE));
      comp = mount(NotesArea, { target });
      await vi.waitFor(() => expect(rowPaths()).toEqual(['notes', 'todo.md']));
      const row = target.querySelector('[data-path="todo.md"]') as HTMLElement;
      row.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: 20, clientY: 40 }));
      await vi.waitFor(() => expect(target.querySelector('[role="menu"][aria-label="文件操作"]')).not.toBeNull());
      const labels = () => [...target.querySelectorAll('[role="menuitem"]')].map((b) => b.textContent?.trim());
      expect(labels()).toEqual(['打开', '新建笔记', '新建文件夹', '重命名 F2', '删除 Del', '复制路径']);
      i18n.choose('en');
      flushSync();
      expect(labels()).toEqual(['Open', 'New note', 'New folder', 'Rename F2', 'Delete Del', 'Copy path']);
      expect(target.querySelector('[role="menu"]')?.getAttribute('aria-label')).toBe('File actions');
    } finally {
      i18n.choose('system');
    }
  });

  it('the search view says how many files it skipped, in either language', async () => {
    try {
      i18n.choose('zh-CN');
      setup({ name: 'w', path: '', dir: true, children: [] });
      comp = mount(NoteSearch, { target, props: { onclose: () => {} } });
      const skipped = () => target.querySelector('[data-testid="note-search-skipped"]')?.textContent?.trim();
      await vi.waitFor(() => expect(skipped()).toBe('2 个文件未搜索（1 个过大，1 个不是文本）'));
      const input = target.querySelector<HTMLInputElement>('[data-testid="note-search-input"]')!;
      expect(input.placeholder).toBe('在笔记中搜索');
      expect(target.querySelector('[data-testid="note-search-status"]')?.textContent).toContain('中文、日文和韩文');
      i18n.choose('en');
      flushSync();
      expect(skipped()).toBe('2 files not searched (1 too big, 1 not text)');
      expect(input.placeholder).toBe('Search in notes');
    } finally {
      i18n.choose('system');
    }
  });

  it('a toast from the workspace store follows a switch while it shows', async () => {
    try {
      i18n.choose('zh-CN');
      const { app } = setup(clone(TREE));
      await vi.waitFor(() => expect(app.workspace.rows.length).toBe(2));
      expect(await app.workspace.remove('todo.md')).toBe(true);
      const toast = app.toasts.items.at(-1)!;
      expect(toast.message).toBe('已删除 todo.md');
      expect(toast.action?.label).toBe('撤销');
      i18n.choose('en');
      expect(toast.message).toBe('Deleted todo.md');
      expect(toast.action?.label).toBe('Undo');
    } finally {
      i18n.choose('system');
    }
  });
});

describe('plural forms and numbers', () => {
  it('English counts take one/other; Chinese has one form; numbers come formatted', () => {
    try {
      i18n.choose('en');
      expect(m.notes_offer({ links: 1, notes: 1 })).toBe('Update 1 link in 1 note?');
      expect(m.notes_offer({ links: 3, notes: 2 })).toBe('Update 3 links in 2 notes?');
      expect(m.notes_links_updated_skipped({ links: 1, notes: 2, skipped: 1 })).toBe(
        'Updated 1 link in 2 notes. 1 note with unsaved edits left alone.',
      );
      expect(m.notes_count_files({ count: 1, n: '1' })).toBe('1 file or folder');
      expect(m.notes_count_files({ count: 12345, n: '12,345' })).toBe('12,345 files and folders');
      i18n.choose('zh-CN');
      expect(m.notes_offer({ links: 3, notes: 2 })).toBe('要更新 2 篇笔记中的 3 个链接吗？');
      expect(m.notes_links_undone({ count: 1 })).toBe('已恢复 1 篇笔记中的链接。');
      expect(m.notes_count_files({ count: 12345, n: '12,345' })).toBe('12,345 个文件和文件夹');
    } finally {
      i18n.choose('system');
    }
  });
});

describe('tree order follows the interface locale', () => {
  const NAMES = ['笔记10.md', '笔记2.md', '中文.md', 'a.md'];
  const nodes = () => NAMES.map((name) => ({ name, path: name }) as TreeNode);

  it('sorts Chinese names by pinyin and digits by value in Chinese; code points after Latin in English', () => {
    try {
      i18n.choose('zh-CN');
      // 笔 (bǐ) before 中 (zhōng); 2 before 10.
      expect(nodes().sort(compareNodes).map((n) => n.name)).toEqual(['笔记2.md', '笔记10.md', '中文.md', 'a.md']);
      i18n.choose('en');
      expect(nodes().sort(compareNodes).map((n) => n.name)).toEqual(['a.md', '中文.md', '笔记2.md', '笔记10.md']);
      // Folders still come first, and case does not split names apart.
      const mixed = [{ name: 'b.md', path: 'b.md' }, { name: 'Z', path: 'Z', dir: true }, { name: 'A.md', path: 'A.md' }] as TreeNode[];
      expect(mixed.sort(compareNodes).map((n) => n.name)).toEqual(['Z', 'A.md', 'b.md']);
    } finally {
      i18n.choose('system');
    }
  });

  it('sortTree sorts every folder, and the store re-sorts its rows when the language changes', async () => {
    try {
      i18n.choose('zh-CN');
      const root: TreeNode = { name: '', path: '', dir: true, children: [{ name: 'd', path: 'd', dir: true, children: nodes().map((n) => ({ ...n, path: 'd/' + n.name })) }] };
      expect(sortTree(root)).toBe('zh-CN');
      expect(root.children![0].children!.map((n) => n.name)).toEqual(['笔记2.md', '笔记10.md', '中文.md', 'a.md']);

      // Go sends its own order (code units): the store sorts it for the locale.
      const f = fakeClient({
        'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
        'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: ['a.md', '中文.md', '笔记10.md', '笔记2.md'].map((name) => ({ name, path: name })) }),
      });
      const ws = new WorkspaceStore(f.client, new ToastStore());
      await ws.load();
      const names = () => ws.rows.map((r) => r.node.name);
      expect(names()).toEqual(['笔记2.md', '笔记10.md', '中文.md', 'a.md']);
      i18n.choose('en');
      expect(names()).toEqual(['a.md', '中文.md', '笔记2.md', '笔记10.md']);
      // A note made now goes where the current order puts it.
      ws.applyChanges([{ path: '笔记3.md', op: 'created', origin: 'app' }]);
      expect(names()).toEqual(['a.md', '中文.md', '笔记2.md', '笔记3.md', '笔记10.md']);
    } finally {
      i18n.choose('system');
    }
  });
});
