import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PermissionRequest, ToolCall } from '../src/api/types';
import PermissionDialog from '../src/components/PermissionDialog.svelte';
import SessionControls from '../src/components/SessionControls.svelte';
import ToolCard from '../src/components/ToolCard.svelte';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;

beforeEach(() => {
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target.remove();
});

const editCall: ToolCall = {
  id: 'e4',
  toolCallId: 'tc1',
  title: 'Edit notes/todo.md',
  kind: 'edit',
  status: 'completed',
  startedMs: 1_000,
  endedMs: 2_500,
  locations: [{ path: '/home/me/notes/todo.md', line: 3 }],
  content: [
    {
      type: 'diff',
      path: '/home/me/notes/todo.md',
      oldText: '# Todo\n- milk\n- eggs\n- bread\n',
      newText: '# Todo\n- milk\n- oat milk\n- bread\n- <script>alert(1)</script>\n',
    },
  ],
};

describe('ToolCard', () => {
  it('renders kind, title, status, duration, locations and the diff', () => {
    comp = mount(ToolCard, { target, props: { tool: editCall } });
    flushSync();
    const card = target.querySelector('[data-testid="tool-card"]')!;
    expect(card.getAttribute('data-status')).toBe('completed');
    expect(card.querySelector('.title')?.textContent).toBe('Edit notes/todo.md');
    expect(card.querySelector('.badge')?.textContent?.trim()).toBe('Done');
    expect(card.querySelector('.dur')?.textContent).toBe('1.5s');
    expect(card.querySelector('.loc')?.textContent).toBe('todo.md:3');

    const diff = card.querySelector('[data-testid="diff"]')!;
    const added = [...diff.querySelectorAll('.row.add code')].map((c) => c.textContent);
    const removed = [...diff.querySelectorAll('.row.del code')].map((c) => c.textContent);
    expect(removed).toEqual(['- eggs']);
    expect(added).toEqual(['- oat milk', '- <script>alert(1)</script>']);
    expect(diff.querySelector('.add')?.textContent).toBe('+2');
    expect(diff.querySelector('.del')?.textContent).toBe('−1');
    expect(diff.querySelectorAll('script')).toHaveLength(0); // text, never markup
    // line numbers: the added "- oat milk" is new line 3
    const row = [...diff.querySelectorAll('.row.add')][0];
    expect([...row.querySelectorAll('.ln')].map((l) => l.textContent)).toEqual(['', '3']);
  });

  it('collapses and expands from its header', () => {
    comp = mount(ToolCard, { target, props: { tool: editCall } });
    flushSync();
    const head = target.querySelector<HTMLButtonElement>('button.head')!;
    expect(head.getAttribute('aria-expanded')).toBe('true'); // diffs open by default
    head.click();
    flushSync();
    expect(target.querySelector('[data-testid="diff"]')).toBeNull();
    expect(head.getAttribute('aria-expanded')).toBe('false');
    head.click();
    flushSync();
    expect(target.querySelector('[data-testid="diff"]')).not.toBeNull();
  });

  it('shows the command and clipped output of an execute call, collapsed by default', () => {
    const lines = Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join('\n');
    comp = mount(ToolCard, {
      target,
      props: {
        tool: {
          id: 'e9',
          toolCallId: 'tc9',
          title: 'ls -la',
          kind: 'execute',
          status: 'in_progress',
          rawInput: { command: ['ls', '-la'] },
          content: [{ type: 'content', content: { type: 'text', text: lines } }],
        },
      },
    });
    flushSync();
    expect(target.querySelector('.badge')?.textContent?.trim()).toBe('Running');
    expect(target.querySelector('.body')).toBeNull();
    target.querySelector<HTMLButtonElement>('button.head')!.click();
    flushSync();
    expect(target.querySelector('.cmd')?.textContent).toBe('$ ls -la');
    const out = target.querySelector('pre.out')!.textContent!;
    expect(out.split('\n')).toHaveLength(200);
    const more = target.querySelector<HTMLButtonElement>('button.more')!;
    expect(more.textContent).toBe('Show 50 more lines');
    more.click();
    flushSync();
    expect(target.querySelector('pre.out')!.textContent!.split('\n')).toHaveLength(250);
  });
});

describe('PermissionDialog', () => {
  const options = [
    { optionId: 'o-allow', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'o-always', name: 'Always allow', kind: 'allow_always' },
    { optionId: 'o-reject', name: 'Reject', kind: 'reject_once' },
  ];
  const requests: PermissionRequest[] = [
    {
      requestId: 'r1',
      toolCallId: 'tc1',
      title: 'Edit notes/todo.md',
      kind: 'edit',
      options,
      toolCall: {
        toolCallId: 'tc1',
        content: [{ type: 'diff', path: 'notes/todo.md', oldText: 'a\n', newText: 'b\n' }],
        locations: [{ path: 'notes/todo.md' }],
      },
    },
    {
      requestId: 'r2',
      toolCallId: 'tc2',
      title: 'Run make test',
      kind: 'execute',
      options,
      toolCall: { toolCallId: 'tc2', rawInput: { command: 'make test' } },
    },
  ];

  let now = 10_000;
  beforeEach(() => {
    now = 10_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
  });

  async function open(reqs: PermissionRequest[], ondecide = vi.fn()) {
    comp = mount(PermissionDialog, { target, props: { requests: reqs, ondecide } });
    flushSync();
    await tick();
    await tick();
    now += 1000; // past the guard against held keys
    return { ondecide, dialog: target.querySelector<HTMLElement>('[role="dialog"]')! };
  }

  function key(el: Element, k: string, extra: KeyboardEventInit = {}) {
    const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...extra });
    el.dispatchEvent(e);
    return e;
  }

  it('shows the request, its diff, the queue position and the agent\'s options numbered', async () => {
    const { dialog } = await open(requests);
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.querySelector('.title')?.textContent).toBe('Edit notes/todo.md');
    expect(dialog.querySelector('[data-testid="perm-count"]')?.textContent).toBe('1 of 2');
    expect(dialog.querySelector('[data-testid="diff"] .row.add code')?.textContent).toBe('b');
    const buttons = [...dialog.querySelectorAll<HTMLButtonElement>('button[data-option]')];
    // One-time options are numbered; an always-choice has no shortcut.
    expect(buttons.map((b) => b.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['1 Allow once', 'Always allow', '3 Reject']);
    expect(document.activeElement).toBe(buttons[0]); // the allow-once option has focus
  });

  it('number keys pick one-time options; Enter picks allow once; Esc rejects once', async () => {
    const { ondecide, dialog } = await open(requests);
    key(dialog, '2'); // the always-choice: not by a digit
    expect(ondecide).not.toHaveBeenCalled();
    key(dialog, '3');
    expect(ondecide).toHaveBeenLastCalledWith('r1', 'o-reject');
    key(dialog, 'Enter');
    expect(ondecide).toHaveBeenLastCalledWith('r1', 'o-allow');
    const esc = key(dialog, 'Escape');
    expect(esc.defaultPrevented).toBe(true);
    expect(ondecide).toHaveBeenLastCalledWith('r1', 'o-reject');
    key(dialog, '9'); // no such option
    expect(ondecide).toHaveBeenCalledTimes(3);
  });

  it('ignores held (repeated) keys and keys right after a request appears', async () => {
    const { ondecide, dialog } = await open(requests);
    key(dialog, '1', { repeat: true });
    expect(ondecide).not.toHaveBeenCalled();
    now -= 1000; // as if the request had just appeared
    key(dialog, '1');
    expect(ondecide).not.toHaveBeenCalled();
  });

  it('clicking an option answers it; an execute request shows its command', async () => {
    const { ondecide, dialog } = await open([requests[1]]);
    expect(dialog.querySelector('[data-testid="perm-count"]')).toBeNull();
    expect(dialog.querySelector('pre.cmd')?.textContent).toBe('$ make test');
    dialog.querySelector<HTMLButtonElement>('button[data-option="o-reject"]')!.click();
    expect(ondecide).toHaveBeenCalledWith('r2', 'o-reject');
  });

  it('keeps Tab inside the dialog', async () => {
    const { dialog } = await open([requests[1]]);
    const buttons = [...dialog.querySelectorAll<HTMLButtonElement>('button')];
    buttons[buttons.length - 1].focus();
    const e = key(dialog, 'Tab');
    expect(e.defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(buttons[0]);
  });
});

describe('SessionControls', () => {
  it('offers the models of session/set_model and reports a pick', async () => {
    const picked: string[] = [];
    comp = mount(SessionControls, {
      target,
      props: {
        modes: [],
        currentModeId: '',
        configOptions: [],
        models: [
          { modelId: 'fast', name: 'Fast' },
          { modelId: 'deep', name: 'Deep', description: 'slow, thorough' },
        ],
        currentModelId: 'fast',
        onmode: () => {},
        onconfig: () => {},
        onmodel: (id: string) => picked.push(id),
      },
    });
    flushSync();
    const sel = target.querySelector('select[aria-label="Model"]') as HTMLSelectElement;
    expect(sel).not.toBeNull();
    expect(sel.value).toBe('fast');
    expect([...sel.options].map((o) => o.textContent)).toEqual(['Fast', 'Deep']);
    sel.value = 'deep';
    sel.dispatchEvent(new Event('change', { bubbles: true }));
    expect(picked).toEqual(['deep']);
  });

  it('leaves the model to a "model" config option when there is one, and reports its pick as a model', () => {
    const picked: string[] = [];
    const set: [string, string | boolean][] = [];
    comp = mount(SessionControls, {
      target,
      props: {
        modes: [],
        currentModeId: '',
        configOptions: [
          { id: 'm', name: 'Model', category: 'model', type: 'select', currentValue: 'a', options: [{ value: 'a', name: 'A' }, { value: 'b', name: 'B' }] },
          { id: 'e', name: 'Effort', category: 'thought_level', type: 'select', currentValue: 'low', options: [{ value: 'low', name: 'Low' }, { value: 'high', name: 'High' }] },
        ],
        models: [
          { modelId: 'fast', name: 'Fast' },
          { modelId: 'deep', name: 'Deep' },
        ],
        currentModelId: 'fast',
        onmode: () => {},
        onconfig: (id: string, v: string | boolean) => set.push([id, v]),
        onmodel: (id: string) => picked.push(id),
      },
    });
    flushSync();
    const sels = [...target.querySelectorAll('select')];
    expect(sels.map((x) => x.getAttribute('aria-label'))).toEqual(['Model', 'Effort']);
    expect(sels[0].value).toBe('a');
    expect([...sels[0].options].map((o) => o.textContent)).toEqual(['A', 'B']);
    sels[0].value = 'b';
    sels[0].dispatchEvent(new Event('change', { bubbles: true }));
    sels[1].value = 'high';
    sels[1].dispatchEvent(new Event('change', { bubbles: true }));
    expect(picked).toEqual(['b']);
    expect(set).toEqual([['e', 'high']]);
  });
});
