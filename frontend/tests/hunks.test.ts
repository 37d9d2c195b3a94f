// Hunk review of a turn's changes: the rows of a hunk, kept / pending,
// the last reject (what Undo passes back), and the checkpoints store's
// review calls (a reject's toast undoes it; Reject all goes file by file).
import { describe, expect, it } from 'vitest';
import type { FileHunks, HunkReview } from '../src/api/types';
import { hunkRows, isKept, lastReject, pending } from '../src/lib/hunks';
import { CheckpointsStore } from '../src/stores/checkpoints.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient } from './helpers';

const h1 = { start: 1, before: '# T\n', after: '# T by agent\n' };
const h2 = { start: 9, before: '', after: 'added\nand more\n' };
const rev = (action: string, at: string, h: typeof h1): HunkReview => ({ action, at, ...h });

describe('hunks', () => {
  it('rows: the old lines removed, the new ones added, numbered from start', () => {
    expect(hunkRows(h1)).toEqual([
      { kind: 'del', text: '# T' },
      { kind: 'add', newNo: 1, text: '# T by agent' },
    ]);
    expect(hunkRows(h2).map((r) => r.newNo)).toEqual([9, 10]);
  });

  it('kept is the latest review of the same change; pending the rest', () => {
    expect(isKept(h1, null)).toBe(false);
    const rs = [rev('kept', 't1', h1)];
    expect(isKept({ ...h1, start: 4 }, rs)).toBe(true); // moved, same text
    expect(pending([h1, h2], rs)).toEqual([h2]);
    expect(isKept(h1, [...rs, rev('restored', 't2', h1)])).toBe(false);
  });

  it('lastReject is the last batch when it was a reject, with the starts Go gave', () => {
    expect(lastReject([])).toBeNull();
    const a = rev('rejected', 't2', { ...h1, start: 1 });
    const b = rev('rejected', 't2', { ...h2, start: 8 });
    expect(lastReject([rev('rejected', 't1', h1), a, b])).toEqual([
      { start: 1, before: h1.before, after: h1.after },
      { start: 8, before: h2.before, after: h2.after },
    ]);
    expect(lastReject([a, b, rev('restored', 't3', h1)])).toBeNull();
  });
});

describe('CheckpointsStore review', () => {
  function setup() {
    let file: FileHunks = { path: 'a.md', hunks: [h1, h2], reviews: [] };
    const f = fakeClient({
      'checkpoints.list': () => [{ turn: 2, files: [{ path: 'a.md', op: 'changed' }, { path: 'gone.md', op: 'removed' }], ended: 'x' }],
      'checkpoints.changes': () => [],
      'checkpoints.hunks': () => file,
      'checkpoints.review': (a) => {
        const hs = a.hunks as (typeof h1)[];
        const at = String(Math.random());
        if (a.action === 'rejected') file = { ...file, hunks: file.hunks.filter((h) => !hs.some((x) => x.after === h.after)), reviews: [...(file.reviews ?? []), ...hs.map((h) => rev('rejected', at, h))] };
        else if (a.action === 'restored') file = { ...file, hunks: [h1, h2], reviews: [...(file.reviews ?? []), ...hs.map((h) => rev('restored', at, h))] };
        else file = { ...file, reviews: [...(file.reviews ?? []), ...hs.map((h) => rev('kept', at, h))] };
        return file;
      },
    });
    const toasts = new ToastStore();
    const cps = new CheckpointsStore(f.client, toasts);
    return { cps, call: f.call, toasts };
  }

  it('reject: the toast’s Undo passes the reject back as restored', async () => {
    const { cps, call, toasts } = setup();
    cps.track('s1');
    await cps.refresh();
    await cps.loadHunks(2, 'a.md');
    expect(await cps.review(2, 'a.md', 'rejected', [h1])).toBe(true);
    expect(cps.hunksOf(2, 'a.md')).toMatchObject({ state: 'ok', file: { hunks: [h2] } });
    const t = toasts.items.at(-1)!;
    expect(t.message).toBe('Rejected 1 change in a.md.');
    await toasts.runAction(t.id);
    await Promise.resolve();
    expect(call).toHaveBeenLastCalledWith('checkpoints.review', { sessionId: 's1', turn: 2, path: 'a.md', action: 'restored', hunks: [h1] });
  });

  it('Reject all reviews every kept-content file’s pending hunks (not removed files)', async () => {
    const { cps, call } = setup();
    cps.track('s1');
    await cps.refresh();
    await cps.loadHunks(2, 'a.md');
    await cps.review(2, 'a.md', 'kept', [h2]);
    await cps.reviewTurn(2, 'rejected');
    const reviews = call.mock.calls.filter((c) => c[0] === 'checkpoints.review');
    expect(reviews.at(-1)).toEqual(['checkpoints.review', { sessionId: 's1', turn: 2, path: 'a.md', action: 'rejected', hunks: [h1] }]);
    expect(call.mock.calls.some((c) => c[0] === 'checkpoints.hunks' && (c[1] as { path: string }).path === 'gone.md')).toBe(false);
  });
});
