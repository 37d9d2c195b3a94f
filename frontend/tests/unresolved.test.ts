import { describe, expect, it, vi } from 'vitest';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { markdown } from '@codemirror/lang-markdown';
import { linksInLine } from '../src/lib/links';
import { NoteNames, isFileTarget, linkResolves, notePathsOf } from '../src/lib/unresolved';
import { refreshLinks, unresolvedLinks } from '../src/lib/cmlinks';
import { linkCommands, NotesStore } from '../src/stores/notes.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { fakeClient } from './helpers';

const names = new NoteNames(['缓存设计.md', '日记/周一.md', 'archive/Ideas.md', 'projects/Ideas.md', 'Ideas.md', 'pic.png', 'v1.2.md']);

function wiki(s: string) {
  const l = linksInLine(s)[0];
  if (!l) throw new Error('no link in ' + s);
  return l;
}

describe('NoteNames and linkResolves', () => {
  it('resolves wikilinks by name, case-insensitively, and by path ends', () => {
    expect(names.wiki('x.md', '缓存设计')).toBe('缓存设计.md');
    expect(names.wiki('x.md', 'ideas')).toBe('Ideas.md');
    expect(names.wiki('archive/log.md', 'Ideas')).toBe('archive/Ideas.md'); // beside the linking note first
    expect(names.wiki('x.md', 'projects/Ideas')).toBe('projects/Ideas.md');
    expect(names.wiki('x.md', '周一.md')).toBe('日记/周一.md');
    expect(names.wiki('x.md', '实验记录')).toBe('');
    expect(names.wiki('x.md', 'other/Ideas')).toBe('');
  });
  it('tells resolved, unresolved and not-a-note links apart', () => {
    expect(linkResolves(names, 'x.md', wiki('[[缓存设计#命中率|命中]]'))).toBe(true);
    expect(linkResolves(names, 'x.md', wiki('[[实验记录]]'))).toBe(false);
    expect(linkResolves(names, 'x.md', wiki('[[#标题]]'))).toBe(true);
    expect(linkResolves(names, 'x.md', wiki('[[v1.2]]'))).toBe(true);
    expect(linkResolves(names, 'x.md', wiki('[[pic.png]]'))).toBeNull(); // an attachment
    expect(linkResolves(names, '日记/周二.md', wiki('[a](周一.md)'))).toBe(true);
    expect(linkResolves(names, '日记/周二.md', wiki('[a](../计划.md)'))).toBe(false);
    expect(linkResolves(names, 'x.md', wiki('[a](https://x.org/a.md)'))).toBeNull();
    expect(linkResolves(names, 'x.md', wiki('[a](pic.png)'))).toBeNull();
    expect(linkResolves(null, 'x.md', wiki('[[实验记录]]'))).toBeNull(); // the notes are not known yet
  });
  it('reads attachments and tree paths', () => {
    expect(isFileTarget('a.PNG')).toBe(true);
    expect(isFileTarget('v1.2')).toBe(false);
    expect(isFileTarget('Dr. Who')).toBe(false);
    expect(
      notePathsOf({ name: '', path: '', dir: true, children: [{ name: 'a', path: 'a', dir: true, children: [{ name: 'b.md', path: 'a/b.md' }] }, { name: 'c.png', path: 'c.png' }] }),
    ).toEqual(['a/b.md']);
  });
});

describe('the editor marks unresolved links', () => {
  it('marks [[实验记录]] but not a resolved link, a link in code or an attachment; again when the notes change', async () => {
    let known = names;
    const state = EditorState.create({
      doc: '读了 [[缓存设计]] 和 [[实验记录]]。\n\n`[[代码里]]`\n\n```\n[[围栏里]]\n```\n![[pic.png]] [计划](计划.md)\n',
      extensions: [markdown(), unresolvedLinks((l) => linkResolves(known, 'x.md', l), () => '无此笔记，Ctrl+点击创建')],
    });
    const parent = document.createElement('div');
    document.body.append(parent);
    const view = new EditorView({ state, parent });
    const marked = () => [...parent.querySelectorAll('.cm-link-unresolved')].map((e) => e.textContent);
    // The parse may finish later (a loaded machine): the marks follow it.
    await vi.waitFor(() => expect(marked()).toEqual(['[[实验记录]]', '[计划](计划.md)']));
    expect(parent.querySelector('.cm-link-unresolved')?.getAttribute('title')).toBe('无此笔记，Ctrl+点击创建');
    known = new NoteNames(['缓存设计.md', '实验/实验记录.md']);
    view.dispatch({ effects: refreshLinks.of(null) });
    await vi.waitFor(() => expect(marked()).toEqual(['[计划](计划.md)']));
    view.dispatch({ changes: { from: 0, insert: '[[新的]] ' } });
    await vi.waitFor(() => expect(marked()).toEqual(['[[新的]]', '[计划](计划.md)']));
    view.destroy();
    parent.remove();
  });
});

describe('the notes store: unresolved lists and commands', () => {
  it('lists the open note’s unresolved links beside its backlinks, and the folder’s while shown; the commands rename and show them', async () => {
    localStorage.clear();
    const link = (from: string, line: number, target: string) => ({ from, line, context: '', target, wiki: true });
    const f = fakeClient({
      'notes.backlinks': () => [],
      'notes.unresolved': (a) => (a.path ? [link(String(a.path), 2, '实验记录')] : [link('日记/周一.md', 2, '实验记录'), link('other.md', 2, '待写')]),
    });
    const store = new NotesStore(f.client, new ToastStore(), new ConfirmStore(), { open: vi.fn(async () => true), create: vi.fn(async () => null) }, 0);
    store.setBacklinksPath('日记/周一.md');
    await vi.waitFor(() => expect(store.noteUnresolved.map((l) => l.target)).toEqual(['实验记录']));
    expect(f.call).toHaveBeenCalledWith('notes.unresolved', { path: '日记/周一.md' });
    expect(f.call).not.toHaveBeenCalledWith('notes.unresolved', {});

    const app = { editor: { activePath: '日记/周一.md' }, ui: { notesOpen: false, toggleNotes: vi.fn() }, notes: store, startRename: vi.fn() };
    const cmds = linkCommands(app);
    expect(cmds.map((c) => [c.id, c.label(), c.keys ?? []])).toEqual([
      ['notes.rename', 'Rename the open note', ['F2']],
      ['notes.unresolved', 'Show unresolved links', []],
    ]);
    expect(cmds[0].when?.()).toBe(true);
    const typing = new KeyboardEvent('keydown', { key: 'F2' });
    Object.defineProperty(typing, 'target', { value: document.createElement('textarea') });
    expect(cmds[0].when?.(typing)).toBe(false);
    cmds[0].run();
    expect(app.startRename).toHaveBeenCalledWith('日记/周一.md');
    cmds[1].run();
    expect(app.ui.toggleNotes).toHaveBeenCalled();
    await vi.waitFor(() => expect(store.unresolved.map((l) => l.from)).toEqual(['日记/周一.md', 'other.md']));
    expect(localStorage.getItem('mnote.unresolvedOpen')).not.toBeNull();
    // Shown, it follows the notes' changes.
    f.call.mockClear();
    store.applyWorkspaceChanged({ changes: [{ path: '实验记录.md', op: 'created' }] });
    await vi.waitFor(() => expect(f.call).toHaveBeenCalledWith('notes.unresolved', {}));
  });
});
