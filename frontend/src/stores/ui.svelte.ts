// Window-level UI state: panes, dialogs, what is expanded, focus targets,
// and the two platform services components need (clipboard, open a URL).

import type { Client, ConnectionState } from '../api';
import { SvelteMap } from 'svelte/reactivity';

const NOTES_KEY = 'mnote.notesOpen';

export type FocusTarget = 'search' | 'composer' | 'thread';

export class UiStore {
  notesOpen = $state(readBool(NOTES_KEY, true));
  runtimeOpen = $state(false);
  /** The permission dialog was put aside ("Later"); the tool card's Review brings it back. */
  permissionHidden = $state(false);
  connection: ConnectionState = $state('open');
  /** Entry id → expanded, for cards the user opened or closed. */
  expanded = new SvelteMap<string, boolean>();
  /** An entry to scroll to and flash (from a search hit). */
  reveal: { id: string; n: number } | null = $state.raw(null);
  private focusers = new Map<FocusTarget, () => void>();
  private revealN = 0;

  constructor(private readonly client: Client) {}

  toggleNotes(): void {
    this.notesOpen = !this.notesOpen;
    writeBool(NOTES_KEY, this.notesOpen);
  }

  isExpanded(id: string, byDefault: boolean): boolean {
    return this.expanded.get(id) ?? byDefault;
  }

  setExpanded(id: string, open: boolean): void {
    this.expanded.set(id, open);
  }

  revealEntry(id: string): void {
    this.reveal = { id, n: ++this.revealN };
  }

  registerFocus(name: FocusTarget, fn: () => void): () => void {
    this.focusers.set(name, fn);
    return () => {
      if (this.focusers.get(name) === fn) this.focusers.delete(name);
    };
  }

  focus(name: FocusTarget): void {
    this.focusers.get(name)?.();
  }

  copyText(text: string): Promise<void> {
    return this.client.copyText(text);
  }

  openExternal(url: string): void {
    this.client.openExternal(url);
  }
}

function readBool(key: string, dflt: boolean): boolean {
  try {
    const v = localStorage.getItem(key);
    return v === null ? dflt : v === '1';
  } catch {
    return dflt;
  }
}

function writeBool(key: string, v: boolean): void {
  try {
    localStorage.setItem(key, v ? '1' : '0');
  } catch {
    /* private mode */
  }
}
