// Links between notes, search snippets and the notes store's link flows:
// the pure helpers, the wikilink rendering of the preview (sanitized), and
// the rename → "Update N links?" → Undo flow against a fake client.
import { describe, expect, it, vi } from 'vitest';
import {
  groupHits,
  isComposing,
  linkAt,
  linkCompletion,
  linksInLine,
  newNotePath,
  relativeLinkPath,
  snippetParts,
  wikiParts,
} from '../src/lib/links';
import { renderMarkdown, wikiInner } from '../src/lib/markdown';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { NotesStore } from '../src/stores/notes.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient } from './helpers';

describe('snippet marks', () => {
  it('splits at « » into marked and plain parts', () => {
    expect(snippetParts('Reasonix 的缓存«命中率»很高，«命中»')).toEqual([
      { text: 'Reasonix 的缓存', mark: false },
      { text: '命中率', mark: true },
      { text: '很高，', mark: false },
      { text: '命中', mark: true },
    ]);
  });
  it('keeps an unbalanced mark as text and never yields HTML', () => {
    expect(snippetParts('a «b')).toEqual([{ text: 'a «b', mark: false }]);
    expect(snippetParts('<img src=x onerror=alert(1)> «<b>»')).toEqual([
      { text: '<img src=x onerror=alert(1)> ', mark: false },
      { text: '<b>', mark: true },
    ]);
    expect(snippetParts('')).toEqual([]);
  });
  it('groups hits by note, each note in the order of its best hit', () => {
    const g = groupHits([
      { path: 'b.md', line: 9, snippet: '', rank: -3 },
      { path: 'a.md', line: 2, snippet: '', rank: -2 },
      { path: 'b.md', line: 1, snippet: '', rank: -1 },
    ]);
    expect(g.map((x) => [x.path, x.hits.map((h) => h.line)])).toEqual([
      ['b.md', [1, 9]],
      ['a.md', [2]],
    ]);
  });
});

describe('wikilinks in a line', () => {
  it('reads target, heading and alias', () => {
    expect(wikiParts(' 缓存设计 #命中率 | 命中 ')).toEqual({ target: '缓存设计', heading: '命中率', alias: '命中' });
    expect(wikiParts('Note.md')).toEqual({ target: 'Note', heading: '', alias: '' });
    expect(wikiParts('#Top')).toEqual({ target: '', heading: 'Top', alias: '' });
  });
  it('finds wikilinks and Markdown links, not images, in order', () => {
    const ls = linksInLine('see [[A#h|x]] and [b](sub/b.md#G) but ![i](p.md) or [[]] and [[#Top]]');
    expect(ls.map((l) => (l.kind === 'wiki' ? `w:${l.target}#${l.heading}|${l.alias}` : `m:${l.href}`))).toEqual([
      'w:A#h|x',
      'm:sub/b.md#G',
      'w:#Top|',
    ]);
  });
  it('tells the link under a column', () => {
    const line = 'x [[缓存]] y [z](z.md)';
    expect(linkAt(line, 0)).toBeNull();
    expect(linkAt(line, 4)).toMatchObject({ kind: 'wiki', target: '缓存' });
    expect(linkAt(line, line.length - 1)).toMatchObject({ kind: 'md', href: 'z.md' });
    expect(linkAt(line, 10)).toBeNull();
  });
});

describe('link completion context', () => {
  it('completes a note name after [[', () => {
    expect(linkCompletion('see [[缓')).toEqual({ kind: 'note', query: '缓', from: 6 });
    expect(linkCompletion('[[')).toEqual({ kind: 'note', query: '', from: 2 });
  });
  it('completes the note’s headings after [[Note#', () => {
    expect(linkCompletion('a [[缓存设计#命')).toEqual({ kind: 'heading', note: '缓存设计', query: '命', from: 9 });
    expect(linkCompletion('[[#')).toEqual({ kind: 'heading', note: '', query: '', from: 3 });
  });
  it('stops once the link is closed or aliased', () => {
    expect(linkCompletion('[[a]] b')).toBeNull();
    expect(linkCompletion('[[a|b')).toBeNull();
    expect(linkCompletion('[a](b')).toBeNull();
    expect(linkCompletion('plain')).toBeNull();
  });
});

describe('link paths', () => {
  it('resolves relative Markdown links against the note’s folder', () => {
    expect(relativeLinkPath('a/b/n.md', '../c%20d.md#H')).toBe('a/c d.md');
    expect(relativeLinkPath('n.md', './x/设计.md')).toBe('x/设计.md');
    expect(relativeLinkPath('n.md', '../up.md')).toBeNull();
    expect(relativeLinkPath('n.md', 'https://x.org/a.md')).toBeNull();
    expect(relativeLinkPath('n.md', 'javascript:alert(1)')).toBeNull();
    expect(relativeLinkPath('n.md', '/etc/passwd')).toBeNull();
    expect(relativeLinkPath('n.md', '#top')).toBeNull();
  });
  it('puts a note created from a link beside the linking note, or at its path', () => {
    expect(newNotePath('journal/day.md', '新想法')).toBe('journal/新想法.md');
    expect(newNotePath('journal/day.md', 'ideas/new')).toBe('ideas/new.md');
    expect(newNotePath('day.md', 'x.md')).toBe('x.md');
    expect(newNotePath('day.md', '../escape')).toBeNull();
    expect(newNotePath('day.md', '.hidden')).toBeNull();
    expect(newNotePath('day.md', '  ')).toBeNull();
  });
});

describe('IME composition', () => {
  it('is recognised by isComposing and by keyCode 229', () => {
    expect(isComposing(new KeyboardEvent('keydown', { key: 'Enter', isComposing: true }))).toBe(true);
    expect(isComposing(new KeyboardEvent('keydown', { key: 'Process', keyCode: 229 }))).toBe(true);
    expect(isComposing(new KeyboardEvent('keydown', { key: 'Enter' }))).toBe(false);
  });
});

describe('wikilinks in the preview', () => {
  it('render as sanitized links carrying their target', () => {
    const html = renderMarkdown('See [[缓存设计#命中率|the <b>rate</b>]] and [[Plain]], `[[in code]]`.');
    const div = document.createElement('div');
    div.innerHTML = html;
    const as = [...div.querySelectorAll('a.md-wikilink')];
    expect(as.map((a) => a.textContent)).toEqual(['the <b>rate</b>', 'Plain']);
    expect(as.map((a) => wikiInner(a))).toEqual(['缓存设计#命中率|the <b>rate</b>', 'Plain']);
    expect(div.querySelector('b')).toBeNull();
    expect(div.querySelector('code')?.textContent).toBe('[[in code]]');
  });
  it('cannot smuggle markup or script URLs through the target', () => {
    const html = renderMarkdown('[[x" onmouseover="alert(1)|y]] [[javascript:alert(1)]]');
    const div = document.createElement('div');
    div.innerHTML = html;
    for (const a of div.querySelectorAll('a')) {
      expect(a.getAttribute('onmouseover')).toBeNull();
      expect(a.hasAttribute('href')).toBe(false);
    }
    expect(div.querySelectorAll('a.md-wikilink')).toHaveLength(2);
  });
});

function notesStore(handlers: Parameters<typeof fakeClient>[0]) {
  const f = fakeClient(handlers);
  const toasts = new ToastStore();
  const confirm = new ConfirmStore();
  const open = vi.fn(async () => true);
  const create = vi.fn(async (p: string) => p);
  const store = new NotesStore(f.client, toasts, confirm, { open, create }, 0);
  return { ...f, toasts, confirm, open, create, store };
}

describe('the notes store', () => {
  it('offers to update links after a rename, updates them, and undoes', async () => {
    const s = notesStore({
      'notes.updateLinks': (a) =>
        a.dryRun
          ? { changed: ['a.md', 'b.md'], links: 3 }
          : { changed: ['a.md', 'b.md'], links: 3, skipped: ['c.md'], undo: { id: 'U1' } },
      'notes.undoUpdateLinks': (a) => {
        expect(a.undo).toEqual({ id: 'U1' });
        return { restored: ['a.md', 'b.md'] };
      },
    });
    await s.store.afterRename('old.md', 'dir/new.md');
    expect(s.store.offer).toEqual({ from: 'old.md', to: 'dir/new.md', links: 3, notes: 2 });
    await s.store.acceptOffer();
    expect(s.store.offer).toBeNull();
    expect(s.call).toHaveBeenCalledWith('notes.updateLinks', { from: 'old.md', to: 'dir/new.md' });
    const toast = s.toasts.items.at(-1)!;
    expect(toast.message).toBe('Updated 3 links in 2 notes. 1 note with unsaved edits left alone.');
    await s.toasts.runAction(toast.id);
    expect(s.toasts.items.at(-1)?.message).toBe('Links put back in 2 notes.');
  });
  it('offers nothing for a note nobody links to, nor for a folder', async () => {
    const s = notesStore({ 'notes.updateLinks': () => ({ changed: [], links: 0 }) });
    await s.store.afterRename('a.md', 'b.md');
    expect(s.store.offer).toBeNull();
    await s.store.afterRename('folder', 'other');
    expect(s.call).toHaveBeenCalledTimes(1);
  });
  it('says so when the undo meets a changed note', async () => {
    const s = notesStore({
      'notes.updateLinks': () => ({ changed: ['a.md'], links: 1, undo: { id: 'U' } }),
      'notes.undoUpdateLinks': () => {
        throw { code: 'conflict', message: 'these notes changed since: a.md' };
      },
    });
    await s.store.afterRename('x.md', 'y.md');
    await s.store.acceptOffer();
    await s.toasts.runAction(s.toasts.items.at(-1)!.id);
    expect(s.toasts.items.at(-1)).toMatchObject({ level: 'error', message: 'Could not undo: a note changed since its links were updated.' });
  });
  it('follows a wikilink to its heading, and offers to create a missing note', async () => {
    const s = notesStore({
      'notes.resolve': (a) => ({ path: a.target === '缓存' ? '设计/缓存.md' : '' }),
      'notes.outline': () => [{ path: '设计/缓存.md', level: 2, text: '命中率', line: 7 }],
    });
    await s.store.follow('home.md', { kind: 'wiki', from: 0, to: 0, target: '缓存', heading: '命中率', alias: '' });
    expect(s.open).toHaveBeenCalledWith('设计/缓存.md', 7);
    const p = s.store.follow('journal/day.md', { kind: 'wiki', from: 0, to: 0, target: '新想法', heading: '', alias: '' });
    await vi.waitFor(() => expect(s.confirm.current?.title).toBe('Create “新想法”?'));
    s.confirm.answer('create');
    expect(await p).toBe(true);
    expect(s.create).toHaveBeenCalledWith('journal/新想法.md');
    expect(s.open).toHaveBeenLastCalledWith('journal/新想法.md');
  });
  it('opens a relative link to a file that is not a note as it is, never offering to create it', async () => {
    const s = notesStore({});
    expect(await s.store.follow('a/n.md', { kind: 'md', from: 0, to: 0, href: '../doc%20x.pdf' })).toBe(true);
    expect(s.open).toHaveBeenCalledWith('doc x.pdf', undefined);
    expect(s.call).not.toHaveBeenCalled();
    // A web link opens outside (when the app can); javascript: never does.
    expect(await s.store.follow('a/n.md', { kind: 'md', from: 0, to: 0, href: 'https://example.org/x.md' })).toBe(false);
    const ext = vi.fn();
    const s2 = new NotesStore(s.client, s.toasts, s.confirm, { open: s.open, create: s.create, openExternal: ext }, 0);
    expect(await s2.follow('n.md', { kind: 'md', from: 0, to: 0, href: 'https://example.org/x' })).toBe(true);
    expect(await s2.follow('n.md', { kind: 'md', from: 0, to: 0, href: 'javascript:alert(1)' })).toBe(false);
    expect(ext.mock.calls).toEqual([['https://example.org/x']]);
  });
  it('searches debounced, dropping older answers', async () => {
    let calls = 0;
    const s = notesStore({
      'notes.search': (a) => {
        calls++;
        expect(a).toEqual({ query: '缓存', folder: '设计', limit: 200, lines: 50 });
        return [{ path: '设计/缓存.md', line: 2, snippet: '«缓存»', rank: -1 }];
      },
    });
    s.store.setFolder('/设计/');
    s.store.setQuery('缓');
    s.store.setQuery('缓存');
    await vi.waitFor(() => expect(s.store.answered).toBe('缓存'));
    expect(calls).toBe(1);
    expect(s.store.hits).toHaveLength(1);
  });
});
