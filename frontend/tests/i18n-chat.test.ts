// The chat speaks the interface language and switches at once: components
// rendered in zh-CN show Chinese, and the same elements show English as
// soon as the language is switched (no remount); texts built outside
// components (store notices, terminal states, form reasons, the Markdown
// copy button) follow too.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PermissionRequest, ToolCall } from '../src/api/types';
import ChatPanel from '../src/components/ChatPanel.svelte';
import PermissionDialog from '../src/components/PermissionDialog.svelte';
import PlanChecklist from '../src/components/PlanChecklist.svelte';
import ToolCard from '../src/components/ToolCard.svelte';
import { permissionTitle } from '../src/components/permtext';
import { KIND_LABEL } from '../src/components/tooltext';
import { buildForm, reasonText } from '../src/lib/elicitation';
import { i18n } from '../src/lib/i18n.svelte';
import { MarkdownStream, renderMarkdown } from '../src/lib/markdown';
import { terminalState } from '../src/lib/terminal';
import { AppState, setApp } from '../src/stores/app.svelte';
import { SessionStore } from '../src/stores/session.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

beforeEach(() => {
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

const text = (sel: string) => target.querySelector(sel)?.textContent?.replace(/\s+/g, ' ').trim();

describe('chat components switch language live', () => {
  it('the chat panel: region, composer placeholder, hints, Send and how the turn ended', async () => {
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => [],
      'sessions.open': () =>
        snapshot('s1', 0, [{ id: 'e1', kind: 'user_message', turn: 1, text: 'hi' }], {
          session: { ...snapshot('s1', 0).session, agent: 'test-agent', lastStopReason: 'max_tokens' },
        }),
    });
    app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    setApp(app);
    await app.openSession('s1');
    app.session.stopReason = 'max_tokens';
    try {
      i18n.choose('zh-CN');
      comp = mount(ChatPanel, { target });
      flushSync();
      const section = target.querySelector('section.chat')!;
      const ta = target.querySelector('textarea')!;
      expect(section.getAttribute('aria-label')).toBe('聊天');
      expect(ta.getAttribute('placeholder')).toBe('给 test-agent 发消息（输入 / 使用命令）');
      expect(ta.getAttribute('aria-label')).toBe('消息');
      expect(text('.hints')).toBe('Enter 发送 Shift+Enter 换行');
      expect(text('button.send')).toBe('发送');
      expect(text('.stopped')).toBe('智能体已停止：达到了 token 上限。');
      expect(text('.agent-chip .subtle')).toBe('· 就绪');

      i18n.choose('en');
      flushSync();
      expect(target.querySelector('textarea')).toBe(ta);
      expect(section.getAttribute('aria-label')).toBe('Chat');
      expect(ta.getAttribute('placeholder')).toBe('Message test-agent — / for commands');
      expect(text('.hints')).toBe('Enter send Shift+Enter newline');
      expect(text('button.send')).toBe('Send');
      expect(text('.stopped')).toBe('The agent stopped: it reached its token limit.');
      expect(text('.agent-chip .subtle')).toBe('· ready');
    } finally {
      i18n.choose('system');
    }
  });

  it('a tool card: kind, status, waiting note and "show more" follow the switch', () => {
    const lines = Array.from({ length: 203 }, (_, i) => `line ${i + 1}`).join('\n');
    const tool: ToolCall = {
      id: 'e1',
      toolCallId: 'tc1',
      title: '',
      kind: 'execute',
      status: 'awaiting_permission',
      content: [{ type: 'content', content: { type: 'text', text: lines } }],
    };
    try {
      i18n.choose('zh-CN');
      comp = mount(ToolCard, { target, props: { tool, onreview: () => {} } });
      flushSync();
      const title = target.querySelector('.title')!;
      const badge = target.querySelector('.badge')!;
      expect(title.textContent).toBe('运行命令');
      expect(badge.textContent?.trim()).toBe('等待授权');
      expect(text('.review .muted')).toBe('智能体正在等待你的答复。');
      expect(target.querySelector('.kind')?.getAttribute('title')).toBe('运行命令');
      expect(text('button.more')).toBe('再显示 3 行');

      i18n.choose('en');
      flushSync();
      // The same elements, now in English.
      expect(target.querySelector('.title')).toBe(title);
      expect(title.textContent).toBe('Run command');
      expect(badge.textContent?.trim()).toBe('Needs permission');
      expect(text('.review .muted')).toBe('The agent is waiting for your answer.');
      expect(text('.review .btn')).toBe('Review');
      expect(text('button.more')).toBe('Show 3 more lines');
    } finally {
      i18n.choose('system');
    }
  });

  it('the permission dialog: heading, queue position, outside-folder warning and Later', async () => {
    vi.spyOn(performance, 'now').mockImplementation(() => 10_000);
    const options = [
      { optionId: 'ao', name: 'Allow once', kind: 'allow_once' as const },
      { optionId: 'ro', name: 'Reject', kind: 'reject_once' as const },
    ];
    const requests: PermissionRequest[] = [
      { requestId: 'r1', toolCallId: 'tc1', title: '', kind: 'edit', options, toolCall: { toolCallId: 'tc1', locations: [{ path: '/etc/hosts' }] } },
      { requestId: 'r2', toolCallId: 'tc2', title: 'Run make', kind: 'execute', options, toolCall: { toolCallId: 'tc2' } },
    ];
    try {
      i18n.choose('zh-CN');
      comp = mount(PermissionDialog, { target, props: { requests, ondecide: () => {}, onhide: () => {}, root: '/home/me/notes' } });
      flushSync();
      await tick();
      const dialog = target.querySelector('[data-testid="permission-dialog"]')!;
      expect(text('header span')).toBe('智能体请求权限');
      expect(text('[data-testid="perm-count"]')).toBe('第 1 个，共 2 个');
      expect(text('[data-testid="perm-title"]')).toBe('编辑 /etc/hosts');
      expect(text('[data-testid="perm-outside"]')).toBe('不在笔记文件夹中');
      expect(target.querySelector('[data-testid="perm-file"]')?.getAttribute('title')).toBe('此文件不在你的笔记文件夹中');
      expect(text('button.later')).toBe('稍后');
      expect(text('button[data-option="ao"]')).toBe('1 仅本次允许');
      expect(text('button[data-option="ro"]')).toBe('2 拒绝');

      i18n.choose('en');
      flushSync();
      expect(target.querySelector('[data-testid="permission-dialog"]')).toBe(dialog);
      expect(text('header span')).toBe('The agent asks for permission');
      expect(text('[data-testid="perm-count"]')).toBe('1 of 2');
      expect(text('[data-testid="perm-title"]')).toBe('Edit /etc/hosts');
      expect(text('[data-testid="perm-outside"]')).toBe('outside the notes folder');
      expect(text('button.later')).toBe('Later');
      expect(text('button[data-option="ao"]')).toBe('1 Allow once');
    } finally {
      vi.restoreAllMocks();
      i18n.choose('system');
    }
  });

  it('the plan checklist: progress, step status for screen readers and priority', () => {
    const plan = [
      { content: 'Read the notes', status: 'completed' as const, priority: 'high' as const },
      { content: 'Write the summary', status: 'in_progress' as const, priority: 'low' as const },
    ];
    try {
      i18n.choose('zh-CN');
      comp = mount(PlanChecklist, { target, props: { plan } });
      flushSync();
      expect(text('.head .label')).toBe('计划');
      expect(text('.head .subtle')).toBe('已完成 1/2');
      expect([...target.querySelectorAll('.sr-only')].map((e) => e.textContent)).toEqual(['已完成：', '进行中：']);
      expect(text('.badge.warn')).toBe('高优先级');
      i18n.choose('en');
      flushSync();
      expect(text('.head .label')).toBe('Plan');
      expect(text('.head .subtle')).toBe('1 of 2 done');
      expect([...target.querySelectorAll('.sr-only')].map((e) => e.textContent)).toEqual(['completed:', 'in progress:']);
      expect(text('.badge.warn')).toBe('high');
    } finally {
      i18n.choose('system');
    }
  });
});

describe('chat texts built outside components follow the language', () => {
  it('store notices are reworded when the language changes', async () => {
    const fc = fakeClient({ 'sessions.open': () => snapshot('s1', 0) });
    const store = new SessionStore(fc.client, manualFrames().schedule);
    await store.open('s1');
    fc.handlers['sessions.setMode'] = () => {
      throw { code: 'bad_request', message: 'no such mode' };
    };
    try {
      i18n.choose('zh-CN');
      await store.setMode('plan');
      const n = store.notices.at(-1)!;
      expect(n).toMatchObject({ level: 'error', code: 'bad_request' });
      expect(n.message).toBe('无法切换模式：no such mode');
      i18n.choose('en');
      expect(store.notices.at(-1)!.message).toBe('Could not change the mode: no such mode');
      // One made while English was in use reads in Chinese once switched.
      fc.handlers['sessions.prompt'] = () => {
        throw { code: 'agent_failed', message: 'the agent exited' };
      };
      expect(await store.prompt('hello')).toBe(false);
      expect(store.notices.at(-1)).toMatchObject({ message: 'Could not send the prompt: the agent exited', action: 'restart' });
      i18n.choose('zh-CN');
      expect(store.notices.at(-1)!.message).toBe('无法发送消息：the agent exited');
      expect(store.notices.at(-2)!.message).toBe('无法切换模式：no such mode');
    } finally {
      i18n.choose('system');
    }
  });

  it('terminal states, form reasons (with plurals), titles and labels', () => {
    const field = buildForm({ type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 3 } } }).fields[0];
    try {
      i18n.choose('zh-CN');
      expect(terminalState({ terminalId: 't', turn: 1, command: 'ls', output: '', exitCode: 2 }).label).toBe('退出码 2');
      expect(terminalState(undefined).label).toBe('未记录输出');
      expect(reasonText(field, 'minLength')).toBe('至少 1 个字符。');
      expect(reasonText(field, 'required')).toBe('此项为必填项。');
      expect(buildForm({ type: 'object', properties: { x: { type: 'object', title: '附件' } } }).unsupported).toBe('字段“附件”的类型无法用表单填写');
      expect(permissionTitle('', 'execute', { rawInput: { command: 'make' } }, undefined)).toBe('运行命令：make');
      expect(KIND_LABEL.read).toBe('读取');
      i18n.choose('en');
      expect(terminalState({ terminalId: 't', turn: 1, command: 'ls', output: '', exitCode: 2 }).label).toBe('Exit 2');
      expect(reasonText(field, 'minLength')).toBe('At least 1 character.');
      expect(reasonText(field, 'maxLength')).toBe('At most 3 characters.');
      expect(permissionTitle('', 'execute', { rawInput: { command: 'make' } }, undefined)).toBe('Run command: make');
      expect(KIND_LABEL.read).toBe('Read');
    } finally {
      i18n.choose('system');
    }
  });

  it('the Markdown copy button speaks the language in use, also for a message already rendered', () => {
    const src = 'Here:\n\n```go\nfmt.Println(1)\n```\n';
    const stream = new MarkdownStream();
    const button = (html: string) => {
      const root = document.createElement('div');
      root.innerHTML = html;
      return root.querySelector('button.copy-btn')!;
    };
    try {
      i18n.choose('zh-CN');
      let b = button(stream.update(src).flat().join(''));
      expect(b.textContent).toBe('复制');
      expect(b.getAttribute('aria-label')).toBe('复制代码');
      expect(button(renderMarkdown(src)).textContent).toBe('复制');
      i18n.choose('en');
      // The same text again: rendered anew (not the cached Chinese HTML).
      b = button(stream.update(src).flat().join(''));
      expect(b.textContent).toBe('Copy');
      expect(b.getAttribute('aria-label')).toBe('Copy code');
      expect(button(renderMarkdown(src)).textContent).toBe('Copy');
    } finally {
      i18n.choose('system');
    }
  });
});
