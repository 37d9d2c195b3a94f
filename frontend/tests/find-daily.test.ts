// The daily note's path and the templates' variables.
import { describe, expect, it } from 'vitest';
import { DAILY_DEFAULTS, dailyPath, fillTemplate, formatDate } from '../src/stores/find.svelte';

const day = new Date(2026, 11, 7, 9, 5, 3);

describe('daily note', () => {
  it('is named by the date format in the daily folder', () => {
    expect(dailyPath(DAILY_DEFAULTS, day)).toBe('Daily/2026-12-07.md');
    expect(dailyPath({ ...DAILY_DEFAULTS, dailyFolder: '/日记/', dailyFormat: 'YYYY/MM/YYYY年M月D日' }, day)).toBe('日记/2026/12/2026年12月7日.md');
    expect(dailyPath({ ...DAILY_DEFAULTS, dailyFolder: '', dailyFormat: '[Day] YY.MM.DD' }, day)).toBe('Day 26.12.07.md');
    expect(dailyPath({ ...DAILY_DEFAULTS, dailyFormat: '' }, day)).toBe('Daily/2026-12-07.md');
  });

  it('fills {{date}}, {{time}}, {{title}} and formats', () => {
    expect(formatDate('YYYY-MM-DD HH:mm:ss', day)).toBe('2026-12-07 09:05:03');
    const t = '# {{title}}\n日期：{{date}} {{ time }}\n{{date:YYYY年M月D日}} {{time:H点}} {{TITLE}} {{other}}';
    expect(fillTemplate(t, { now: day, title: '2026-12-07', dateFormat: 'YYYY-MM-DD' })).toBe(
      '# 2026-12-07\n日期：2026-12-07 09:05\n2026年12月7日 9点 2026-12-07 {{other}}',
    );
  });
});

describe('Quick Open’s list of notes', () => {
  it('has the titles once the index is ready, and the tree’s names before', async () => {
    const { AppState } = await import('../src/stores/app.svelte');
    const { getFind } = await import('../src/stores/find.svelte');
    const { fakeClient, manualFrames } = await import('./helpers');
    let ready = false;
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => [],
      'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
      'workspace.tree': () => ({
        name: 'w',
        path: '',
        dir: true,
        children: [
          { name: '设计', path: '设计', dir: true, children: [{ name: '缓存设计.md', path: '设计/缓存设计.md' }] },
          { name: 'a.md', path: 'a.md' },
          { name: 'pic.png', path: 'pic.png' },
        ],
      }),
      'notes.status': () => ({ dir: '/w', ready, done: 0, total: 2, notes: 0, tooBig: 0, notText: 0 }),
      'notes.titles': () => [{ path: 'a.md', title: '甲' }, { path: '设计/缓存设计.md' }],
    });
    const app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    await app.workspace.refresh();
    await app.notes.loadStatus();
    const find = getFind(app);
    expect(await find.entries()).toEqual([
      { path: 'a.md', name: 'a', title: '' },
      { path: '设计/缓存设计.md', name: '缓存设计', title: '' },
    ]);
    ready = true;
    await app.notes.loadStatus();
    expect(await find.entries()).toEqual([
      { path: 'a.md', name: 'a', title: '甲' },
      { path: '设计/缓存设计.md', name: '缓存设计', title: '' },
    ]);
  });
});

describe('the daily note’s settings', () => {
  it('belong to the open folder: another folder keeps its own, a new one starts from the settings kept before', async () => {
    const { AppState } = await import('../src/stores/app.svelte');
    const { getFind } = await import('../src/stores/find.svelte');
    const { fakeClient, manualFrames } = await import('./helpers');
    localStorage.clear();
    localStorage.setItem('mnote.daily.folder', '旧日记'); // written before settings were per folder
    let dir = '/笔记/工作';
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => [],
      'workspace.get': () => ({ dir, name: 'w', recent: [], canPick: false }),
      'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
    });
    const app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    await app.workspace.load();
    const find = getFind(app);
    expect(find.settings.dailyFolder).toBe('旧日记');
    find.setSetting('dailyFolder', ' 日记/工作 ');
    find.setSetting('dailyFormat', 'YYYY年M月D日');
    expect(find.settings).toMatchObject({ dailyFolder: '日记/工作', dailyFormat: 'YYYY年M月D日' });
    dir = '/笔记/生活';
    await app.workspace.load();
    expect(find.settings).toMatchObject({ dailyFolder: '旧日记', dailyFormat: DAILY_DEFAULTS.dailyFormat });
    find.setSetting('dailyFolder', '生活');
    dir = '/笔记/工作';
    await app.workspace.load();
    expect(find.settings).toMatchObject({ dailyFolder: '日记/工作', dailyFormat: 'YYYY年M月D日' });
    localStorage.clear();
  });
});
