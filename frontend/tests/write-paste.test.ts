import { afterEach, describe, expect, it, vi } from 'vitest';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { markdownLanguage } from '@codemirror/lang-markdown';
import {
  attachPath,
  fileNameFor,
  isRichHTML,
  linkDest,
  linkFor,
  linkOverSelection,
  pasteAndDrop,
  relativePath,
  safeFileName,
  stamp,
  type PasteHooks,
} from '../src/lib/paste';

/** A paste event carrying data (jsdom has no ClipboardEvent with data): what CodeMirror's handler reads. */
function pasteEvent(data: Record<string, string>, files: File[] = []): Event {
  const e = new Event('paste', { bubbles: true, cancelable: true });
  const items = files.map((f) => ({ kind: 'file', type: f.type, getAsFile: () => f }));
  Object.defineProperty(e, 'clipboardData', {
    value: { getData: (t: string) => data[t] ?? '', items, files, types: Object.keys(data) },
  });
  return e;
}

function editor(doc: string, hooks: PasteHooks, sel?: { anchor: number; head?: number }) {
  const parent = document.createElement('div');
  document.body.append(parent);
  const view = new EditorView({
    state: EditorState.create({ doc, selection: sel, extensions: [markdownLanguage, pasteAndDrop(hooks)] }),
    parent,
  });
  return view;
}

async function until(cond: () => boolean) {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = '';
});

describe('names and links', () => {
  it('names pasted images by the time, keeps dropped files’ names, and links relatively with %20', () => {
    const at = new Date(2026, 11, 7, 13, 15, 0);
    expect(stamp(at)).toBe('20261207-131500');
    const named = (t: string) => `Pasted image ${t}`;
    expect(fileNameFor(new File(['x'], 'image.png', { type: 'image/png' }), at, named)).toBe('Pasted image 20261207-131500.png');
    expect(fileNameFor(new File(['x'], '', { type: 'image/jpeg' }), at, (t) => `粘贴的图片 ${t}`)).toBe('粘贴的图片 20261207-131500.jpg');
    expect(fileNameFor(new File(['x'], '实验 数据.pdf', { type: 'application/pdf' }), at, named)).toBe('实验 数据.pdf');
    expect(safeFileName('../a/b:c*.png')).toBe('a b c .png');
    expect(attachPath('日记/周一.md', 'a.png', { place: 'folder', dir: 'attachments' })).toBe('attachments/a.png');
    expect(attachPath('日记/周一.md', 'a.png', { place: 'beside', dir: 'attachments' })).toBe('日记/a.png');
    expect(attachPath('top.md', 'a.png', { place: 'beside', dir: 'attachments' })).toBe('a.png');
    expect(relativePath('日记/周一.md', 'attachments/a.png')).toBe('../attachments/a.png');
    expect(relativePath('a.md', 'attachments/a.png')).toBe('attachments/a.png');
    expect(relativePath('日记/周一.md', '日记/a.png')).toBe('a.png');
    expect(linkDest('attachments/Pasted image 1 (2).png')).toBe('attachments/Pasted%20image%201%20%282%29.png');
    expect(linkDest('附件/截图.png')).toBe('附件/截图.png');
    expect(linkFor('a.md', 'attachments/报告 [终].pdf', false)).toBe('[报告 \\[终\\].pdf](attachments/%E6%8A%A5%E5%91%8A%20%5B%E7%BB%88%5D.pdf)'.replace('%E6%8A%A5%E5%91%8A', '报告').replace('%E7%BB%88', '终'));
  });

  it('makes a link of a URL pasted over a selection only', () => {
    expect(linkOverSelection('缓存设计', 'https://example.com/a b')).toBe(null);
    expect(linkOverSelection('缓存设计', ' https://example.com/x?y=1 ')).toBe('[缓存设计](https://example.com/x?y=1)');
    expect(linkOverSelection('', 'https://example.com')).toBe(null);
    expect(linkOverSelection('https://a.example', 'https://b.example')).toBe(null);
    expect(linkOverSelection('two\nlines', 'https://b.example')).toBe(null);
    expect(linkOverSelection('word', 'not a url')).toBe(null);
  });

  it('tells rich HTML from styled text', () => {
    expect(isRichHTML('<meta charset="utf-8"><span style="color:red">const x</span><br><div>y</div>')).toBe(false);
    expect(isRichHTML('<p>Hi <a href="https://x.example">x</a></p>')).toBe(true);
    expect(isRichHTML('<h2>标题</h2>')).toBe(true);
    expect(isRichHTML('<ul><li>a</li></ul>')).toBe(true);
  });
});

describe('paste and drop in the editor', () => {
  it('saves a pasted image in the attachments folder and links it at the cursor', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 11, 7, 13, 15, 0));
    const attach = vi.fn(async (_f: Blob, p: string) => p.replace('.png', ' 1.png'));
    const hooks: PasteHooks = { notePath: () => '日记/周一.md', attach, attachPlace: () => ({ place: 'folder', dir: 'attachments' }), pastedImageName: (t) => `Pasted image ${t}` };
    const view = editor('第一行\n', hooks, { anchor: 4 });
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'image.png', { type: 'image/png' });
    const e = pasteEvent({}, [png]);
    view.contentDOM.dispatchEvent(e);
    expect(e.defaultPrevented).toBe(true);
    expect(attach).toHaveBeenCalledWith(png, 'attachments/Pasted image 20261207-131500.png');
    await until(() => view.state.doc.toString() !== '第一行\n');
    expect(view.state.doc.toString()).toBe('第一行\n![](../attachments/Pasted%20image%2020261207-131500%201.png)');
  });

  it('a failed save inserts nothing', async () => {
    const attach = vi.fn(async () => null);
    const view = editor('x', { notePath: () => 'a.md', attach });
    view.contentDOM.dispatchEvent(pasteEvent({}, [new File(['a'], 'a.pdf', { type: 'application/pdf' })]));
    await until(() => attach.mock.calls.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(view.state.doc.toString()).toBe('x');
  });

  it('links a dropped file by its name where it was dropped', async () => {
    const attach = vi.fn(async (_f: Blob, p: string) => p);
    const view = editor('前文', { notePath: () => 'a.md', attach, attachPlace: () => ({ place: 'beside', dir: 'attachments' }) }, { anchor: 2 });
    const e = new Event('drop', { bubbles: true, cancelable: true });
    const f = new File(['%PDF'], '实验 报告.pdf', { type: 'application/pdf' });
    Object.defineProperty(e, 'dataTransfer', { value: { items: [{ kind: 'file', getAsFile: () => f }], files: [f] } });
    view.contentDOM.dispatchEvent(e);
    expect(attach).toHaveBeenCalledWith(f, '实验 报告.pdf');
    await until(() => view.state.doc.toString() !== '前文');
    expect(view.state.doc.toString()).toBe('前文[实验 报告.pdf](实验%20报告.pdf)');
  });

  it('a note dragged from the file tree is linked as [[its name]], a picture shown, a folder not at all', () => {
    const drop = (view: EditorView, data: Record<string, string>) => {
      const e = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(e, 'dataTransfer', { value: { getData: (t: string) => data[t] ?? '', items: [], files: [] } });
      view.contentDOM.dispatchEvent(e);
      return e;
    };
    const wikiTarget = (p: string) => (p === '归档/缓存设计.md' ? '归档/缓存设计' : p.replace(/^.*\//, '').replace(/\.md$/, ''));
    const view = editor('见', { notePath: () => '日记/周一.md', wikiTarget }, { anchor: 1 });
    expect(drop(view, { 'text/x-mnote-path': '笔记/实验记录.md', 'text/plain': '笔记/实验记录.md' }).defaultPrevented).toBe(true);
    expect(view.state.doc.toString()).toBe('见[[实验记录]]');
    drop(view, { 'text/x-mnote-path': '归档/缓存设计.md' }); // its name finds another note first: its path
    drop(view, { 'text/x-mnote-path': '附件/图 1.png' });
    drop(view, { 'text/x-mnote-path': '附件', 'text/x-mnote-kind': 'dir' });
    expect(view.state.doc.toString()).toBe('见[[实验记录]][[归档/缓存设计]]![](../附件/图%201.png)');
  });

  it('pastes a URL over a selection as a link, and HTML as Markdown', async () => {
    const view = editor('看缓存设计吧', {}, { anchor: 1, head: 5 });
    const e = pasteEvent({ 'text/plain': 'https://example.com/cache' });
    view.contentDOM.dispatchEvent(e);
    expect(e.defaultPrevented).toBe(true);
    expect(view.state.doc.toString()).toBe('看[缓存设计](https://example.com/cache)吧');

    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '' } });
    const html = '<meta charset="utf-8"><h2>缓存</h2><p><strong>命中率</strong>见 <a href="https://example.com">文档</a></p><ul><li>一</li><li>二</li></ul><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>';
    view.contentDOM.dispatchEvent(pasteEvent({ 'text/html': html, 'text/plain': '缓存 命中率见文档 一 二' }));
    await until(() => view.state.doc.length > 0);
    const md = view.state.doc.toString();
    expect(md).toContain('## 缓存');
    expect(md).toContain('**命中率**见 [文档](https://example.com)');
    expect(md).toMatch(/-\s+一\n-\s+二/);
    expect(md).toContain('| a | b |');
  });

  it('keeps a plain paste plain: styled text, and anything in a code block', async () => {
    const view = editor('```\ncode\n```\n', {}, { anchor: 8 });
    view.contentDOM.dispatchEvent(pasteEvent({ 'text/html': '<span style="color:red">const x = 1</span>', 'text/plain': 'const x = 1' }));
    expect(view.state.doc.toString()).toBe('```\ncodeconst x = 1\n```\n');
    view.contentDOM.dispatchEvent(pasteEvent({ 'text/html': '<h1>标题</h1><p><a href="https://x.example">x</a></p>', 'text/plain': '# 标题' }));
    await new Promise((r) => setTimeout(r, 20));
    expect(view.state.doc.toString()).toBe('```\ncodeconst x = 1# 标题\n```\n');
  });
});
