// How the window's panes share its width (App.svelte). Pure: the width and
// what is open in, what shows out. In order, as the window narrows:
//
//   1. with a note open, the sessions list folds into a rail (< ROOMY);
//   2. with a note open, the file tree folds into a rail (< TREE_ROOMY);
//   3. with a note open, below DUO the person chooses the notes (tree and
//      editor) or the chat with a switcher: the editor keeps room to write;
//   4. below SINGLE one pane at a time (tree, note, sessions, chat).
// Side by side, a tree opened wide by hand can still leave the editor and
// the chat too little room: they stack (editor above).
//
// Without a note the sessions list folds only when the chat would get less
// than CHAT_MIN. The user can fold the sessions list for good (remembered);
// a folded list can be shown for now over the chat (App.svelte), which
// leaves these widths as they are.

export const SIDEBAR = 264;
export const RAIL = 40;
export const ROOMY = 1500;
export const TREE_ROOMY = 1100;
export const DUO = 1000;
export const SINGLE = 720;

export type Pane = 'notes' | 'editor' | 'sessions' | 'chat';

export interface Room {
  width: number;
  /** The editor column shows (a note is open, or the chat side is hidden). */
  editorShown: boolean;
  chatOpen: boolean;
  /** The tree's width: its own when open, else the rail's. */
  treeW: number;
  /** The user folded the sessions list (remembered). */
  sessionsFolded: boolean;
  editorMin: number;
  chatMin: number;
}

export interface Arrangement {
  /** One pane at a time, with the switcher. */
  single: boolean;
  /** The sessions list shows beside the chat (else its rail). */
  sessions: boolean;
  /** The editor above the chat, both full width. */
  stacked: boolean;
  /** Notes or chat, chosen with a switcher (DUO_PANES). */
  duo: boolean;
}

/** What the switcher offers below DUO: the notes side or the chat side. */
export const DUO_PANES: Pane[] = ['notes', 'chat'];

export function arrange(r: Room): Arrangement {
  if (r.width < SINGLE) return { single: true, sessions: true, stacked: false, duo: false };
  const both = r.editorShown && r.chatOpen;
  if (both && r.width < DUO) {
    return { single: false, sessions: !r.sessionsFolded && r.width - SIDEBAR >= r.chatMin + RAIL, stacked: false, duo: true };
  }
  const fits = both ? r.width >= ROOMY : r.width - r.treeW - SIDEBAR >= r.chatMin;
  const sessions = r.chatOpen && !r.sessionsFolded && fits;
  const sideW = sessions ? SIDEBAR : RAIL;
  const stacked = both && r.width - r.treeW - sideW < r.editorMin + r.chatMin;
  return { single: false, sessions, stacked, duo: false };
}

/** Whether the tree should fold into its rail at this width (step 2). */
export function treeFolds(width: number, editorShown: boolean, chatOpen: boolean): boolean {
  return width >= DUO && width < TREE_ROOMY && editorShown && chatOpen;
}

/** The panes the switcher offers, in order (the editor only with a note open). */
export function panes(noteOpen: boolean): Pane[] {
  return noteOpen ? ['notes', 'editor', 'sessions', 'chat'] : ['notes', 'sessions', 'chat'];
}

/** The pane to show: the wanted one if offered, else the chat. */
export function validPane(want: Pane, noteOpen: boolean): Pane {
  return panes(noteOpen).includes(want) ? want : 'chat';
}

// The tree's width: the user drags its right edge (remembered), within
// TREE_MIN..TREE_MAX and never so wide that the chat gets less than
// CHAT_FLOOR px; a window too narrow for the remembered width shows it
// narrower without forgetting it.
export const TREE_MIN = 160;
export const TREE_MAX = 480;
export const CHAT_FLOOR = 360;

export interface TreeRoom {
  width: number;
  editorShown: boolean;
  chatOpen: boolean;
  sessionsFolded: boolean;
  editorMin: number;
}

/** The widest the tree may be: what is left once the sessions column (or its
 * rail), the editor at its minimum and the chat at CHAT_FLOOR have their
 * room; with the chat hidden, what leaves the editor its minimum. Never
 * below TREE_MIN (a window that narrow folds the tree or shows one pane). */
export function treeMax(r: TreeRoom): number {
  let rest = r.editorShown ? r.editorMin : 0;
  if (r.chatOpen) {
    // The sessions column shows beside a note only from ROOMY (arrange).
    const side = r.sessionsFolded || (r.editorShown && r.width < ROOMY) ? RAIL : SIDEBAR;
    rest += side + CHAT_FLOOR;
  }
  return Math.max(TREE_MIN, Math.min(TREE_MAX, r.width - rest));
}

/** A tree width within TREE_MIN..max, in whole pixels. */
export function clampTree(px: number, max: number = TREE_MAX): number {
  const w = Number.isFinite(px) ? px : TREE_MIN;
  return Math.round(Math.max(TREE_MIN, Math.min(w, Math.max(TREE_MIN, max))));
}
