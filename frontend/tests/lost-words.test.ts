// Never lose a word in the page: the permission dialog shows what a write
// does to the note as the person has it (their unsaved lines that go, a
// conflict), and the editor's bar puts back unsaved lines an agent's write
// removed.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PermissionRequest } from '../src/api/types';
import PermissionDialog from '../src/components/PermissionDialog.svelte';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { EditorStore } from '../src/stores/editor.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient } from './helpers';

const SAVED = '# 缓存设计\n- 命中率达到 90%。\n';
const TYPED = '- 周五前给出方案（我正在写，还没保存）。';
const AGENT = SAVED + '- 补充监控指标。\n';

let comp: ReturnType<typeof mount> | null = null;
let target: HTMLElement;
afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target?.remove();
});

function dialogWith(extra: Partial<PermissionRequest>): HTMLElement {
  target = document.createElement('div');
  document.body.append(target);
  const req: PermissionRequest = {
    requestId: 'r1',
    toolCallId: 'tc1',
    title: 'Edit 缓存设计.md',
    kind: 'edit',
    options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
    toolCall: { toolCallId: 'tc1', content: [{ type: 'diff', path: '/n/缓存设计.md', oldText: SAVED, newText: AGENT }] },
    ...extra,
  };
  comp = mount(PermissionDialog, { target, props: { requests: [req], ondecide: vi.fn() } });
  flushSync();
  return target.querySelector<HTMLElement>('[role="dialog"]')!;
}

describe('the permission dialog shows a write against the note as it is now', () => {
  it('names the unsaved line that would go and diffs from the editor’s text, the agent’s own diff folded', () => {
    const d = dialogWith({
      effects: [{ agentPath: '/n/缓存设计.md', path: '缓存设计.md', current: SAVED + TYPED, unsaved: true, result: AGENT, lost: [TYPED], differs: true }],
    });
    const fx = d.querySelector('[data-testid="perm-effect"]')!;
    expect(fx.textContent).toContain('缓存设计.md');
    expect(fx.textContent).toContain('unsaved');
    expect(d.querySelector('[data-testid="perm-effect-lost"]')?.textContent).toContain(TYPED);
    // The diff shown first removes the typed line (current → result).
    const diffs = d.querySelectorAll('[data-testid="diff"]');
    expect(diffs[0].textContent).toContain(TYPED);
    expect(d.querySelector('details.agent-diff')?.textContent).toContain('The agent’s own diff');
  });

  it('a conflict says the person’s text stays, and shows no diff as if it were applied', () => {
    const d = dialogWith({
      effects: [{ agentPath: '/n/缓存设计.md', path: '缓存设计.md', current: SAVED + 'mine\n', result: SAVED + 'mine\n', conflict: true, differs: true }],
    });
    expect(d.querySelector('[data-testid="perm-effect-conflict"]')?.textContent).toContain('your text stays in the editor');
    expect(d.querySelector('[data-testid="perm-effect"] [data-testid="diff"]')).toBeNull();
  });

  it('without effects the agent’s diff is all there is', () => {
    const d = dialogWith({});
    expect(d.querySelector('[data-testid="perm-effect"]')).toBeNull();
    expect(d.querySelectorAll('[data-testid="diff"]')).toHaveLength(1);
  });
});

describe('the editor’s bar for unsaved lines an agent’s write removed', () => {
  async function tabWith(content: string) {
    const { client } = fakeClient({
      'files.open': () => ({ path: 'c.md', content, dirty: false, version: 1 }),
      'files.update': (a) => ({ path: 'c.md', content: String(a.content), dirty: true, version: 10 }),
    });
    const ed = new EditorStore(client, new ToastStore(), new ConfirmStore(), { updateDelayMs: 300, autosaveDelayMs: 1000 });
    ed.setAutosave(false);
    const t = (await ed.open('c.md'))!;
    return { ed, t };
  }

  it('a write that dropped the typed line sets the bar; Put it back returns it beside the agent’s line, unsaved', async () => {
    const { ed, t } = await tabWith(SAVED);
    ed.applyBuffers([
      { kind: 'written', buffer: { path: 'c.md', content: AGENT, dirty: false, version: 3 }, dropped: [TYPED], previous: SAVED + TYPED, previousDisk: SAVED },
    ]);
    expect(t.text()).toBe(AGENT);
    expect(t.dropped?.lines).toEqual([TYPED]);
    ed.putBack(t);
    expect(t.dropped).toBeNull();
    expect(t.text()).toBe(AGENT + TYPED);
    expect(t.dirty).toBe(true);
    await tick();
  });

  it('puts the line back where it was when the agent changed another place', async () => {
    const { ed, t } = await tabWith('a\nb\nc\nd\n');
    ed.applyBuffers([
      {
        kind: 'written',
        buffer: { path: 'c.md', content: 'A\nb\nc\nd\n', dirty: false, version: 3 },
        dropped: ['typed'],
        previous: 'a\nb\nc\ntyped\nd\n',
        previousDisk: 'a\nb\nc\nd\n',
      },
    ]);
    ed.putBack(t);
    expect(t.text()).toBe('A\nb\nc\ntyped\nd\n');
  });

  it('the next write without dropped lines clears the bar', async () => {
    const { ed, t } = await tabWith(SAVED);
    ed.applyBuffers([{ kind: 'written', buffer: { path: 'c.md', content: AGENT, dirty: false, version: 3 }, dropped: [TYPED], previous: SAVED + TYPED, previousDisk: SAVED }]);
    ed.applyBuffers([{ kind: 'written', buffer: { path: 'c.md', content: AGENT + 'more\n', dirty: false, version: 4 } }]);
    expect(t.dropped).toBeNull();
  });
});
