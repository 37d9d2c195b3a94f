// The window's split: the notes side (file tree + editor) on the left, the
// chat side (sessions + chat) on the right. The tree is UiStore.notesOpen
// (Ctrl/Cmd+B, or Ctrl+\); the chat side hides with Ctrl/Cmd+J; the
// editor's width is dragged on the splitter (or its arrow keys) and kept;
// the sessions list can be folded into a rail (kept). Focus mode shows the
// editor alone (not kept: a new window starts with everything). How the
// panes share a narrow window: lib/panes.ts.

import { clampTree, TREE_MAX } from '../lib/panes';
import { readBool, readNumber, writeBool, writePref } from '../lib/prefs';

const CHAT_KEY = 'mnote.chatOpen';
const WIDTH_KEY = 'mnote.editorWidth';
const TREE_KEY = 'mnote.treeWidth';
const SESSIONS_KEY = 'mnote.sessionsFolded';

export const EDITOR_MIN = 320;
/** The chat may be narrowed to this (the splitter). */
export const CHAT_MIN = 360;
/** The chat's width until the splitter is moved, where the window has room for a wide editor. */
export const CHAT_DEFAULT = 380;
/** Until the splitter is moved the editor takes half the room, at least this (room to write). */
export const EDITOR_ROOMY = 640;

/** The editor's width before the splitter was ever moved, for the room beside the tree and the sessions column (or rail). */
export function defaultEditorWidth(room: number): number {
  return Math.round(Math.min(room - CHAT_DEFAULT, Math.max(room / 2, EDITOR_ROOMY)));
}
export { TREE_MIN, TREE_MAX } from '../lib/panes';

export class LayoutStore {
  chatOpen = $state(readBool(CHAT_KEY, true));
  /** The editor pane's width (px) while the chat side shows; 0 = half of the room (until the splitter is moved). */
  editorWidth = $state(readNumber(WIDTH_KEY, 0));
  treeWidth = $state(readNumber(TREE_KEY, 240));
  /** The user folded the sessions list into its rail (kept until unfolded). */
  sessionsFolded = $state(readBool(SESSIONS_KEY, false));
  /** Focus mode: the editor alone. */
  focus = $state(false);

  setFocus(on: boolean): void {
    this.focus = on;
  }

  setSessionsFolded(folded: boolean): void {
    this.sessionsFolded = folded;
    writeBool(SESSIONS_KEY, folded);
  }

  toggleChat(): void {
    this.chatOpen = !this.chatOpen;
    writeBool(CHAT_KEY, this.chatOpen);
  }

  setChat(open: boolean): void {
    if (open !== this.chatOpen) this.toggleChat();
  }

  /** Sets the editor's width, kept between EDITOR_MIN and what leaves the chat side room (max). */
  setEditorWidth(px: number, max = Infinity): void {
    const w = Math.round(Math.max(EDITOR_MIN, Math.min(px, Math.max(EDITOR_MIN, max))));
    this.editorWidth = w;
    writePref(WIDTH_KEY, String(w));
  }

  /** Sets the tree's width (remembered), within TREE_MIN and max (lib/panes.ts treeMax). */
  setTreeWidth(px: number, max = TREE_MAX): void {
    const w = clampTree(px, max);
    this.treeWidth = w;
    writePref(TREE_KEY, String(w));
  }
}
