// A file that is not text (a PDF, a picture…) opens in the desktop's
// program for it instead of a tab; a kind mnote does not open so keeps the
// "not text" message, and a launcher that fails says so.
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '../src/lib/i18n.svelte';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { EditorStore } from '../src/stores/editor.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient } from './helpers';

function store(openInApp: (a: { path: string }) => unknown) {
  const at = (a: Record<string, unknown>) => ({ path: String(a.path) });
  const calls: string[] = [];
  const f = fakeClient({
    'files.open': (args) => {
      const a = at(args);
      throw { code: 'bad_request', message: `${a.path} is not UTF-8 text`, reason: 'not_utf8', params: { path: a.path } };
    },
    'files.openInApp': (args) => {
      const a = at(args);
      calls.push(a.path);
      return openInApp(a);
    },
  });
  const toasts = new ToastStore();
  const ed = new EditorStore(f.client, toasts, new ConfirmStore(), { updateDelayMs: 300, autosaveDelayMs: 1000 });
  return { ed, toasts, calls };
}

describe('opening a file that is not text', () => {
  it('opens a PDF in its program, with no tab', async () => {
    i18n.choose('zh-CN');
    try {
      const { ed, toasts, calls } = store(() => ({}));
      expect(await ed.open('attachments/实验报告.pdf')).toBeNull();
      expect(calls).toEqual(['attachments/实验报告.pdf']);
      expect(ed.tabs).toHaveLength(0);
      expect(toasts.items.map((t) => t.message)).toEqual(['已用对应的程序打开“实验报告.pdf”。']);
    } finally {
      i18n.choose('system');
    }
  });

  it('a kind it does not open keeps the "not text" message', async () => {
    const { ed, toasts, calls } = store((a) => {
      throw { code: 'bad_request', message: 'no', reason: 'not_openable', params: { path: a.path } };
    });
    expect(await ed.open('tool.bin')).toBeNull();
    expect(calls).toEqual(['tool.bin']);
    expect(toasts.items).toHaveLength(1);
    expect(toasts.items[0].level).toBe('error');
    expect(toasts.items[0].message).toMatch(/not UTF-8 text/);
  });

  it('a launcher that fails says so', async () => {
    const warn = vi.fn();
    const { ed, toasts } = store((a) => {
      warn();
      throw { code: 'bad_request', message: 'no desktop', reason: 'no_opener', params: { path: a.path } };
    });
    expect(await ed.open('a.pdf')).toBeNull();
    expect(warn).toHaveBeenCalledOnce();
    expect(toasts.items).toHaveLength(1);
    expect(toasts.items[0].message).toMatch(/No program could be started to open a\.pdf/);
  });
});
