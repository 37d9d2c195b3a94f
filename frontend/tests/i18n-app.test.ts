// The app's shell in both languages: Settings, the sessions list, its
// toasts and the empty state render in Chinese, and switching the language
// (in Settings, or i18n.choose) changes the text on screen at once, with no
// remount — including a toast already showing.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/errors';
import type { Agent, PermissionRule } from '../src/api/types';
import EmptyState from '../src/components/EmptyState.svelte';
import SettingsDialog from '../src/components/SettingsDialog.svelte';
import Sidebar from '../src/components/Sidebar.svelte';
import Toasts from '../src/components/Toasts.svelte';
import { i18n, m } from '../src/lib/i18n.svelte';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames, summary } from './helpers';

let target: HTMLElement;
let comps: Record<string, unknown>[] = [];

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  for (const c of comps.splice(0)) unmount(c);
  target.remove();
  setApp(null);
});

function agent(name: string, title: string): Agent {
  return { name, title, command: name, args: [], builtin: true, status: 'ready', notesTools: true };
}

const rule: PermissionRule = {
  agent: 'claude',
  workspace: '/home/me/notes',
  toolKind: 'execute',
  optionKind: 'allow_always',
  decision: 'allow',
  createdMs: 1,
};

function makeApp(handlers: Parameters<typeof fakeClient>[0] = {}) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [agent('qwen', 'Qwen Code')],
    'workspace.get': () => ({ dir: '/home/me/notes', name: 'notes', recent: [] }),
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
    'permissions.rules': () => [rule],
    ...handlers,
  });
  const app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  setFeatures(app, new Features(app, { pollMs: 60_000 }));
  return { ...f, app };
}

const text = (sel: string) => target.querySelector(sel)?.textContent?.trim();

describe('the app shell in zh-CN and English', () => {
  it('Settings shows Chinese, and its Language menu switches the dialog to English at once', async () => {
    try {
      i18n.choose('zh-CN');
      makeApp();
      comps.push(mount(SettingsDialog, { target }));
      flushSync();
      expect(text('#settings-title')).toBe('设置');
      expect(text('#look-h')).toBe('外观');
      expect(target.querySelector('input[name="theme"][value="dark"]')?.parentElement?.textContent?.trim()).toBe('深色');
      expect(target.querySelector('[aria-label="关闭"]')).not.toBeNull();
      const row = await vi.waitFor(() => {
        const r = target.querySelector('[data-testid="rule-row"]');
        expect(r).not.toBeNull();
        return r!;
      });
      expect(row.textContent).toContain('始终允许');
      expect(row.textContent).toContain('当前笔记文件夹');
      expect(row.textContent).toContain('撤销授权');
      const status = await vi.waitFor(() => {
        expect(text('[data-testid="sync-status"]')).toContain('尚未设置');
        return text('[data-testid="sync-status"]');
      });
      expect(status).not.toMatch(/Not set up/);

      const select = target.querySelector<HTMLSelectElement>('[data-testid="locale-select"]')!;
      expect(select.value).toBe('zh-CN');
      expect([...select.options].map((o) => o.textContent)).toEqual(['跟随系统（English）', 'English', '简体中文']);
      select.value = 'en';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      flushSync();

      // The same elements, now in English: no reload, no remount.
      expect(i18n.locale).toBe('en');
      expect(document.documentElement.lang).toBe('en');
      expect(localStorage.getItem('mnote.locale')).toBe('en');
      expect(text('#settings-title')).toBe('Settings');
      expect(text('#look-h')).toBe('Appearance');
      expect(target.querySelector('input[name="theme"][value="dark"]')?.parentElement?.textContent?.trim()).toBe('Dark');
      expect(row.isConnected).toBe(true);
      expect(row.textContent).toContain('Always allowed');
      expect(row.textContent).toContain('this notes folder');
      expect(row.textContent).not.toContain('始终允许');
      expect(text('[data-testid="sync-status"]')).toMatch(/^Not set up/);
      expect([...select.options].map((o) => o.textContent)).toEqual(['System (English)', 'English', '简体中文']);
    } finally {
      i18n.choose('system');
    }
  });

  it('the sessions list and a delete toast already showing follow the switch', async () => {
    try {
      i18n.choose('zh-CN');
      let list = [summary('a', { title: '' }), summary('b', { title: 'Plans' })];
      const { app } = makeApp({
        'sessions.list': () => list,
        'sessions.delete': (args) => {
          list = list.filter((s) => s.id !== args.id);
          return null;
        },
      });
      comps.push(mount(Sidebar, { target }));
      comps.push(mount(Toasts, { target }));
      flushSync();
      await vi.waitFor(() => expect(target.querySelectorAll('.history button.open')).toHaveLength(2));
      const search = target.querySelector<HTMLInputElement>('[data-testid="search-input"]')!;
      expect(search.placeholder).toBe('搜索会话');
      const untitled = target.querySelector('.history button.open .title')!;
      expect(untitled.textContent).toBe('未命名会话');
      expect(target.querySelector('.history .row-actions button')?.getAttribute('title')).toBe('重命名（F2）');

      await app.deleteSession('b');
      flushSync();
      const toast = target.querySelector('.toast')!;
      expect(toast.querySelector('.msg')?.textContent).toBe('已删除“Plans”');
      expect(toast.querySelector('.action')?.textContent).toBe('撤销');
      expect(toast.querySelector('.close')?.getAttribute('aria-label')).toBe('关闭');

      i18n.choose('en');
      flushSync();
      expect(search.placeholder).toBe('Search sessions');
      expect(untitled.isConnected).toBe(true);
      expect(untitled.textContent).toBe('Untitled session');
      expect(target.querySelector('.history .row-actions button')?.getAttribute('title')).toBe('Rename (F2)');
      // The toast is the same element, its text now English.
      expect(toast.isConnected).toBe(true);
      expect(toast.querySelector('.msg')?.textContent).toBe('Deleted “Plans”');
      expect(toast.querySelector('.action')?.textContent).toBe('Undo');
      expect(app.toasts.items.at(-1)?.message).toBe('Deleted “Plans”');
    } finally {
      i18n.choose('system');
    }
  });

  it('the empty state and a fallback error message are translated', async () => {
    try {
      i18n.choose('zh-CN');
      makeApp();
      comps.push(mount(EmptyState, { target }));
      flushSync();
      const start = await vi.waitFor(() => {
        const b = target.querySelector<HTMLButtonElement>('.start .btn.primary');
        expect(b?.textContent?.trim()).toBe('用 Qwen Code 新建会话');
        return b!;
      });
      expect(text('.card > p.muted')).toBe('与本地 AI 智能体围绕你的 Markdown 笔记对话。');
      expect([...target.querySelectorAll('.keys dd')].map((d) => d.textContent)).toEqual(['新建会话', '搜索会话', '聚焦输入框', '打开笔记', '停止智能体']);
      expect(ApiError.from('').message).toBe('未知错误');

      i18n.choose('en');
      flushSync();
      expect(start.textContent?.trim()).toBe('New session with Qwen Code');
      expect([...target.querySelectorAll('.keys dd')].map((d) => d.textContent)).toEqual([
        'new session',
        'search sessions',
        'focus the prompt',
        'open a note',
        'stop the agent',
      ]);
      expect(ApiError.from('').message).toBe('Unknown error');
    } finally {
      i18n.choose('system');
    }
  });

  it('a question asked with catalogue texts follows the switch while it shows', async () => {
    try {
      i18n.choose('zh-CN');
      const confirm = new ConfirmStore();
      const answer = confirm.ask({
        title: m.app_settings,
        message: () => m.app_deleted({ title: 'x' }),
        buttons: [
          { label: m.common_cancel, value: 'cancel' },
          { label: 'OK', value: 'ok', kind: 'primary' },
        ],
      });
      const q = confirm.current!;
      expect([q.title, q.message, q.buttons[0].label, q.buttons[1].label]).toEqual(['设置', '已删除“x”', '取消', 'OK']);
      i18n.choose('en');
      expect(confirm.current).toBe(q);
      expect([q.title, q.message, q.buttons[0].label, q.buttons[1].label]).toEqual(['Settings', 'Deleted “x”', 'Cancel', 'OK']);
      expect(q.buttons[1].kind).toBe('primary');
      confirm.answer('ok');
      expect(await answer).toBe('ok');
    } finally {
      i18n.choose('system');
    }
  });
});
