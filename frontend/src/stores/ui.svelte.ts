// Window-level UI state: panes, dialogs, what is expanded, focus targets,
// the look (theme, font size; kept in localStorage and applied to the
// document), and the two platform services components need (clipboard,
// open a URL).

import type { Client, ConnectionState } from '../api';
import { SvelteMap } from 'svelte/reactivity';
import { readBool, readNumber, readPref, writeBool, writePref } from '../lib/prefs';

const NOTES_KEY = 'mnote.notesOpen';
const THEME_KEY = 'mnote.theme';
const FONT_KEY = 'mnote.fontSize';

export type Theme = 'system' | 'light' | 'dark';
export const THEMES: readonly Theme[] = ['system', 'light', 'dark'];
/** The text sizes offered (px); 13 is the default. */
export const FONT_SIZES: readonly number[] = [12, 13, 14, 15, 16, 18];
export const DEFAULT_FONT_SIZE = 13;

export type FocusTarget = 'search' | 'composer' | 'thread';

export class UiStore {
  notesOpen = $state(readBool(NOTES_KEY, true));
  runtimeOpen = $state(false);
  /** The Agents dialog opens on its custom agent form ("Add your own agent…"). */
  runtimeAdd = $state(false);
  /** The permission dialog was put aside ("Later"); the tool card's Review brings it back. */
  permissionHidden = $state(false);
  connection: ConnectionState = $state('open');
  /** Entry id → expanded, for cards the user opened or closed. */
  expanded = new SvelteMap<string, boolean>();
  /** An entry to scroll to and flash (from a search hit). */
  reveal: { id: string; n: number } | null = $state.raw(null);
  /** The chosen theme; "system" follows the OS. */
  theme: Theme = $state(readTheme());
  /** Base text size in px. */
  fontSize = $state(readFontSize());
  private focusers = new Map<FocusTarget, () => void>();
  private revealN = 0;
  private unwatchScheme: (() => void) | null = null;

  constructor(private readonly client: Client) {
    this.applyLook();
  }

  setTheme(theme: Theme): void {
    if (!THEMES.includes(theme)) return;
    this.theme = theme;
    writePref(THEME_KEY, theme);
    this.applyLook();
  }

  setFontSize(px: number): void {
    if (!FONT_SIZES.includes(px)) return;
    this.fontSize = px;
    writePref(FONT_KEY, String(px));
    this.applyLook();
  }

  /** The theme in effect: the chosen one, or the OS's for "system". */
  resolvedTheme(): 'light' | 'dark' {
    if (this.theme !== 'system') return this.theme;
    return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }

  /** Puts the look on the document: data-theme (app.css) and --font-size. */
  private applyLook(): void {
    if (typeof document === 'undefined') return;
    const root = document.documentElement;
    root.dataset.theme = this.resolvedTheme();
    root.style.colorScheme = root.dataset.theme;
    root.style.setProperty('--font-size', `${this.fontSize}px`);
    this.unwatchScheme?.();
    this.unwatchScheme = null;
    if (this.theme === 'system' && typeof matchMedia === 'function') {
      const mq = matchMedia('(prefers-color-scheme: dark)');
      const on = () => this.applyLook();
      mq.addEventListener?.('change', on);
      this.unwatchScheme = () => mq.removeEventListener?.('change', on);
    }
  }

  /** Opens the Agents dialog; add: on its custom agent form. */
  openAgents(add = false): void {
    this.runtimeAdd = add;
    this.runtimeOpen = true;
  }

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

function readTheme(): Theme {
  const v = readPref(THEME_KEY);
  return THEMES.includes(v as Theme) ? (v as Theme) : 'system';
}

function readFontSize(): number {
  const v = readNumber(FONT_KEY, DEFAULT_FONT_SIZE);
  return FONT_SIZES.includes(v) ? v : DEFAULT_FONT_SIZE;
}
