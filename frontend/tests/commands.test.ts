// The command registry (lib/commands.svelte.ts): shortcuts match the keys
// they name (and only those), read as a person reads them, run only where
// they should (plain keys never in a text field, never while composing is
// the caller's), and the palette's matcher finds labels in either language.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commands, dispatch, keyLabel, matches, registerCommand, registerCommands, score, searchText } from '../src/lib/commands.svelte';
import { m } from '../src/lib/i18n.svelte';

const key = (key: string, o: KeyboardEventInit = {}, target?: EventTarget) => {
  const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...o });
  if (target) Object.defineProperty(e, 'target', { value: target });
  return e;
};

describe('commands', () => {
  const offs: (() => void)[] = [];
  afterEach(() => offs.splice(0).forEach((f) => f()));

  it('matches shortcuts exactly', () => {
    expect(matches('Mod+Shift+P', key('P', { ctrlKey: true, shiftKey: true }))).toBe(true);
    expect(matches('Mod+Shift+P', key('p', { ctrlKey: true }))).toBe(false);
    expect(matches('Mod+P', key('p', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(matches('Mod+P', key('p', { ctrlKey: true, altKey: true }))).toBe(false);
    expect(matches('Mod+\\', key('\\', { ctrlKey: true }))).toBe(true);
    expect(matches('?', key('?', { shiftKey: true }))).toBe(true);
    expect(matches('?', key('?', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(matches('F1', key('F1'))).toBe(true);
    expect(matches('Ctrl+Tab', key('Tab', { ctrlKey: true }))).toBe(true);
    expect(matches('Ctrl+Tab', key('Tab', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(matches('Escape', key('Escape', { ctrlKey: true }))).toBe(false);
  });

  it('reads shortcuts as printed on keys', () => {
    expect(keyLabel('Mod+Shift+P')).toBe('Ctrl+Shift+P');
    expect(keyLabel('Mod+,')).toBe('Ctrl+,');
    expect(keyLabel('Escape')).toBe('Esc');
    expect(keyLabel('?')).toBe('?');
  });

  it('runs the available command of a key; plain keys never in a text field; a removed one no more', () => {
    const run = vi.fn();
    const sheet = vi.fn();
    let on = false;
    offs.push(registerCommand({ id: 't.a', group: 'general', label: m.app_cmd_palette, keys: ['Mod+Shift+P'], when: () => on, run }));
    offs.push(registerCommand({ id: 't.b', group: 'general', label: m.app_cmd_sheet, keys: ['?'], run: sheet }));
    const e1 = key('P', { ctrlKey: true, shiftKey: true });
    expect(dispatch(e1)).toBe(false);
    on = true;
    const input = document.createElement('input');
    document.body.append(input);
    const e2 = key('P', { ctrlKey: true, shiftKey: true }, input);
    expect(dispatch(e2)).toBe(true);
    expect(e2.defaultPrevented).toBe(true);
    expect(run).toHaveBeenCalledTimes(1);
    expect(dispatch(key('?', { shiftKey: true }, input))).toBe(false);
    expect(dispatch(key('?', { shiftKey: true }, document.body))).toBe(true);
    expect(sheet).toHaveBeenCalledTimes(1);
    offs.splice(0).forEach((f) => f());
    expect(dispatch(key('P', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(commands().some((c) => c.id.startsWith('t.'))).toBe(false);
    input.remove();
  });

  it('registering an id again replaces it; the old handle does not remove the new one', () => {
    const a = registerCommand({ id: 't.x', group: 'notes', label: m.app_cmd_save, run: () => 1 });
    offs.push(registerCommands([{ id: 't.x', group: 'notes', label: m.app_cmd_save, run: () => 2 }]));
    a();
    expect(commands().filter((c) => c.id === 't.x')).toHaveLength(1);
  });

  it('finds labels by prefix, word, subsequence, and in English under Chinese', () => {
    expect(score('prev', 'Editor view: preview')).toBeGreaterThan(0);
    expect(score('editor', 'Editor view: preview')).toBe(0);
    expect(score('evp', 'Editor view: preview')).toBeGreaterThanOrEqual(10);
    expect(score('xyz', 'Editor view: preview')).toBe(-1);
    expect(score('专注', '专注模式（只显示编辑器）')).toBe(0);
    const c = { id: 'panels.focus', group: 'panels' as const, label: m.app_cmd_focus, run: () => {} };
    expect(searchText(c)).toContain('Focus mode');
  });
});
