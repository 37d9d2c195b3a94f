// The line merge that keeps typed edits when content arrives (lib/merge.ts,
// the same rules as workspace/merge.go), and the editor store using it:
// an agent's write never drops typed text.
import { describe, expect, it } from 'vitest';
import { merge3 } from '../src/lib/merge';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { EditorStore } from '../src/stores/editor.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient } from './helpers';

describe('merge3', () => {
  const cases: [string, string, string, string, string | null][] = [
    ['apart', '1\n2\n3\n4\n5\n', '1 m\n2\n3\n4\n5\n', '1\n2\n3\n4\n5 t\n', '1 m\n2\n3\n4\n5 t\n'],
    ['adjacent lines', '1\n2\n3\n', '1\n2 m\n3\n', '1\n2\n3 t\n', '1\n2 m\n3 t\n'],
    ['same line', '1\n2\n3\n', '1\n2 m\n3\n', '1\n2 t\n3\n', null],
    ['same change twice', '1\n2\n3\n', '1\n2 x\n3\n4 m\n', '0 t\n1\n2 x\n3\n', '0 t\n1\n2 x\n3\n4 m\n'],
    ['insert at same place', '1\n2\n', '1\nm\n2\n', '1\nt\n2\n', null],
    ['insert beside a change', '1\n2\n3\n', '1\nm\n2\n3\n', '1\n2 t\n3\n', null],
    ['append and prepend', 'x\n', 'x\nm\n', 't\nx\n', 't\nx\nm\n'],
    ['no newline at end', 'a\nb', 'a m\nb', 'a\nb t', 'a m\nb t'],
    ['empty base', '', 'm\n', 't\n', null],
    ['theirs deletes elsewhere', '1\n2\n3\n4\n', '1 m\n2\n3\n4\n', '1\n2\n4\n', '1 m\n2\n4\n'],
  ];
  for (const [name, base, mine, theirs, want] of cases) {
    it(name, () => expect(merge3(base, mine, theirs)).toBe(want));
  }
});

describe('EditorStore and an agent’s write', () => {
  function setup() {
    let go = { content: '# T\none\n', version: 1, dirty: false };
    const f = fakeClient({
      'files.open': () => ({ path: 'a.md', content: go.content, dirty: go.dirty, version: go.version }),
      'files.update': (a) => {
        go = { content: String(a.content), version: go.version + 1, dirty: true };
        return { path: 'a.md', content: go.content, dirty: true, version: go.version };
      },
    });
    const ed = new EditorStore(f.client, new ToastStore(), new ConfirmStore(), { updateDelayMs: 300, autosaveDelayMs: 1000 });
    return { ed, go: () => go, call: f.call };
  }

  it('typed edits Go has not seen yet are merged into the agent’s write and pushed, not dropped', async () => {
    const { ed, go } = setup();
    ed.setAutosave(false);
    const t = (await ed.open('a.md'))!;
    ed.edited(t, '# T\none\ntyped\n'); // not pushed yet
    ed.applyBuffers([{ kind: 'written', buffer: { path: 'a.md', content: '# Agent\none\n', dirty: false, version: 2 } }]);
    expect(t.text()).toBe('# Agent\none\ntyped\n');
    expect(t.conflict).toBe(false);
    expect(t.merged).toBe(true);
    expect(t.dirty).toBe(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(go().content).toBe('# Agent\none\ntyped\n');
  });

  it('typed edits on the lines the agent wrote: a conflict held here, both texts kept', async () => {
    const { ed } = setup();
    const t = (await ed.open('a.md'))!;
    ed.edited(t, '# Mine\none\n');
    ed.applyBuffers([{ kind: 'written', buffer: { path: 'a.md', content: '# Agent\none\n', dirty: false, version: 2 } }]);
    expect(t.conflict).toBe(true);
    expect(t.text()).toBe('# Mine\none\n');
    expect(t.theirs).toBe('# Agent\none\n');
  });

  it('merged (Go merged pushed edits): the tab takes the merge, stays unsaved and says so', async () => {
    const { ed } = setup();
    ed.setAutosave(false);
    const t = (await ed.open('a.md'))!;
    ed.edited(t, '# T\none\ntyped\n');
    await ed.push(t);
    ed.applyBuffers([{ kind: 'merged', buffer: { path: 'a.md', content: '# Agent\none\ntyped\n', dirty: true, version: 9 } }]);
    expect(t.text()).toBe('# Agent\none\ntyped\n');
    expect(t.merged).toBe(true);
    expect(t.dirty).toBe(true);
    expect(t.agentWrote).toBeGreaterThan(0);
  });
});
