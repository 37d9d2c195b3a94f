// The editor store's buffer state machine: typing pushes files.update
// (debounced), saving, the disk's changes (reloaded, written, conflict,
// deleted, moved), conflicts held here when typed edits were not pushed
// yet, resolving, closing a dirty tab, autosave, and the context offered
// with a prompt.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BufferState } from '../src/api/types';
import { ConfirmStore } from '../src/stores/confirm.svelte';
import { EditorStore } from '../src/stores/editor.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient } from './helpers';

/** A fake Go buffer registry, close to workspace/buffers.go. */
function goSide(files: Record<string, string>) {
  const bufs = new Map<string, { content: string; disk: string; dirty: boolean; conflict: boolean; deleted: boolean; version: number }>();
  const st = (path: string): BufferState => {
    const b = bufs.get(path)!;
    return { path, content: b.content, dirty: b.dirty, version: b.version, ...(b.conflict ? { conflict: true } : {}), ...(b.deleted ? { deleted: true } : {}) };
  };
  const f = fakeClient({
    'files.open': (a) => {
      const p = String(a.path);
      if (!bufs.has(p)) {
        if (!(p in files)) throw { code: 'not_found', message: `${p} does not exist` };
        bufs.set(p, { content: files[p], disk: files[p], dirty: false, conflict: false, deleted: false, version: 1 });
      }
      return st(p);
    },
    'files.update': (a) => {
      const b = bufs.get(String(a.path))!;
      b.content = String(a.content);
      b.dirty = b.content !== b.disk;
      b.version++;
      return st(String(a.path));
    },
    'files.save': (a) => {
      const p = String(a.path);
      const b = bufs.get(p)!;
      if (b.conflict) throw { code: 'conflict', message: `${p} changed on disk; choose keep mine or take theirs first` };
      b.content = String(a.content);
      b.disk = b.content;
      files[p] = b.content;
      b.dirty = false;
      b.deleted = false;
      b.version += 2;
      return st(p);
    },
    'files.close': (a) => {
      bufs.delete(String(a.path));
      return {};
    },
    'files.resolve': (a) => {
      const p = String(a.path);
      const b = bufs.get(p)!;
      if (a.take === 'theirs') {
        b.content = files[p];
        b.disk = files[p];
        b.dirty = false;
      } else {
        b.disk = files[p];
        b.dirty = b.content !== b.disk;
      }
      b.conflict = false;
      b.version++;
      return st(p);
    },
    'files.diff': () => ({ diff: '--- disk/a.md\n+++ buffer/a.md\n@@ -1 +1 @@\n-theirs\n+mine\n' }),
  });
  /** The disk changed: what Go would emit for the open buffer. */
  const disk = (path: string, content: string) => {
    files[path] = content;
    const b = bufs.get(path)!;
    b.version++;
    if (!b.dirty) {
      b.content = content;
      b.disk = content;
      return { kind: 'reloaded', buffer: st(path) };
    }
    b.conflict = true;
    return { kind: 'conflict', buffer: st(path) };
  };
  return { ...f, bufs, files, st, disk };
}

function setup(files: Record<string, string> = { 'a.md': 'one\n', 'b.md': 'bee\n' }) {
  const go = goSide(files);
  const toasts = new ToastStore();
  const confirm = new ConfirmStore();
  const ed = new EditorStore(go.client, toasts, confirm, { updateDelayMs: 300, autosaveDelayMs: 1000 });
  return { ...go, ed, toasts, confirm };
}

const updates = (call: ReturnType<typeof fakeClient>['call']) => call.mock.calls.filter((c) => c[0] === 'files.update');

beforeEach(() => {
  localStorage.clear();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('EditorStore', () => {
  it('opens a file once, in a tab, and says why one cannot open', async () => {
    const { ed, call, toasts } = setup();
    const [t1, t2] = await Promise.all([ed.open('a.md'), ed.open('a.md')]);
    expect(t1).toBe(t2);
    expect(call.mock.calls.filter((c) => c[0] === 'files.open')).toHaveLength(1);
    expect(ed.tabs.map((t) => t.path)).toEqual(['a.md']);
    expect(ed.active?.text()).toBe('one\n');
    expect(await ed.open('nope.md')).toBeNull();
    expect(toasts.items.at(-1)?.message).toBe('Could not open nope.md: nope.md does not exist');
  });

  it('pushes typed edits with files.update after a pause (one call for a burst), so agents see them', async () => {
    const { ed, call, bufs } = setup();
    const t = (await ed.open('a.md'))!;
    vi.useFakeTimers();
    ed.edited(t, 'one\nt');
    ed.edited(t, 'one\ntw');
    ed.edited(t, 'one\ntwo\n');
    expect(t.dirty).toBe(true);
    expect(updates(call)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(300);
    expect(updates(call)).toEqual([['files.update', { path: 'a.md', content: 'one\ntwo\n' }]]);
    expect(bufs.get('a.md')!.content).toBe('one\ntwo\n');
    expect(t.pending).toBe(false);
    expect(t.goDirty).toBe(true);
    // Typing back to what is on disk is clean again.
    ed.edited(t, 'one\n');
    await vi.advanceTimersByTimeAsync(300);
    expect(t.dirty).toBe(false);
  });

  it('saves with Ctrl+S (files.save): clean afterwards; a save during typing keeps the newer edits pending', async () => {
    const { ed, files, call } = setup();
    const t = (await ed.open('a.md'))!;
    ed.edited(t, 'saved\n');
    expect(await ed.save()).toBe(true);
    expect(files['a.md']).toBe('saved\n');
    expect(t.dirty).toBe(false);
    expect(updates(call)).toHaveLength(0); // the save carried the text

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const save = call.getMockImplementation()!;
    call.mockImplementationOnce(async (m, a) => {
      await gate;
      return save(m, a);
    });
    const p = ed.save(t);
    ed.edited(t, 'saved\nmore\n'); // typed while the save runs
    release();
    expect(await p).toBe(false);
    expect(t.pending).toBe(true);
  });

  it('takes a reload and an agent’s write into the editor at once (written flashes)', async () => {
    const { ed, disk, bufs, st } = setup();
    const t = (await ed.open('a.md'))!;
    const before = t.replaced;
    ed.applyBuffers([disk('a.md', 'from disk\n')]);
    expect(t.text()).toBe('from disk\n');
    expect(t.replaced).toBe(before + 1);
    const b = bufs.get('a.md')!;
    b.content = b.disk = 'by the agent\n';
    b.version++;
    ed.applyBuffers([{ kind: 'written', buffer: st('a.md') }]);
    expect(t.text()).toBe('by the agent\n');
    expect(t.agentWrote).toBeGreaterThan(0);
    expect(t.dirty).toBe(false);
  });

  it('Keep mine: a Ctrl+S pressed while it goes to Go saves what was kept (no conflict error), and autosave saves it too', async () => {
    const { ed, disk, files, toasts } = setup();
    const t = (await ed.open('a.md'))!;
    ed.edited(t, 'mine\n');
    await ed.push(t);
    ed.applyBuffers([disk('a.md', 'theirs\n')]);
    expect(t.conflict).toBe(true);
    // Keep mine, and Ctrl+S before Go has answered it.
    const kept = ed.resolve(t, 'mine');
    expect(await ed.save(t)).toBe(true);
    await kept;
    expect(files['a.md']).toBe('mine\n');
    expect(t.conflict).toBe(false);
    expect(t.dirty).toBe(false);
    expect(toasts.items).toHaveLength(0);

    // Autosave on, no Ctrl+S: the kept text is saved after the usual delay.
    vi.useFakeTimers();
    ed.edited(t, 'mine again\n');
    await ed.push(t);
    ed.applyBuffers([disk('a.md', 'theirs again\n')]);
    expect(t.conflict).toBe(true);
    await ed.resolve(t, 'mine');
    expect(t.dirty).toBe(true);
    await vi.advanceTimersByTimeAsync(1500);
    expect(files['a.md']).toBe('mine again\n');
    expect(t.dirty).toBe(false);
  });

  it('ignores buffer states older than what it has (events and answers cross)', async () => {
    const { ed } = setup();
    const t = (await ed.open('a.md'))!;
    ed.applyBuffers([{ kind: 'reloaded', buffer: { path: 'a.md', content: 'v5\n', dirty: false, version: 5 } }]);
    ed.applyBuffers([{ kind: 'reloaded', buffer: { path: 'a.md', content: 'v4\n', dirty: false, version: 4 } }]);
    expect(t.text()).toBe('v5\n');
    ed.applyBuffers([{ kind: 'reloaded', buffer: { path: 'other.md', content: 'x', dirty: false, version: 9 } }]); // not open: nothing
    expect(ed.tabs).toHaveLength(1);
  });

  it('a dirty buffer changed on disk: conflict bar; Take theirs replaces, the diff is Go’s', async () => {
    const { ed, disk, call } = setup();
    const t = (await ed.open('a.md'))!;
    ed.edited(t, 'mine\n');
    await ed.push(t);
    ed.applyBuffers([disk('a.md', 'theirs\n')]);
    expect(t.conflict).toBe(true);
    expect(t.text()).toBe('mine\n'); // kept
    expect(await ed.save(t)).toBe(false); // refused until resolved
    await ed.showDiff(t);
    expect(ed.diff).toMatchObject({ path: 'a.md', state: 'unified' });
    await ed.resolve(t, 'theirs');
    expect(call).toHaveBeenLastCalledWith('files.resolve', { path: 'a.md', take: 'theirs' });
    expect(t.text()).toBe('theirs\n');
    expect(t.conflict).toBe(false);
    expect(t.dirty).toBe(false);
    expect(ed.diff).toBeNull();
  });

  it('Keep mine stays dirty and the next save writes mine', async () => {
    const { ed, disk, files } = setup();
    const t = (await ed.open('a.md'))!;
    ed.edited(t, 'mine\n');
    await ed.push(t);
    ed.applyBuffers([disk('a.md', 'theirs\n')]);
    await ed.resolve(t, 'mine');
    expect(t.conflict).toBe(false);
    expect(t.dirty).toBe(true);
    expect(await ed.save(t)).toBe(true);
    expect(files['a.md']).toBe('mine\n');
  });

  it('a reload that would drop typed edits not pushed yet becomes a conflict held here', async () => {
    const { ed, call } = setup();
    const t = (await ed.open('a.md'))!;
    vi.useFakeTimers();
    ed.edited(t, 'one\ntyping');
    // Go thought the buffer clean and reloaded it.
    ed.applyBuffers([{ kind: 'reloaded', buffer: { path: 'a.md', content: 'disk\n', dirty: false, version: 2 } }]);
    expect(t.conflict).toBe(true);
    expect(t.theirs).toBe('disk\n');
    expect(t.text()).toBe('one\ntyping');
    await ed.showDiff(t);
    expect(ed.diff).toEqual({ path: 'a.md', state: 'pair', theirs: 'disk\n', mine: 'one\ntyping' });
    await ed.resolve(t, 'theirs');
    expect(t.text()).toBe('disk\n');
    expect(t.conflict).toBe(false);
    // Go gets the disk's text back (its buffer may hold pushed edits).
    expect(updates(call).at(-1)).toEqual(['files.update', { path: 'a.md', content: 'disk\n' }]);
  });

  it('a deleted file keeps its tab (marked) and its text; Save again writes it', async () => {
    const { ed, files, st, bufs } = setup();
    const t = (await ed.open('a.md'))!;
    const b = bufs.get('a.md')!;
    b.deleted = true;
    b.version++;
    delete files['a.md'];
    ed.applyBuffers([{ kind: 'deleted', buffer: st('a.md') }]);
    expect(t.deleted).toBe(true);
    expect(t.text()).toBe('one\n');
    expect(await ed.save(t)).toBe(true);
    expect(files['a.md']).toBe('one\n');
    expect(t.deleted).toBe(false);
  });

  it('follows a rename (moved), the active tab and the selection with it', async () => {
    const { ed } = setup();
    const t = (await ed.open('a.md'))!;
    ed.setSelection({ path: 'a.md', text: 'one', fromLine: 1, toLine: 1 });
    ed.applyBuffers([{ kind: 'moved', from: 'a.md', buffer: { path: 'x/a.md', content: 'one\n', dirty: false, version: 2 } }]);
    expect(t.path).toBe('x/a.md');
    expect(ed.activePath).toBe('x/a.md');
    expect(ed.context).toEqual({ path: 'x/a.md', selection: { text: 'one', fromLine: 1, toLine: 1 } });
    ed.renamed('x', 'y'); // a folder renamed here: idempotent with the event
    expect(t.path).toBe('y/a.md');
  });

  it('closing a dirty tab asks: Cancel keeps it, Save saves, Don’t save drops the edits', async () => {
    const { ed, confirm, files, call } = setup();
    const a = (await ed.open('a.md'))!;
    const b = (await ed.open('b.md'))!;
    ed.edited(a, 'edited a\n');
    let closing = ed.close(a);
    await vi.waitFor(() => expect(confirm.current?.title).toBe('Save changes to a.md?'));
    confirm.answer('cancel');
    expect(await closing).toBe(false);
    expect(ed.tabs).toHaveLength(2);

    closing = ed.close(a);
    await vi.waitFor(() => expect(confirm.current).not.toBeNull());
    confirm.answer('save');
    expect(await closing).toBe(true);
    expect(files['a.md']).toBe('edited a\n');
    expect(ed.activePath).toBe('b.md');

    ed.edited(b, 'edited b\n');
    closing = ed.close(b);
    await vi.waitFor(() => expect(confirm.current).not.toBeNull());
    confirm.answer('discard');
    expect(await closing).toBe(true);
    expect(files['b.md']).toBe('bee\n');
    expect(ed.tabs).toHaveLength(0);
    expect(call).toHaveBeenLastCalledWith('files.close', { path: 'b.md' });
  });

  it('autosaves by default; turned off, it stays off in the next window', async () => {
    const { ed, files } = setup();
    expect(ed.autosave).toBe(true);
    const t = (await ed.open('a.md'))!;
    vi.useFakeTimers();
    ed.edited(t, 'typed\n');
    await vi.advanceTimersByTimeAsync(1000);
    expect(files['a.md']).toBe('typed\n');
    ed.setAutosave(false);
    vi.useRealTimers();
    const next = setup();
    expect(next.ed.autosave).toBe(false);
    const t2 = (await next.ed.open('a.md'))!;
    vi.useFakeTimers();
    next.ed.edited(t2, 'not saved\n');
    await vi.advanceTimersByTimeAsync(2000);
    expect(next.files['a.md']).toBe('one\n');
    expect(t2.dirty).toBe(true);
  });

  it('autosaves a second after typing stops, when turned on', async () => {
    const { ed, files } = setup();
    const t = (await ed.open('a.md'))!;
    ed.setAutosave(true);
    vi.useFakeTimers();
    ed.edited(t, 'auto\n');
    await vi.advanceTimersByTimeAsync(900);
    expect(files['a.md']).toBe('one\n');
    ed.edited(t, 'auto 2\n');
    await vi.advanceTimersByTimeAsync(1000);
    expect(files['a.md']).toBe('auto 2\n');
    expect(t.dirty).toBe(false);
    expect(localStorage.getItem('mnote.autosave')).toBe('1');
  });

  it('after a reconnect: a clean tab takes the disk’s text, a dirty one gives Go its edits again', async () => {
    const { ed, bufs, files, call } = setup();
    const a = (await ed.open('a.md'))!;
    const b = (await ed.open('b.md'))!;
    ed.edited(b, 'bee edited\n');
    // mnote started again meanwhile: its buffers are gone, a.md changed on disk.
    bufs.clear();
    files['a.md'] = 'changed while away\n';
    await ed.resync();
    expect(a.text()).toBe('changed while away\n');
    expect(a.dirty).toBe(false);
    expect(updates(call).at(-1)).toEqual(['files.update', { path: 'b.md', content: 'bee edited\n' }]);
    expect(bufs.get('b.md')?.content).toBe('bee edited\n');
    expect(b.dirty).toBe(true);
  });

  it('offers the open file (and a selection) as context, until the chip is removed', async () => {
    const { ed } = setup();
    expect(ed.context).toBeNull();
    await ed.open('a.md');
    expect(ed.context).toEqual({ path: 'a.md' });
    ed.setSelection({ path: 'a.md', text: 'on', fromLine: 1, toLine: 1 });
    expect(ed.context?.selection).toEqual({ text: 'on', fromLine: 1, toLine: 1 });
    ed.dismissContext();
    expect(ed.context).toBeNull();
    await ed.open('b.md'); // another file: offered again
    expect(ed.context).toEqual({ path: 'b.md' });
    ed.activate('a.md');
    expect(ed.context?.path).toBe('a.md');
  });
});
