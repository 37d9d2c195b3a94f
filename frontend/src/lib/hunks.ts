// A turn's file changes as hunks to review (checkpoints.hunks): rows to
// show, which hunks were kept, and the last reject (what Undo applies
// again).

import type { Hunk, HunkReview } from '../api/types';
import type { DiffRow } from './linediff';

function lines(s: string): string[] {
  if (s === '') return [];
  const out = s.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** The rows of one hunk: its old lines removed, its new lines (numbered from start) added. */
export function hunkRows(h: Hunk): DiffRow[] {
  const del = lines(h.before).map((text): DiffRow => ({ kind: 'del', text }));
  const add = lines(h.after).map((text, i): DiffRow => ({ kind: 'add', newNo: h.start + i, text }));
  return [...del, ...add];
}

const same = (a: Hunk, b: Hunk) => a.before === b.before && a.after === b.after;

/** The hunk was kept (its latest review, if any, says so). */
export function isKept(h: Hunk, reviews: readonly HunkReview[] | null | undefined): boolean {
  const rs = reviews ?? [];
  for (let i = rs.length - 1; i >= 0; i--) {
    if (same(rs[i], h)) return rs[i].action === 'kept';
  }
  return false;
}

/** The hunks still to review (not kept). */
export function pending(hunks: readonly Hunk[], reviews: readonly HunkReview[] | null | undefined): Hunk[] {
  return hunks.filter((h) => !isKept(h, reviews));
}

/**
 * The last review batch (one call: the same time) when it was a reject:
 * the hunks to pass back with "restored" to undo it; null otherwise.
 */
export function lastReject(reviews: readonly HunkReview[] | null | undefined): Hunk[] | null {
  const rs = reviews ?? [];
  const last = rs[rs.length - 1];
  if (!last || last.action !== 'rejected') return null;
  const batch: Hunk[] = [];
  for (let i = rs.length - 1; i >= 0 && rs[i].at === last.at && rs[i].action === 'rejected'; i--) {
    batch.unshift({ start: rs[i].start, before: rs[i].before, after: rs[i].after });
  }
  return batch;
}
