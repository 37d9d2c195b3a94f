// The export dialog and its store in both languages: every word of the
// dialog, the format hints and the toasts follow the interface's language
// (switching takes effect at once, in an open dialog too), and the export
// request carries that language so Go words the file's labels in it.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import ExportDialog from '../src/components/ExportDialog.svelte';
import { i18n } from '../src/lib/i18n.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { ExportStore, FORMATS } from '../src/stores/exports.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function setup(exported: Record<string, unknown> | (() => never)) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
    'sessions.export': typeof exported === 'function' ? exported : () => exported,
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  setApp(app);
  const download = vi.fn();
  const feats = new Features(app, { download, pollMs: 60_000 });
  setFeatures(app, feats);
  return { ...f, app, feats, download };
}

function dialogText(): string {
  return document.querySelector('[role="dialog"]')?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
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
  target.remove();
  i18n.choose('system');
});

describe('export dialog in Chinese and English', () => {
  it('shows every word in Chinese, sends locale zh-CN, and says where the file went in Chinese', async () => {
    i18n.choose('zh-CN');
    const { feats, call } = setup({ filename: '整理-笔记.html', mime: 'text/html', content: '', path: '/home/me/笔记/整理-笔记.html' });
    feats.exports.open('s1', 'html');
    comp = mount(ExportDialog, { target });
    flushSync();
    const text = dialogText();
    for (const want of ['导出会话', '格式', 'Markdown', 'HTML', 'JSONL', '单个独立的网页，默认已脱敏', '脱敏', '包含思考过程', '包含工具调用的输入和输出', '取消', '导出…']) {
      expect(text).toContain(want);
    }
    expect(text).not.toMatch(/Export|Format|Redact|Include|Cancel/);
    const close = document.querySelector<HTMLButtonElement>('[role="dialog"] header button')!;
    expect(close.getAttribute('aria-label')).toBe('关闭');
    expect(document.querySelector('[role="radiogroup"]')?.getAttribute('aria-label')).toBe('格式');

    // Unticking Redact warns, in Chinese.
    document.querySelector<HTMLInputElement>('input[type="checkbox"]')!.click();
    flushSync();
    expect(dialogText()).toContain('未脱敏：文件中可能含有密钥和本地路径，请勿外传。');

    document.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(feats.exports.sessionId).toBeNull());
    expect(call).toHaveBeenCalledWith('sessions.export', { id: 's1', format: 'html', redact: false, images: true, locale: 'zh-CN' });
    expect(app!.toasts.items.at(-1)?.message).toBe('已保存到 /home/me/笔记/整理-笔记.html');
  });

  it('follows a switch of language at once, in the open dialog and in the formats’ hints', async () => {
    i18n.choose('en');
    const { feats, call, download } = setup({ filename: 'notes.md', mime: 'text/markdown', content: '# hi' });
    feats.exports.open('s1', 'md');
    comp = mount(ExportDialog, { target });
    flushSync();
    expect(dialogText()).toContain('Export the session');
    expect(dialogText()).toContain('readable text, redacted by default');
    expect(FORMATS.map((f) => f.hint)).toEqual([
      'readable text, redacted by default',
      'one self-contained page, redacted by default',
      'the full transcript, every protocol message (not redacted by default)',
    ]);

    i18n.choose('zh-CN');
    flushSync();
    await tick();
    expect(dialogText()).toContain('导出会话');
    expect(dialogText()).toContain('易读的文本，默认已脱敏');
    expect(dialogText()).not.toContain('Export the session');
    expect(FORMATS[2].hint).toBe('完整的会话记录，包含每一条协议消息（默认不脱敏）');

    // The request takes the language in use when it is sent.
    document.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(download).toHaveBeenCalledWith('notes.md', 'text/markdown', '# hi'));
    expect(call).toHaveBeenCalledWith('sessions.export', { id: 's1', format: 'md', redact: true, images: true, locale: 'zh-CN' });
    expect(app!.toasts.items.at(-1)?.message).toBe('已下载 notes.md');
  });

  it('says in either language when the browser could not download the file', () => {
    for (const [lang, want] of [
      ['en', 'Could not download a.md: disk full'],
      ['zh-CN', '无法下载 a.md：disk full'],
    ] as const) {
      i18n.choose(lang);
      const { client } = setup({});
      const store = new ExportStore(client, app!.toasts, () => {
        throw new Error('disk full');
      });
      expect(store.deliver({ filename: 'a.md', mime: 'text/markdown', content: 'x' })).toBe('failed');
      expect(app!.toasts.items.at(-1)?.message).toBe(want);
    }
  });
});
