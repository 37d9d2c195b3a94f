// The command registry: every action a person can take from the keyboard,
// with its label and shortcut. The window's key handler (App.svelte), the
// command palette (Ctrl+Shift+P) and the shortcuts sheet (? or F1) all read
// it, so a shortcut shown is the shortcut that works.
//
// Adding an action is one call, from a component's script (it goes away
// with the component) or a store:
//
//   registerCommand({ id: 'notes.daily', group: 'notes', label: m.notes_daily, keys: ['Alt+D'], run: () => app.openDaily() });
//
// - id: unique, "area.action"; registering an id again replaces it.
// - label: a catalogue message (a function: the label follows the language).
// - keys: shortcuts as "Mod+Shift+P" — Mod is Ctrl (⌘ on macOS), then Ctrl,
//   Alt, Shift, and the key as KeyboardEvent.key names it ("p", "F1", "\\",
//   "Escape", "?"); letters are case-blind. The first is the one the
//   palette shows. A key with Ctrl, Alt or ⌘ works in text fields and the
//   editor too; a plain key ("?") only outside them.
// - when: the action is offered (palette) and its keys work only while it
//   says true; the key's event is given when a key runs it.
// - run: does it. Keys never fire inside an IME composition.
// registerCommand returns the function that removes it (call it from the
// component's teardown: `onMount(() => registerCommand({...}))`).

import { untrack } from 'svelte';
import { m, type Locale } from './i18n.svelte';

export type CommandGroup = 'general' | 'panels' | 'notes' | 'editor' | 'chat';

export interface Command {
  id: string;
  group: CommandGroup;
  /** A catalogue message; called with { locale: 'en' } too (the palette matches English words in any language). */
  label: (inputs?: Record<string, never>, options?: { locale?: Locale }) => string;
  keys?: string[];
  when?: (e?: KeyboardEvent) => boolean;
  /** How the sheet shows the keys when listing each would be long ("Ctrl+1…9"). */
  keysLabel?: () => string;
  /** Listed in the sheet, never in the palette (a key that only makes sense where it is pressed). */
  sheetOnly?: boolean;
  run: (e?: KeyboardEvent) => unknown;
}

export const GROUPS: readonly CommandGroup[] = ['general', 'panels', 'notes', 'editor', 'chat'];

export function groupLabel(g: CommandGroup): string {
  return { general: m.app_cmd_group_general, panels: m.app_cmd_group_panels, notes: m.app_cmd_group_notes, editor: m.app_cmd_group_editor, chat: m.app_cmd_group_chat }[g]();
}

const registry = new Map<string, Command>();
let version = $state(0);
// Never read where it is written: registering from an $effect does not make the effect depend on it.
const bump = () => untrack(() => version++);

/** Adds (or replaces) a command; returns the function that removes it. */
export function registerCommand(c: Command): () => void {
  registry.set(c.id, c);
  bump();
  return () => {
    if (registry.get(c.id) === c) {
      registry.delete(c.id);
      bump();
    }
  };
}

/** Adds several commands; returns the function that removes them all. */
export function registerCommands(list: Command[]): () => void {
  const offs = list.map(registerCommand);
  return () => offs.forEach((off) => off());
}

/** Every command, in registration order (reactive: re-read when one is added or removed). */
export function commands(): Command[] {
  void version;
  return [...registry.values()];
}

export function getCommand(id: string): Command | undefined {
  void version;
  return registry.get(id);
}

export function available(c: Command, e?: KeyboardEvent): boolean {
  try {
    return c.when ? c.when(e) : true;
  } catch {
    return false;
  }
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '');

interface Combo {
  mod: boolean;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  key: string;
}

function parse(keys: string): Combo {
  const parts = keys.split('+');
  // "Mod++" is Mod and "+".
  let key = parts.pop() ?? '';
  if (key === '' && parts.length && parts[parts.length - 1] === '') {
    parts.pop();
    key = '+';
  }
  const has = (p: string) => parts.includes(p);
  return { mod: has('Mod'), ctrl: has('Ctrl'), alt: has('Alt'), shift: has('Shift'), key };
}

/** Whether a key event is this shortcut. Shift is checked only for letters,
 * digits and named keys: "?" is Shift+/ on most layouts and says so itself. */
export function matches(keys: string, e: KeyboardEvent): boolean {
  const c = parse(keys);
  // Mod is ⌘ on macOS (Ctrl is Ctrl there), Ctrl elsewhere (where Ctrl and Mod are one key).
  if (isMac ? c.mod !== e.metaKey || c.ctrl !== e.ctrlKey : c.mod || c.ctrl ? !e.ctrlKey : e.ctrlKey) return false;
  if (!isMac && e.metaKey) return false;
  if (c.alt !== e.altKey) return false;
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const want = c.key.length === 1 ? c.key.toLowerCase() : c.key;
  // A letter by its key too: a Mac's Option+D types ∂.
  const letter = /^[a-z]$/.test(want) && e.code === `Key${want.toUpperCase()}`; // i18n-ignore: a key code
  if (k !== want && !letter) return false;
  const symbol = c.key.length === 1 && !/[a-z0-9]/i.test(c.key);
  return symbol || c.shift === e.shiftKey;
}

/** How a shortcut reads: "Ctrl+Shift+P" (⌘⇧P on macOS). */
export function keyLabel(keys: string): string {
  const c = parse(keys);
  const key = c.key.length === 1 ? c.key.toUpperCase() : c.key === 'Escape' ? 'Esc' : c.key;
  if (isMac) return `${c.ctrl ? '⌃' : ''}${c.alt ? '⌥' : ''}${c.shift ? '⇧' : ''}${c.mod ? '⌘' : ''}${key}`;
  // i18n-ignore: key names, the same in every language
  return [c.mod || c.ctrl ? 'Ctrl' : '', c.alt ? 'Alt' : '', c.shift ? 'Shift' : '', key].filter(Boolean).join('+');
}

/** A text field (or the editor) has the key: plain keys are its own. */
function typing(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t || !t.closest) return false;
  return !!t.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"], .cm-editor');
}

/** Runs the command whose shortcut this is, if any (and available); true when one ran. */
export function dispatch(e: KeyboardEvent): boolean {
  if (e.defaultPrevented) return false;
  for (const c of registry.values()) {
    if (!c.keys?.some((k) => matches(k, e))) continue;
    const plain = !e.ctrlKey && !e.metaKey && !e.altKey && e.key.length === 1;
    if (plain && typing(e)) continue;
    if (!available(c, e)) continue;
    e.preventDefault();
    void c.run(e);
    return true;
  }
  return false;
}

/** The words a command is found by: its label, in English too, and its id. */
export function searchText(c: Command): string {
  let en = '';
  try {
    en = c.label({}, { locale: 'en' });
  } catch {
    en = '';
  }
  return `${c.label()} ${en} ${c.id}`;
}

/** A query's match against a label: every character in order (case-blind),
 * or -1. Lower is better: a prefix or a word start scores best. */
export function score(query: string, label: string): number {
  const q = query.trim().toLowerCase();
  if (!q) return 0;
  const l = label.toLowerCase();
  const at = l.indexOf(q);
  if (at === 0) return 0;
  if (at > 0) return /[\s\-:/（(]/.test(l[at - 1]) ? 1 + at / 1000 : 2 + at / 1000;
  let gaps = 0;
  let last = -1;
  for (const ch of q) {
    if (ch === ' ') continue;
    const j = l.indexOf(ch, last + 1);
    if (j < 0) return -1;
    if (last >= 0 && j > last + 1) gaps++;
    last = j;
  }
  return 10 + gaps;
}
