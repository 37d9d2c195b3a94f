// The editor side in both languages: the editor pane, the diffs, a turn's
// changes and CodeMirror's own words show in Chinese under zh-CN, and
// switching to English changes the same elements at once (no remount).
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import EditorPane from '../src/components/EditorPane.svelte';
import TurnChanges from '../src/components/TurnChanges.svelte';
import UnifiedDiff from '../src/components/UnifiedDiff.svelte';
import { i18n, m } from '../src/lib/i18n.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fsRefusedMessage } from '../src/stores/checkpoints.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function setup(): AppState {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': () => snapshot('s1', 0),
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: ['/w'], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [{ name: 'todo.md', path: 'todo.md' }] }),
    'files.open': (a) => ({ path: a.path, content: '# todo\n', dirty: false, version: 1 }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule, workspace: { filterDelayMs: 0 } });
  app.start();
  setApp(app);
  return app;
}

const buttons = (el: Element | null) => [...(el?.querySelectorAll('button') ?? [])].map((b) => b.textContent?.trim());

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
  target.remove();
  i18n.choose('system');
});

describe('the editor pane in Chinese and English', () => {
  it('shows the conflict bar, tab labels and save state in zh-CN, then in English after a switch', async () => {
    try {
      i18n.choose('zh-CN');
      const a = setup();
      await a.openFile('todo.md');
      comp = mount(EditorPane, { target });
      flushSync();
      a.editor.applyBuffers([{ kind: 'conflict', buffer: { path: 'todo.md', content: '# todo\n', dirty: true, conflict: true, version: 3 } }]);
      flushSync();
      const bar = target.querySelector('[data-testid="conflict-bar"]')!;
      const msg = bar.querySelector('.msg')!;
      expect(msg.textContent).toBe('你编辑 todo.md 时，它在磁盘上被更改了。');
      expect(msg.querySelector('b')?.textContent).toBe('todo.md');
      expect(buttons(bar)).toEqual(['保留我的', '采用对方的', '保留两者', '显示差异']);
      const state = target.querySelector('[data-testid="save-state"]')!;
      expect(state.textContent).toBe('磁盘上的文件已更改');
      const pane = target.querySelector('section.pane')!;
      expect(pane.getAttribute('aria-label')).toBe('编辑器');
      expect(target.querySelector('.tab .close')?.getAttribute('aria-label')).toBe('关闭 todo.md（未保存）');

      i18n.choose('en');
      flushSync();
      // The same elements, now in English.
      expect(target.querySelector('[data-testid="conflict-bar"]')).toBe(bar);
      expect(msg.textContent).toBe('todo.md changed on disk while you were editing it.');
      expect(msg.querySelector('b')?.textContent).toBe('todo.md');
      expect(buttons(bar)).toEqual(['Keep mine', 'Take theirs', 'Keep both', 'Show diff']);
      expect(state.textContent).toBe('Changed on disk');
      expect(pane.getAttribute('aria-label')).toBe('Editor');
      expect(target.querySelector('.tab .close')?.getAttribute('aria-label')).toBe('Close todo.md (unsaved)');
    } finally {
      i18n.choose('system');
    }
  });

  it('says no note is open, with the new-note icon inside the sentence', () => {
    try {
      i18n.choose('zh-CN');
      setup();
      comp = mount(EditorPane, { target });
      flushSync();
      const hint = target.querySelector('.empty .subtle')!;
      expect(target.querySelector('.empty p')?.textContent).toBe('没有打开的笔记。');
      expect(hint.textContent).toBe('在文件树中选择一篇，或用  新建一篇。'); // the icon between the two spaces
      expect(hint.querySelector('svg')).not.toBeNull();
      i18n.choose('en');
      flushSync();
      expect(target.querySelector('.empty p')?.textContent).toBe('No note is open.');
      expect(hint.textContent).toBe('Pick one in the tree, or make one with .');
      expect(hint.querySelector('svg')).not.toBeNull();
    } finally {
      i18n.choose('system');
    }
  });
});

describe('diffs and turn changes in Chinese and English', () => {
  it('labels a unified diff (new file, line gaps, no changes) and switches live', () => {
    try {
      i18n.choose('zh-CN');
      const text = '--- /dev/null\n+++ b/new.md\n@@ -0,0 +3,2 @@ Heading\n+a\n+b\n';
      comp = mount(UnifiedDiff, { target, props: { text } });
      flushSync();
      const badge = target.querySelector('.badge.accent')!;
      const gap = target.querySelector('.row.gap')!;
      expect(badge.textContent).toBe('新文件');
      expect(gap.textContent).toBe('第 3 行 · Heading');
      i18n.choose('en');
      flushSync();
      expect(target.querySelector('.badge.accent')?.textContent).toBe('new file');
      expect(target.querySelector('.row.gap')?.textContent).toBe('Line 3 · Heading');
      unmount(comp);
      comp = mount(UnifiedDiff, { target, props: { text: '' } });
      flushSync();
      expect(target.querySelector('.empty-only')?.textContent).toBe('No changes.');
      i18n.choose('zh-CN');
      flushSync();
      expect(target.querySelector('.empty-only')?.textContent).toBe('没有更改。');
    } finally {
      i18n.choose('system');
    }
  });

  it('counts a turn’s files with English plurals and in Chinese', () => {
    try {
      i18n.choose('en');
      setup();
      const one = { turn: 2, files: [{ path: 'a.md', op: 'changed' }] };
      comp = mount(TurnChanges, { target, props: { changes: one } as never });
      flushSync();
      const what = target.querySelector('.what')!;
      expect(what.textContent?.replace(/\s+/g, ' ').trim()).toBe('1 file changed: a.md');
      expect(target.querySelector('.go')?.textContent).toBe('Review');
      i18n.choose('zh-CN');
      flushSync();
      expect(what.textContent?.replace(/\s+/g, ' ').trim()).toBe('更改了 1 个文件： a.md');
      expect(target.querySelector('.go')?.textContent).toBe('审阅');
      expect(target.querySelector('[data-testid="turn-changes"]')?.getAttribute('title')).toBe('审阅这一轮更改的文件');
      i18n.choose('en');
      expect(m.editor_turn_files_changed({ count: 3 })).toBe('3 files changed:');
      expect(m.editor_rejected_toast({ count: 2, path: 'a.md' })).toBe('Rejected 2 changes in a.md.');
    } finally {
      i18n.choose('system');
    }
  });

  it('words a refused file request in the language in use', () => {
    try {
      i18n.choose('zh-CN');
      expect(fsRefusedMessage({ sessionId: 's', path: '/etc/passwd', reason: '', outside: true })).toBe(
        '智能体请求访问 /etc/passwd：该位置在笔记文件夹之外，已拒绝。智能体只能访问打开的文件夹中的文件。',
      );
      expect(fsRefusedMessage({ sessionId: 's', path: 'a.md', reason: 'read-only', readOnlyMode: 'plan' })).toBe(
        '智能体试图写入 a.md：会话处于只读模式（plan），已拒绝。切换到其他模式后智能体才能修改文件。',
      );
      i18n.choose('en');
      expect(fsRefusedMessage({ sessionId: 's', path: 'a.md', reason: 'denied' })).toBe('An agent asked for a.md: refused (denied).');
      expect(fsRefusedMessage({ sessionId: 's', path: 'a.md', reason: 'read-only', readOnlyMode: 'plan' })).toBe(
        'An agent tried to write a.md: refused, the session is in a read-only mode (plan). Choose another mode to let it change files.',
      );
    } finally {
      i18n.choose('system');
    }
  });
});

describe('CodeMirror in Chinese and English', () => {
  it('gives CodeMirror the Chinese phrases, and the English ones after a switch (kept states and the view)', async () => {
    const cm = await import('../src/lib/cm');
    const hooks = { change: () => {}, select: () => {} };
    try {
      i18n.choose('zh-CN');
      const kept = cm.makeState('# a\n', hooks);
      expect(kept.phrase('Find')).toBe('查找');
      expect(kept.phrase('replace all')).toBe('全部替换');
      const view = cm.makeView(target, cm.makeState('# b\n', hooks));
      const { openSearchPanel } = await import('@codemirror/search');
      openSearchPanel(view);
      const panel = () => target.querySelector('.cm-search')!;
      expect(panel().querySelector('button[name="next"]')?.textContent).toBe('下一个');
      expect(target.querySelector('.cm-content')?.getAttribute('aria-label')).toBe('笔记正文');

      i18n.choose('en');
      cm.localize(view);
      expect(view.state.phrase('Find')).toBe('Find');
      expect(panel().querySelector('button[name="next"]')?.textContent).toBe('next');
      expect((panel().querySelector('input[name="search"]') as HTMLInputElement).placeholder).toBe('Find');
      expect(target.querySelector('.cm-content')?.getAttribute('aria-label')).toBe('Note text');
      // A tab's state kept while the language changed takes the new words when shown.
      expect(kept.phrase('Find')).toBe('查找');
      const again = cm.localizeState(kept);
      expect(again.phrase('Find')).toBe('Find');
      expect(again.doc.toString()).toBe('# a\n');
      expect(cm.localizeState(again)).toBe(again);
      view.destroy();
    } finally {
      i18n.choose('system');
    }
  });
});
