// The search view as a person (and a hostile note) meets it: snippets of
// note text are text, never markup; ↑/↓ and Enter open a hit at its line;
// Enter during an IME composition does nothing; the index's progress and
// skipped files are shown.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import NoteSearch from '../src/components/NoteSearch.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames } from './helpers';

let comp: Record<string, unknown> | null = null;
let target: HTMLElement;

function setup(hits: unknown[]) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
    'notes.status': () => ({ dir: '/w', ready: true, done: 3, total: 3, notes: 3, tooBig: 1, notText: 2 }),
    'notes.search': () => hits,
  });
  const app = new AppState(f.client, { schedule: manualFrames().schedule, notesDelayMs: 0 });
  app.start();
  setApp(app);
  const openAt = vi.spyOn(app, 'openAt').mockResolvedValue(true);
  target = document.createElement('div');
  document.body.appendChild(target);
  comp = mount(NoteSearch, { target, props: { onclose: () => {} } });
  return { ...f, app, openAt };
}

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target?.remove();
  setApp(null);
});

async function typeQuery(q: string) {
  const input = target.querySelector<HTMLInputElement>('[data-testid="note-search-input"]')!;
  input.value = q;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await vi.waitFor(() => expect(target.querySelectorAll('[data-testid="note-search-hit"]').length).toBeGreaterThan(0));
  return input;
}

describe('the notes search view', () => {
  it('shows a hostile snippet as text, the matched words marked', async () => {
    setup([{ path: 'evil.md', line: 3, snippet: '<img src=x onerror="window.pwned=1"> «缓存» <script>x</script>', rank: -1 }]);
    await typeQuery('缓存');
    const hit = target.querySelector('[data-testid="note-search-hit"]')!;
    expect(hit.querySelector('img, script')).toBeNull();
    expect(hit.querySelector('mark')?.textContent).toBe('缓存');
    expect(hit.textContent).toContain('<img src=x');
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
    expect(target.querySelector('[data-testid="note-search-skipped"]')?.textContent).toContain('3 files not searched (1 too big, 2 not text)');
  });

  it('moves with the arrows and opens the hit at its line; Enter while composing does nothing', async () => {
    const s = setup([
      { path: 'a.md', line: 2, snippet: '«x» one', rank: -2 },
      { path: 'b/c.md', line: 40, snippet: '«x» two', rank: -1 },
    ]);
    const input = await typeQuery('x');
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    flushSync();
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true }));
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', keyCode: 229, bubbles: true }));
    await tick();
    expect(s.openAt).not.toHaveBeenCalled();
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    await tick();
    expect(s.openAt).toHaveBeenCalledWith('b/c.md', 40);
  });

  it('groups a note\'s hits under it with their count, folded to the first; → or a click unfolds them all', async () => {
    const lines = (p: string, ns: number[]) => ns.map((line) => ({ line, snippet: `«缓存» ${p} ${line}` }));
    const s = setup([
      { path: '设计/缓存.md', line: 1, snippet: '«缓存» 1', rank: -2, count: 4, lines: lines('a', [1, 3, 6, 8]) },
      { path: 'other.md', line: 2, snippet: '«缓存» 2', rank: -1, count: 1, lines: lines('b', [2]) },
    ]);
    const input = await typeQuery('缓存');
    const groups = () => [...target.querySelectorAll('[data-testid="note-search-group"]')];
    const hitsOf = (g: Element) => [...g.querySelectorAll('[data-testid="note-search-hit"] .line')].map((e) => e.textContent);
    expect(groups().map((g) => g.querySelector('[data-testid="note-search-count"]')?.textContent)).toEqual(['4 hits', '1 hit']);
    expect(hitsOf(groups()[0])).toEqual(['1']);
    expect(groups()[0].querySelector('[data-testid="note-search-more"]')?.textContent?.trim()).toBe('3 more hits');
    expect(target.querySelector('[data-testid="note-search-status"]')?.textContent).toContain('5 results in 2 notes');
    // → at the end of the query unfolds the selected note; ↓↓ then Enter opens its 3rd hit.
    input.setSelectionRange(input.value.length, input.value.length);
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    flushSync();
    expect(hitsOf(groups()[0])).toEqual(['1', '3', '6', '8']);
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    flushSync();
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    await tick();
    expect(s.openAt).toHaveBeenCalledWith('设计/缓存.md', 6);
    // ← folds it again; a click on the note's head unfolds it.
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    flushSync();
    expect(hitsOf(groups()[0])).toEqual(['1']);
    groups()[0].querySelector<HTMLElement>('[data-testid="note-search-note"]')!.click();
    flushSync();
    expect(hitsOf(groups()[0])).toEqual(['1', '3', '6', '8']);
  });

  it('says how far the index got while it builds', async () => {
    const s = setup([]);
    s.emit('notes:index', { dir: '/w', ready: false, done: 1234, total: 10000, notes: 0, tooBig: 0, notText: 0 });
    flushSync();
    await vi.waitFor(() =>
      expect(target.querySelector('[data-testid="note-search-status"]')?.textContent).toContain('Indexing notes… 1,234 of 10,000'),
    );
  });
});
