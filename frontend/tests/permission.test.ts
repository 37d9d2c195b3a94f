// The permission dialog's safe defaults (Enter never grants for good), its
// title and file labels, and a tool card's status after the decision.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PermissionOption, PermissionRequest, ToolCall } from '../src/api/types';
import PermissionDialog from '../src/components/PermissionDialog.svelte';
import ToolCard from '../src/components/ToolCard.svelte';
import { cardStatus, defaultOption, looksLikeJSON, pathLabel, permissionTitle } from '../src/components/permtext';

const o = (optionId: string, kind: string, name = optionId): PermissionOption => ({ optionId, name, kind });

describe('defaultOption', () => {
  it('is the first allow_once, never an always-choice, whatever the order', () => {
    expect(defaultOption([o('aa', 'allow_always'), o('ao', 'allow_once'), o('ro', 'reject_once')])).toBe(1);
    expect(defaultOption([o('ra', 'reject_always'), o('aa', 'allow_always'), o('ro', 'reject_once')])).toBe(2);
    expect(defaultOption([o('aa', 'allow_always'), o('ra', 'reject_always')])).toBe(-1);
    expect(defaultOption([o('x', 'allow_sometimes'), o('ao', 'allow_once')])).toBe(1);
    expect(defaultOption([])).toBe(-1);
  });
});

describe('permissionTitle and pathLabel', () => {
  const root = '/home/me/notes';
  it('uses the tool call title unless it is raw JSON', () => {
    expect(permissionTitle('Edit todo', 'edit', {}, root)).toBe('Edit todo');
    expect(looksLikeJSON('{"path":"/home/me/notes/a.md"}')).toBe(true);
    expect(looksLikeJSON('[draft] plan')).toBe(false);
    expect(permissionTitle('{"path":"/home/me/notes/a.md","content":"x"}', 'edit', { locations: [{ path: '/home/me/notes/sub/a.md' }] }, root)).toBe(
      'Edit sub/a.md',
    );
    expect(permissionTitle('', 'execute', { rawInput: { command: ['ls', '-la'] } }, root)).toBe('Run command: ls -la');
    expect(permissionTitle('  ', 'delete', { content: [{ type: 'diff', path: '/etc/passwd', newText: '' }] }, root)).toBe('Delete /etc/passwd');
    expect(permissionTitle(undefined, 'weird', {}, root)).toBe('Tool');
  });

  it('labels paths relative to the notes folder, and the rest as outside', () => {
    expect(pathLabel('/home/me/notes/a/b.md', root)).toEqual({ label: 'a/b.md', outside: false });
    expect(pathLabel('/home/me/notes2/b.md', root)).toEqual({ label: '/home/me/notes2/b.md', outside: true });
    expect(pathLabel('/home/me/notes/../.ssh/id_rsa', root)).toEqual({ label: '/home/me/.ssh/id_rsa', outside: true });
    expect(pathLabel('/etc/passwd', root)).toEqual({ label: '/etc/passwd', outside: true });
    expect(pathLabel('a.md', root)).toEqual({ label: 'a.md', outside: false });
    expect(pathLabel('../x.md', root)).toEqual({ label: '/home/me/x.md', outside: true });
    expect(pathLabel('/home/me/notes/', root + '/')).toEqual({ label: '.', outside: false });
  });
});

describe('cardStatus', () => {
  it('names a rejection once', () => {
    expect(cardStatus({ status: 'rejected', decision: 'reject_once' }, true)).toEqual({ label: 'Rejected', tone: 'err', spinner: false, decision: '' });
    expect(cardStatus({ status: 'rejected', decision: 'reject_always' }, false).label).toBe('Always rejected');
    expect(cardStatus({ status: 'cancelled', decision: 'cancelled' }, false)).toMatchObject({ label: 'Cancelled', decision: '' });
    expect(cardStatus({ status: 'completed', decision: 'allow_once' }, false)).toMatchObject({ label: 'Done', decision: 'Allowed once' });
  });

  it('never says Running once the turn ended or the call has ended', () => {
    expect(cardStatus({ status: 'in_progress', decision: 'allow_once' }, true)).toMatchObject({ label: 'Running', spinner: true });
    expect(cardStatus({ status: 'in_progress', decision: 'allow_once' }, false)).toMatchObject({ label: 'Not finished', spinner: false });
    expect(cardStatus({ status: 'pending' }, false)).toMatchObject({ label: 'Not finished', spinner: false });
    expect(cardStatus({ status: 'in_progress', endedMs: 5 }, true)).toMatchObject({ label: 'Not finished', spinner: false });
  });
});

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let now = 10_000;

beforeEach(() => {
  target = document.createElement('div');
  document.body.appendChild(target);
  now = 10_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target.remove();
  vi.restoreAllMocks();
});

function key(el: Element, k: string) {
  const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true });
  el.dispatchEvent(e);
  return e;
}

async function open(req: PermissionRequest, root?: string) {
  const ondecide = vi.fn();
  comp = mount(PermissionDialog, { target, props: { requests: [req], ondecide, root } });
  flushSync();
  await tick();
  await tick();
  now += 1000;
  return { ondecide, dialog: target.querySelector<HTMLElement>('[role="dialog"]')! };
}

const req = (options: PermissionOption[], extra: Partial<PermissionRequest> = {}): PermissionRequest => ({
  requestId: 'r1',
  toolCallId: 'tc1',
  title: 'Edit a.md',
  kind: 'edit',
  options,
  toolCall: null,
  ...extra,
});

describe('PermissionDialog defaults', () => {
  it('focuses allow once even when the agent lists allow always first; Enter picks it', async () => {
    const { ondecide, dialog } = await open(req([o('aa', 'allow_always', 'Always'), o('ao', 'allow_once', 'Once'), o('ro', 'reject_once', 'No')]));
    expect((document.activeElement as HTMLElement).dataset.option).toBe('ao');
    key(dialog, 'Enter');
    expect(ondecide).toHaveBeenCalledWith('r1', 'ao');
  });

  it('with no allow once, the default is reject once; always-choices need the arrows', async () => {
    const { ondecide, dialog } = await open(req([o('aa', 'allow_always'), o('ro', 'reject_once'), o('ra', 'reject_always')]));
    expect((document.activeElement as HTMLElement).dataset.option).toBe('ro');
    key(dialog, 'Enter');
    expect(ondecide).toHaveBeenLastCalledWith('r1', 'ro');
    key(document.activeElement!, 'ArrowRight');
    expect((document.activeElement as HTMLElement).dataset.option).toBe('ra');
    key(document.activeElement!, 'ArrowRight'); // wraps
    expect((document.activeElement as HTMLElement).dataset.option).toBe('aa');
    (document.activeElement as HTMLButtonElement).click(); // what Enter on a button does
    expect(ondecide).toHaveBeenLastCalledWith('r1', 'aa');
  });

  it('with only always-choices, Enter on the dialog answers nothing', async () => {
    const { ondecide, dialog } = await open(req([o('aa', 'allow_always'), o('ra', 'reject_always')]));
    expect(document.activeElement).toBe(dialog);
    key(dialog, 'Enter');
    key(dialog, '1');
    expect(ondecide).not.toHaveBeenCalled();
  });

  it('titles a raw-JSON request by its kind and file, and warns about a file outside the notes folder', async () => {
    const { dialog } = await open(
      req([o('ao', 'allow_once')], {
        title: '{"file_path":"/home/me/.bashrc"}',
        toolCall: { toolCallId: 'tc1', locations: [{ path: '/home/me/.bashrc' }, { path: '/home/me/notes/in.md', line: 3 }] },
      }),
      '/home/me/notes',
    );
    expect(dialog.querySelector('[data-testid="perm-title"]')?.textContent).toBe('Edit /home/me/.bashrc');
    expect([...dialog.querySelectorAll('[data-testid="perm-file"]')].map((e) => e.textContent)).toEqual(['/home/me/.bashrc', 'in.md:3']);
    expect(dialog.querySelectorAll('[data-testid="perm-outside"]')).toHaveLength(1);
    expect(dialog.querySelector('[data-testid="perm-outside"]')?.textContent).toContain('outside the notes folder');
  });
});

describe('ToolCard status', () => {
  const tool: ToolCall = { id: 'e1', toolCallId: 'tc1', title: 'Edit a.md', kind: 'edit', status: 'rejected', decision: 'reject_once' };
  it('says Rejected once', () => {
    comp = mount(ToolCard, { target, props: { tool } });
    flushSync();
    expect(target.querySelector('.head')?.textContent?.match(/Rejected/g)).toHaveLength(1);
  });

  it('is not Running once its turn ended', () => {
    comp = mount(ToolCard, { target, props: { tool: { ...tool, status: 'in_progress', decision: 'allow_once', startedMs: 1 }, live: false } });
    flushSync();
    const badge = target.querySelector('.badge')!;
    expect(badge.textContent?.trim()).toBe('Not finished');
    expect(badge.querySelector('.spinner')).toBeNull();
  });
});

describe('PermissionDialog option wording', () => {
  const button = (dialog: HTMLElement, id: string) => dialog.querySelector<HTMLButtonElement>(`button[data-option="${id}"]`)!;
  const label = (b: HTMLElement) => b.querySelector('[data-testid="perm-option-label"]')?.textContent;
  const name = (b: HTMLElement) => b.querySelector('[data-testid="perm-option-name"]')?.textContent ?? null;

  it('words a button by its kind: an always-choice named "Allow once" says Always allow, the name beside it', async () => {
    const { ondecide, dialog } = await open(
      req([o('liar', 'allow_always', 'Allow once'), o('shy', 'allow_once', 'Always allow'), o('ro', 'reject_once', 'Reject'), o('ra', 'reject_always', 'Never')]),
    );
    const liar = button(dialog, 'liar');
    expect(label(liar)).toBe('Always allow');
    expect(name(liar)).toBe('“Allow once”');
    expect(liar.title).toBe('The agent calls it “Allow once”');
    expect(liar.querySelector('kbd')).toBeNull(); // no digit picks it
    expect(label(button(dialog, 'shy'))).toBe('Allow once');
    expect(name(button(dialog, 'shy'))).toBe('“Always allow”');
    // The agent's name that says what the kind does is not repeated.
    expect(label(button(dialog, 'ro'))).toBe('Reject');
    expect(name(button(dialog, 'ro'))).toBeNull();
    expect(label(button(dialog, 'ra'))).toBe('Always reject');
    expect(name(button(dialog, 'ra'))).toBe('“Never”');
    // Enter picks the one-time allow, whatever its name says.
    expect((document.activeElement as HTMLElement).dataset.option).toBe('shy');
    expect(dialog.querySelector('.foot-hints')?.textContent).toContain('Allow once');
    key(dialog, '1');
    expect(ondecide).not.toHaveBeenCalled();
    key(dialog, 'Enter');
    expect(ondecide).toHaveBeenCalledWith('r1', 'shy');
  });

  it('an unknown kind reads as another choice with its name, and is never a default', async () => {
    const { ondecide, dialog } = await open(req([o('sess', 'allow_for_session', 'Allow once'), o('ra', 'reject_always', 'Always reject')]));
    const b = button(dialog, 'sess');
    expect(label(b)).toBe('Other choice');
    expect(name(b)).toBe('“Allow once”');
    expect(b.title).toContain('allow_for_session');
    expect(b.classList.contains('unknown')).toBe(true);
    expect(document.activeElement).toBe(dialog);
    key(dialog, 'Enter');
    key(dialog, '1');
    expect(ondecide).not.toHaveBeenCalled();
  });
});
