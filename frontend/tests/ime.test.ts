// IME composition (lib/ime.ts): a key of a composition (isComposing, or
// keyCode 229 "Process") is never Enter, Esc or a shortcut. The modal
// dialogs' keys (lib/modal.ts) leave it to the IME, and every key handler
// of the components checks it (a source scan: a new handler that forgets
// it fails here).
import { describe, expect, it, vi } from 'vitest';
import { isComposing } from '../src/lib/ime';
import { isComposing as fromLinks } from '../src/lib/links';
import { modalKeys } from '../src/lib/modal';

const key = (init: KeyboardEventInit & { keyCode?: number }) => new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });

describe('isComposing', () => {
  it('is true for a key of a composition (isComposing set)', () => {
    expect(isComposing(key({ key: 'Enter', isComposing: true }))).toBe(true);
    expect(isComposing(key({ key: 'Escape', isComposing: true }))).toBe(true);
    expect(isComposing(key({ key: ' ', isComposing: true }))).toBe(true);
  });

  it('is true for keyCode 229 (the IME took the key) even without isComposing', () => {
    expect(isComposing(key({ key: 'Process', keyCode: 229 }))).toBe(true);
    expect(isComposing(key({ key: 'Enter', keyCode: 229 }))).toBe(true);
  });

  it('is false for ordinary keys and shortcuts', () => {
    expect(isComposing(key({ key: 'Enter', keyCode: 13 }))).toBe(false);
    expect(isComposing(key({ key: 'Escape', keyCode: 27 }))).toBe(false);
    expect(isComposing(key({ key: 's', ctrlKey: true, keyCode: 83 }))).toBe(false);
    expect(isComposing(key({ key: 'a' }))).toBe(false);
  });

  it('has one implementation (links.ts re-exports it)', () => {
    expect(fromLinks).toBe(isComposing);
  });
});

describe('modalKeys during a composition', () => {
  function mount() {
    const outside = document.createElement('button');
    document.body.append(outside);
    outside.focus();
    const node = document.createElement('div');
    const input = document.createElement('input');
    const ok = document.createElement('button');
    node.append(input, ok);
    document.body.append(node);
    const onEscape = vi.fn();
    const detach = modalKeys(onEscape)(node);
    input.focus();
    return { node, input, ok, outside, onEscape, detach };
  }

  it('Esc of the IME does not close the dialog; a real Esc then does', () => {
    const d = mount();
    const ime = key({ key: 'Escape', isComposing: true });
    d.input.dispatchEvent(ime);
    expect(d.onEscape).not.toHaveBeenCalled();
    expect(ime.defaultPrevented).toBe(false); // the IME keeps its key
    const real = key({ key: 'Escape' });
    d.input.dispatchEvent(real);
    expect(d.onEscape).toHaveBeenCalledTimes(1);
    expect(real.defaultPrevented).toBe(true);
    d.detach();
    d.node.remove();
    d.outside.remove();
  });

  it('a composing Esc on the page (focus dropped to body) does not close it either', () => {
    const d = mount();
    (document.activeElement as HTMLElement).blur();
    document.body.dispatchEvent(key({ key: 'Escape', keyCode: 229 }));
    expect(d.onEscape).not.toHaveBeenCalled();
    document.body.dispatchEvent(key({ key: 'Escape' }));
    expect(d.onEscape).toHaveBeenCalledTimes(1);
    d.detach();
    d.node.remove();
    d.outside.remove();
  });

  it('Tab of the IME is not trapped (focus stays in the field, nothing prevented)', () => {
    const d = mount();
    d.ok.focus();
    const ime = key({ key: 'Tab', isComposing: true });
    d.ok.dispatchEvent(ime);
    expect(ime.defaultPrevented).toBe(false);
    const real = key({ key: 'Tab' });
    d.ok.dispatchEvent(real); // the last focusable: wraps to the first
    expect(real.defaultPrevented).toBe(true);
    d.detach();
    d.node.remove();
    d.outside.remove();
  });
});

// Every component (and lib module) with a key handler checks isComposing.
const SOURCES: Record<string, string> = import.meta.glob<string>(['../src/components/*.svelte', '../src/lib/*.ts'], {
  eager: true,
  query: '?raw',
  import: 'default',
});

describe('key handlers', () => {
  const withKeys = Object.entries(SOURCES).filter(([, src]) => /onkey(down|up)=|\{onkey(down|up)\}|addEventListener\(['"]key/.test(src));

  it('are found (the scan works)', () => {
    const names = withKeys.map(([p]) => p.split('/').pop());
    for (const n of ['Composer.svelte', 'FileTree.svelte', 'Picker.svelte', 'PermissionDialog.svelte', 'modal.ts', 'App.svelte']) expect(names).toContain(n);
  });

  it.each(withKeys.map(([p, src]) => [p.replace(/^\.\.\/src\//, ''), src]))('%s bails out while composing', (_p, src) => {
    expect(src).toMatch(/isComposing\(e\)/);
  });
});
