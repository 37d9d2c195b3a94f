// The notes tree's width: never narrower than TREE_MIN, never so wide
// that the chat gets less than CHAT_FLOOR px, and remembered.
import { describe, expect, it } from 'vitest';
import { CHAT_FLOOR, clampTree, RAIL, SIDEBAR, TREE_MAX, TREE_MIN, treeMax, type TreeRoom } from '../src/lib/panes';
import { EDITOR_MIN, LayoutStore } from '../src/stores/layout.svelte';

const room = (width: number, extra: Partial<TreeRoom> = {}): TreeRoom => ({
  width,
  editorShown: true,
  chatOpen: true,
  sessionsFolded: false,
  editorMin: EDITOR_MIN,
  ...extra,
});

/** What the chat is left at the widest tree (editor at its minimum beside it). */
function chatLeft(r: TreeRoom): number {
  const side = r.sessionsFolded || (r.editorShown && r.width < 1500) ? RAIL : SIDEBAR;
  return r.width - treeMax(r) - side - (r.editorShown ? r.editorMin : 0);
}

describe('tree width', () => {
  it('clamps to TREE_MIN and the max', () => {
    expect(TREE_MIN).toBeGreaterThanOrEqual(160);
    expect(clampTree(20, 400)).toBe(TREE_MIN);
    expect(clampTree(-500, 400)).toBe(TREE_MIN);
    expect(clampTree(Number.NaN, 400)).toBe(TREE_MIN);
    expect(clampTree(250.6, 400)).toBe(251);
    expect(clampTree(900, 400)).toBe(400);
    expect(clampTree(900)).toBe(TREE_MAX);
    // A max below the minimum still gives the minimum.
    expect(clampTree(300, 100)).toBe(TREE_MIN);
  });

  it('leaves the chat at least CHAT_FLOOR px', () => {
    for (const width of [900, 1024, 1100, 1280, 1440, 1920]) {
      for (const extra of [{}, { editorShown: false }, { sessionsFolded: true }, { editorShown: false, sessionsFolded: true }]) {
        const r = room(width, extra);
        const max = treeMax(r);
        expect(max).toBeGreaterThanOrEqual(TREE_MIN);
        expect(max).toBeLessThanOrEqual(TREE_MAX);
        if (max > TREE_MIN) expect(chatLeft(r), `${width} ${JSON.stringify(extra)}`).toBeGreaterThanOrEqual(CHAT_FLOOR);
      }
    }
    // 1024 px with a note open: rail 40 + editor 320 + chat 360 leave 304.
    expect(treeMax(room(1024))).toBe(1024 - RAIL - EDITOR_MIN - CHAT_FLOOR);
    // No note, the sessions list beside the chat.
    expect(treeMax(room(1024, { editorShown: false }))).toBe(1024 - SIDEBAR - CHAT_FLOOR);
    // Wide: TREE_MAX.
    expect(treeMax(room(1920))).toBe(TREE_MAX);
    // The chat hidden: the editor keeps its minimum.
    expect(treeMax(room(700, { chatOpen: false }))).toBe(700 - EDITOR_MIN);
    // Too narrow for anything more: the minimum.
    expect(treeMax(room(800))).toBe(TREE_MIN);
  });

  it('remembers the width set, clamped', () => {
    localStorage.clear();
    const a = new LayoutStore();
    a.setTreeWidth(100);
    expect(a.treeWidth).toBe(TREE_MIN);
    a.setTreeWidth(2000, treeMax(room(1024)));
    expect(a.treeWidth).toBe(treeMax(room(1024)));
    a.setTreeWidth(275);
    expect(new LayoutStore().treeWidth).toBe(275);
  });
});
