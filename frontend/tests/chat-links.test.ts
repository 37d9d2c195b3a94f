// Note links in the chat: [[wikilinks]] and relative .md links render as
// sanitized links carrying only a data attribute (no href: nothing to
// navigate to, no javascript:), the click handler opens the note, and the
// notes store resolves them from the folder's top (unresolved ones known).
import { describe, expect, it, vi } from 'vitest';
import { handleMarkdownClick, handleMarkdownKey, noteHref, renderMarkdown, wikiInner } from '../src/lib/markdown';
import { isNoteHref, wikiPieces } from '../src/lib/links';
import { NotesStore } from '../src/stores/notes.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { fakeClient } from './helpers';

function dom(html: string): HTMLDivElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  document.body.appendChild(div);
  return div;
}

describe('note links in rendered Markdown', () => {
  it('render wikilinks with only a data attribute', () => {
    const root = dom(renderMarkdown('见 [[会议记录#决定]]、[[周会|每周]] 和 [[Plain]]'));
    const as = [...root.querySelectorAll('a')];
    expect(as.map((a) => a.textContent)).toEqual(['会议记录 › 决定', '每周', 'Plain']);
    expect(as.map((a) => wikiInner(a))).toEqual(['会议记录#决定', '周会|每周', 'Plain']);
    for (const a of as) {
      expect(a.hasAttribute('href')).toBe(false);
      expect(a.hasAttribute('target')).toBe(false);
      expect(a.getAttribute('role')).toBe('link');
      expect(a.getAttribute('tabindex')).toBe('0');
    }
    root.remove();
  });

  it('turn relative links to notes into note links, leave others', () => {
    const root = dom(renderMarkdown('[a](会议/周会.md#议程) [b](../x/%E5%91%A8.md) [c](https://e.org/a.md) [d](pic.png) [e](javascript:alert(1)//.md)'));
    const [a, b, c, d, e] = root.querySelectorAll('a');
    expect(decodeURIComponent(noteHref(a) ?? '')).toBe('会议/周会.md#议程');
    expect(noteHref(b)).toBe('../x/%E5%91%A8.md');
    for (const x of [a, b]) expect(x.hasAttribute('href')).toBe(false);
    expect(noteHref(c)).toBeNull();
    expect(c.getAttribute('href')).toBe('https://e.org/a.md');
    expect(d.getAttribute('href')).toBe('pic.png');
    expect(noteHref(e)).toBeNull();
    expect(e.hasAttribute('href')).toBe(false);
    expect(root.innerHTML).not.toMatch(/javascript:/i);
    root.remove();
  });

  it('cannot smuggle attributes or script URLs through a wikilink', () => {
    const root = dom(renderMarkdown('[[x" onclick="alert(1)|y]] [[javascript:alert(1)]] [[Meeting: notes]] <a data-wiki="z" href="javascript:alert(1)">raw</a>'));
    for (const a of root.querySelectorAll('a')) {
      expect(a.getAttribute('onclick')).toBeNull();
      expect(a.hasAttribute('href')).toBe(false);
    }
    expect(root.querySelectorAll('a')).toHaveLength(3); // the raw <a> is text
    // Kept as a name to resolve (never a URL): nothing navigates to it.
    expect(wikiInner(root.querySelectorAll('a')[1])).toBe('javascript:alert(1)');
    expect(wikiInner(root.querySelectorAll('a')[2])).toBe('Meeting: notes');
    root.remove();
  });

  it('a click opens the note and never navigates; Enter clicks', () => {
    const root = dom(renderMarkdown('[[会议记录#决定]] [n](a/b.md) [w](https://example.com)'));
    const openNote = vi.fn();
    const open = vi.fn();
    root.addEventListener('click', (e) => handleMarkdownClick(e, { copy: vi.fn(), open, openNote }));
    root.addEventListener('keydown', handleMarkdownKey);
    const [wiki, note, web] = root.querySelectorAll('a');
    for (const a of [wiki, note, web]) {
      const ev = new MouseEvent('click', { bubbles: true, cancelable: true });
      a.dispatchEvent(ev);
      expect(ev.defaultPrevented).toBe(true);
    }
    expect(openNote.mock.calls).toEqual([[{ wiki: '会议记录#决定' }], [{ href: 'a/b.md' }]]);
    expect(open).toHaveBeenCalledWith('https://example.com');
    const key = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true });
    wiki.dispatchEvent(key);
    expect(key.defaultPrevented).toBe(true);
    expect(openNote).toHaveBeenCalledTimes(3);
    root.remove();
  });

  it('isNoteHref and wikiPieces', () => {
    expect(['a.md', './a/b.MD#x', '../c.markdown', '%E5%91%A8.md'].every(isNoteHref)).toBe(true);
    expect(['https://x/a.md', 'mailto:a.md', '/abs.md', '#a.md', '//h/a.md', 'a.png', '%zz.md', ''].some(isNoteHref)).toBe(false);
    expect(wikiPieces('看 [[会议记录#决定]] 和 [[周会|每周]]，[[#只有标题]]')).toEqual([
      { text: '看 ' },
      { text: '会议记录 › 决定', wiki: '会议记录#决定' },
      { text: ' 和 ' },
      { text: '每周', wiki: '周会|每周' },
      { text: '，[[#只有标题]]' },
    ]);
  });
});

describe('the notes store and chat links', () => {
  function store(handlers: Parameters<typeof fakeClient>[0], open = vi.fn(async () => true)) {
    const f = fakeClient(handlers);
    const s = new NotesStore(f.client, new ToastStore(), new ConfirmStore(), { open, create: vi.fn(async () => null) });
    return { s, f, open };
  }

  it('resolves from the folder top, once per name, and opens at the heading', async () => {
    const { s, f, open } = store({
      'notes.resolve': (a) => ({ path: (a as { target: string }).target === '会议记录' ? '会议/会议记录.md' : '' }),
      'notes.outline': () => [{ text: '决定', level: 2, line: 7 }],
    });
    expect(await s.chatLinkFinds({ wiki: '会议记录#决定' })).toBe(true);
    expect(await s.chatLinkFinds({ wiki: '会议记录|别名' })).toBe(true);
    expect(await s.chatLinkFinds({ wiki: '没有' })).toBe(false);
    expect(await s.chatLinkFinds({ wiki: '#只有标题' })).toBe(false);
    expect(f.call.mock.calls.filter((c) => c[0] === 'notes.resolve')).toHaveLength(2);
    expect(f.call).toHaveBeenCalledWith('notes.resolve', { from: '', target: '会议记录', wiki: true });
    expect(await s.openFromChat({ wiki: '会议记录#决定' })).toBe(true);
    expect(open).toHaveBeenCalledWith('会议/会议记录.md', 7);
    // Notes moved: asked again.
    s.linksTick++;
    await s.chatLinkFinds({ wiki: '会议记录' });
    expect(f.call.mock.calls.filter((c) => c[0] === 'notes.resolve')).toHaveLength(4);
    // A relative link past the top names no note.
    expect(await s.chatLinkFinds({ href: '../x.md' })).toBe(false);
  });

  it('offers to update the links into a moved folder', async () => {
    const { s, f } = store({ 'notes.updateLinks': () => ({ changed: ['a.md', 'b.md'], links: 5 }) });
    await s.afterRename('会议', 'archive/会议', true);
    expect(f.call).toHaveBeenCalledWith('notes.updateLinks', { from: '会议', to: 'archive/会议', dryRun: true });
    expect(s.offer).toEqual({ from: '会议', to: 'archive/会议', links: 5, notes: 2, folder: true });
    await s.afterRename('pics', 'images');
    expect(f.call).toHaveBeenCalledTimes(1); // not a note, not a folder
  });
});
