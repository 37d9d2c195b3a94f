// The agents and share areas in both languages: the components render in
// Chinese, and switching the language changes the same elements at once
// (no remount); plurals follow English rules and not Chinese ones.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/api/types';
import AgentInstall from '../src/components/AgentInstall.svelte';
import AgentLogin from '../src/components/AgentLogin.svelte';
import AgentPicker from '../src/components/AgentPicker.svelte';
import RuntimeSelector from '../src/components/RuntimeSelector.svelte';
import ShareDialog from '../src/components/ShareDialog.svelte';
import { goMessage, i18n, m } from '../src/lib/i18n.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comps: Record<string, unknown>[] = [];
let app: AppState | null = null;

function agent(name: string, title: string, status: Agent['status'], extra: Partial<Agent> = {}): Agent {
  return { name, title, command: name, args: [], builtin: true, status, notesTools: true, ...extra };
}

const AGENTS: Agent[] = [
  agent('qwen', 'Qwen Code', 'ready', { keys: ['OPENAI_API_KEY'] }),
  agent('claude-code', 'Claude Code', 'missing', { hint: 'npm i -g @anthropic-ai/claude-code' }),
];

function setup() {
  const f = fakeClient({
    'sessions.list': () => [],
    'sessions.open': (a) => snapshot(String(a.id), 0),
    'agents.list': () => AGENTS,
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  const feats = new Features(app, { download: () => {}, pollMs: 60_000 });
  setFeatures(app, feats);
  return { app, feats };
}

function text(sel: string): string {
  return target.querySelector(sel)?.textContent?.trim() ?? '';
}

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  for (const c of comps) unmount(c);
  comps = [];
  app?.stop();
  app = null;
  target.remove();
  i18n.choose('system');
});

describe('agents in Chinese and English', () => {
  it('the agent picker switches language in place', () => {
    try {
      i18n.choose('zh-CN');
      // No agent is picked: the button asks for one.
      comps.push(mount(AgentPicker, { target, props: { agents: AGENTS, selected: 'none', onpick: () => {}, onmanage: () => {}, onadd: () => {} } }));
      flushSync();
      const trigger = target.querySelector<HTMLButtonElement>('button.trigger')!;
      const name = trigger.querySelector('.name')!;
      expect(name.textContent).toBe('选择智能体');
      trigger.click();
      flushSync();
      const tag = target.querySelector('[role="option"][data-name="claude-code"] .tag')!;
      const search = target.querySelector<HTMLInputElement>('input[role="combobox"]')!;
      const manage = target.querySelector('button[data-action="manage"]')!;
      const add = target.querySelector('button[data-action="add"]')!;
      expect(tag.textContent).toBe('未安装');
      expect(search.placeholder).toBe('搜索智能体');
      expect(search.getAttribute('aria-label')).toBe('搜索智能体');
      expect(manage.textContent).toBe('管理智能体…');
      expect(add.textContent).toBe('添加自己的智能体…');

      i18n.choose('en');
      flushSync();
      // The same elements, now in English.
      expect(tag.isConnected).toBe(true);
      expect(tag.textContent).toBe('not installed');
      expect(search.placeholder).toBe('Search agents');
      expect(manage.textContent).toBe('Manage agents…');
      expect(add.textContent).toBe('Add your own agent…');
      expect(name.textContent).toBe('Choose an agent');
    } finally {
      i18n.choose('system');
    }
  });

  it('the agents dialog: status, key count, install and actions follow the language', async () => {
    try {
      const { app } = setup();
      await app.agents.refresh();
      i18n.choose('zh-CN');
      comps.push(mount(RuntimeSelector, { target }));
      flushSync();
      const title = target.querySelector('#rt-title')!;
      const qwen = [...target.querySelectorAll<HTMLElement>('.agent')].find((x) => x.textContent?.includes('Qwen Code'))!;
      const badges = () => [...qwen.querySelectorAll('.badge')].map((b) => b.textContent?.trim());
      expect(title.textContent).toBe('智能体');
      expect(badges()).toEqual(['就绪', '1 个密钥']);
      expect(qwen.querySelector('.badge[title]')?.getAttribute('title')).toBe('mnote 为它保存的密钥：OPENAI_API_KEY');
      expect(text('.use-bar > span')).toBe('新会话使用');
      expect(text('.use-bar button.trigger .name')).toBe('Qwen Code');
      expect(text('[data-testid="agent-install"]')).toContain('安装命令：');
      expect(target.querySelector('header .icon-btn')?.getAttribute('aria-label')).toBe('关闭');
      expect(target.textContent).not.toMatch(/Ready|Not installed|Add a custom agent/);

      i18n.choose('en');
      flushSync();
      expect(title.textContent).toBe('Agents');
      expect(badges()).toEqual(['Ready', '1 key']);
      expect(text('.use-bar > span')).toBe('New sessions use');
      expect(text('[data-testid="agent-install"]')).toContain('Install it with:');
      expect(target.querySelector('header .icon-btn')?.getAttribute('aria-label')).toBe('Close');
    } finally {
      i18n.choose('system');
    }
  });

  it('the share dialog: expiry choices and the sync warning follow the language', async () => {
    try {
      const { feats } = setup();
      feats.share.open('s1');
      await feats.sync.refresh();
      i18n.choose('zh-CN');
      comps.push(mount(ShareDialog, { target }));
      flushSync();
      const options = () => [...target.querySelectorAll('#share-expiry option')].map((o) => o.textContent);
      const heading = target.querySelector('#share-title')!;
      expect(heading.textContent).toBe('分享会话');
      expect(options()).toEqual(['永不过期（直到撤销分享）', '1 天', '7 天', '30 天']);
      expect(target.textContent).toContain('同步已关闭。');

      i18n.choose('en');
      flushSync();
      expect(heading.textContent).toBe('Share the session');
      expect(options()).toEqual(['Never (until revoked)', 'In 1 day', 'In 7 days', 'In 30 days']);
      expect(target.textContent).toContain('Sync is off.');
    } finally {
      i18n.choose('system');
    }
  });

  it('a preset’s login hint and install note come from the catalogue, not Go’s English', () => {
    try {
      setup();
      const goose = agent('goose', 'goose', 'missing', {
        hint: 'brew install block-goose-cli',
        installNote: 'Or see https://block.github.io/goose for the other ways to install it.',
        installNoteKey: 'agents_preset_goose_install_note',
        loginHint: 'run `goose configure` to pick a provider and enter its key',
        loginHintKey: 'agents_preset_goose_login',
      });
      i18n.choose('zh-CN');
      comps.push(mount(AgentInstall, { target, props: { agent: goose } }));
      comps.push(mount(AgentLogin, { target, props: { agent: goose } }));
      flushSync();
      const note = target.querySelector('[data-testid="install-note"]')!;
      const login = target.querySelector('[data-testid="agent-login"] .hint')!;
      expect(text('[data-testid="install-command"]')).toBe('brew install block-goose-cli');
      expect(note.textContent).toBe('其他安装方式见 https://block.github.io/goose。');
      expect(login.textContent?.trim()).toBe('运行 `goose configure` 选择服务商并输入它的密钥');
      expect(target.textContent).not.toMatch(/other ways to install|pick a provider/);

      i18n.choose('en');
      flushSync();
      expect(note.textContent).toBe(goose.installNote);
      expect(login.textContent?.trim()).toBe(goose.loginHint);
      // A key this page does not know (a newer Go side): Go's English.
      i18n.choose('zh-CN');
      expect(goMessage('agents_preset_newer_login', 'run `newer login`')).toBe('run `newer login`');
      expect(goMessage(undefined, undefined)).toBe('');
    } finally {
      i18n.choose('system');
    }
  });

  it('plurals: English agrees with each count, Chinese has one form', () => {
    try {
      i18n.choose('en');
      expect(m.share_removed_data({ sessions: 1, shares: 2 })).toBe(
        'Removed from the control plane: 1 session record and 2 shares. Sync is off.',
      );
      expect(m.share_removed_data({ sessions: 0, shares: 1 })).toContain('0 session records and 1 share.');
      expect(m.agents_key_count({ count: 3 })).toBe('3 keys');
      i18n.choose('zh-CN');
      expect(m.share_removed_data({ sessions: 1, shares: 2 })).toBe('已从控制平面删除 1 条会话记录和 2 个分享。同步已关闭。');
      expect(m.agents_key_count({ count: 1 })).toBe('1 个密钥');
    } finally {
      i18n.choose('system');
    }
  });
});
