// Settings beyond sync: the theme and text size (applied to the document
// and kept), autosave, and the remembered permissions with Revoke.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PermissionRule } from '../src/api/types';
import SettingsDialog from '../src/components/SettingsDialog.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;

beforeEach(() => {
  localStorage.clear();
  delete document.documentElement.dataset.theme;
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target.remove();
});

function setup(rules: PermissionRule[]) {
  let kept = [...rules];
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'workspace.get': () => ({ dir: '/home/me/notes', name: 'notes', recent: [] }),
    'sync.status': () => ({ enabled: false, configured: false, allowTitles: false, pending: 0, parked: 0 }),
    'permissions.rules': () => kept,
    'permissions.revoke': (a) => {
      kept = kept.filter((r) => !(r.agent === a.agent && r.workspace === a.workspace && r.toolKind === a.toolKind));
      return null;
    },
  });
  const app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  setFeatures(app, new Features(app, { pollMs: 60_000 }));
  comp = mount(SettingsDialog, { target });
  flushSync();
  return { ...f, app };
}

const rule = (toolKind: string, decision: 'allow' | 'reject', workspace = '/home/me/notes'): PermissionRule => ({
  agent: 'claude',
  workspace,
  toolKind,
  optionKind: decision === 'allow' ? 'allow_always' : 'reject_always',
  decision,
  createdMs: 1,
});

describe('SettingsDialog: look, notes, permissions', () => {
  it('switches the theme and the text size on the document and keeps them', async () => {
    const { app } = setup([]);
    const dark = target.querySelector<HTMLInputElement>('input[name="theme"][value="dark"]')!;
    dark.click();
    flushSync();
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(localStorage.getItem('mnote.theme')).toBe('dark');
    target.querySelector<HTMLInputElement>('input[name="theme"][value="light"]')!.click();
    flushSync();
    expect(document.documentElement.dataset.theme).toBe('light');
    const size = target.querySelector<HTMLSelectElement>('#font-size')!;
    size.value = '16';
    size.dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    expect(document.documentElement.style.getPropertyValue('--font-size')).toBe('16px');
    expect(app.ui.fontSize).toBe(16);
    // A new window starts with them.
    const again = new AppState(fakeClient({}).client);
    expect(again.ui.theme).toBe('light');
    expect(again.ui.fontSize).toBe(16);
  });

  it('turns autosave off and on', () => {
    const { app } = setup([]);
    const box = target.querySelector<HTMLInputElement>('[data-testid="notes-settings"] input[type="checkbox"]')!;
    expect(box.checked).toBe(true);
    box.click();
    flushSync();
    expect(app.editor.autosave).toBe(false);
    expect(localStorage.getItem('mnote.autosave')).toBe('0');
  });

  it('lists the remembered decisions and revokes one', async () => {
    const { call } = setup([rule('execute', 'allow'), rule('delete', 'reject', '/elsewhere')]);
    const rows = await vi.waitFor(() => {
      const r = target.querySelectorAll('[data-testid="rule-row"]');
      expect(r).toHaveLength(2);
      return r;
    });
    expect(rows[0].textContent).toContain('Always allowed');
    expect(rows[0].textContent).toContain('Run command');
    expect(rows[0].textContent).toContain('this notes folder');
    expect(rows[1].textContent).toContain('Always rejected');
    expect(rows[1].textContent).toContain('/elsewhere');
    rows[0].querySelector<HTMLButtonElement>('button')!.click();
    await vi.waitFor(() => expect(target.querySelectorAll('[data-testid="rule-row"]')).toHaveLength(1));
    expect(call).toHaveBeenCalledWith('permissions.revoke', { agent: 'claude', workspace: '/home/me/notes', toolKind: 'execute' });
  });
});
