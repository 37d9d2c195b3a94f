import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import PaneSwitcher from '../src/components/PaneSwitcher.svelte';
import { arrange, panes, RAIL, SIDEBAR, treeFolds, validPane, type Pane, type Room } from '../src/lib/panes';
import { CHAT_MIN, EDITOR_MIN, LayoutStore } from '../src/stores/layout.svelte';

const TREE = 240;

/** The room at a width with a note open, the tree (or its rail) as App computes it. */
function room(width: number, over: Partial<Room> = {}): Room {
  const editorShown = over.editorShown ?? true;
  const chatOpen = over.chatOpen ?? true;
  const treeW = over.treeW ?? (treeFolds(width, editorShown, chatOpen) ? RAIL : TREE);
  return { width, editorShown, chatOpen, treeW, sessionsFolded: false, editorMin: EDITOR_MIN, chatMin: CHAT_MIN, ...over };
}

/** The chat column's width for an arrangement (side by side: the editor at its minimum). */
function chatWidth(r: Room): number {
  const a = arrange(r);
  if (a.single || a.duo) return r.width - (a.duo && a.sessions ? SIDEBAR : a.duo ? RAIL : 0);
  const side = a.sessions ? SIDEBAR : RAIL;
  const rest = r.width - r.treeW - side;
  return a.stacked || !r.editorShown ? rest : rest - EDITOR_MIN;
}

describe('panes: what folds as the window narrows', () => {
  it('folds the sessions list first, then the tree, then notes or chat, then one pane', () => {
    const side = { single: false, stacked: false, duo: false };
    expect(arrange(room(1920))).toEqual({ ...side, sessions: true });
    expect(treeFolds(1920, true, true)).toBe(false);
    expect(arrange(room(1280))).toEqual({ ...side, sessions: false });
    expect(treeFolds(1280, true, true)).toBe(false);
    expect(treeFolds(1024, true, true)).toBe(true);
    expect(arrange(room(1024))).toEqual({ ...side, sessions: false });
    // Below DUO: the notes or the chat, the whole width each (the chat with its sessions list where it fits).
    expect(treeFolds(900, true, true)).toBe(false);
    expect(arrange(room(900))).toEqual({ single: false, stacked: false, duo: true, sessions: true });
    expect(arrange(room(720))).toEqual({ single: false, stacked: false, duo: true, sessions: true });
    expect(arrange(room(719)).single).toBe(true);
    expect(arrange(room(640)).single).toBe(true);
    expect(treeFolds(640, true, true)).toBe(false); // one pane at a time: the tree is a pane of its own
  });

  it('leaves the chat at least 360 px (CHAT_MIN where it can) at every width from 720 px', () => {
    for (let w = 720; w <= 2560; w += 8) {
      for (const editorShown of [true, false]) {
        for (const sessionsFolded of [true, false]) {
          const r = room(w, { editorShown, sessionsFolded });
          expect(chatWidth(r), `${w} px, note ${editorShown}, folded ${sessionsFolded}`).toBeGreaterThanOrEqual(360);
        }
      }
    }
    // A tree opened wide by hand at 1024 px: the editor and the chat stack.
    const open = room(1024, { treeW: 400 });
    expect(arrange(open).stacked).toBe(true);
    expect(chatWidth(open)).toBeGreaterThanOrEqual(CHAT_MIN);
  });

  it('without a note keeps the sessions list while the chat has CHAT_MIN beside it', () => {
    expect(arrange(room(1024, { editorShown: false })).sessions).toBe(true);
    expect(arrange(room(860, { editorShown: false })).sessions).toBe(false);
    expect(arrange(room(860, { editorShown: false, treeW: RAIL })).sessions).toBe(true);
    expect(treeFolds(900, false, true)).toBe(false);
  });

  it('keeps a list the user folded folded, however wide', () => {
    expect(arrange(room(2560, { sessionsFolded: true })).sessions).toBe(false);
    expect(arrange(room(2560, { editorShown: false, sessionsFolded: true })).sessions).toBe(false);
  });

  it('offers the editor pane only with a note open, and falls back to the chat', () => {
    expect(panes(true)).toEqual(['notes', 'editor', 'sessions', 'chat']);
    expect(panes(false)).toEqual(['notes', 'sessions', 'chat']);
    expect(validPane('editor', false)).toBe('chat');
    expect(validPane('editor', true)).toBe('editor');
    expect(validPane('notes', false)).toBe('notes');
  });
});

describe('LayoutStore: a folded sessions list is remembered', () => {
  beforeEach(() => localStorage.clear());

  it('keeps the fold in localStorage for the next start', () => {
    const a = new LayoutStore();
    expect(a.sessionsFolded).toBe(false);
    a.setSessionsFolded(true);
    expect(new LayoutStore().sessionsFolded).toBe(true);
    a.setSessionsFolded(false);
    expect(new LayoutStore().sessionsFolded).toBe(false);
  });
});

describe('PaneSwitcher', () => {
  let target: HTMLElement;
  let comp: Record<string, unknown> | null = null;
  beforeEach(() => {
    target = document.createElement('div');
    document.body.appendChild(target);
  });
  afterEach(() => {
    if (comp) unmount(comp);
    comp = null;
    target.remove();
  });

  it('marks the current pane and picks another by click or arrow keys', () => {
    const picked: Pane[] = [];
    const props = { panes: panes(true), current: 'chat' as Pane, onpick: (p: Pane) => void picked.push(p) };
    comp = mount(PaneSwitcher, { target, props });
    flushSync();
    const tabs = [...target.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
    expect(tabs.map((t) => t.textContent?.trim())).toEqual(['Notes', 'Note', 'Sessions', 'Chat']);
    expect(tabs.map((t) => t.getAttribute('aria-selected'))).toEqual(['false', 'false', 'false', 'true']);
    tabs[0].click();
    expect(picked).toEqual(['notes']);
    const list = target.querySelector('[role="tablist"]')!;
    list.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    expect(picked).toEqual(['notes', 'notes']); // after the last tab comes the first
    list.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    expect(picked.at(-1)).toBe('sessions');
  });
});
