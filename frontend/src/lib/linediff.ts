// Line diff of a tool call's diff content (oldText → newText), as rows to
// render: context, added and removed lines with their line numbers, and
// gaps between hunks.

import { structuredPatch } from 'diff';

export interface DiffRow {
  kind: 'add' | 'del' | 'ctx' | 'gap';
  oldNo?: number;
  newNo?: number;
  text: string;
}

export interface DiffResult {
  rows: DiffRow[];
  added: number;
  removed: number;
  /** The file is new (no old text). */
  created: boolean;
  /** The diff gave up (huge, very different texts): all old lines removed,
   * all new lines added. */
  coarse: boolean;
}

const cache = new Map<string, DiffResult>();
const CACHE_MAX = 200;

function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function lineDiff(oldText: string | null | undefined, newText: string, context = 3): DiffResult {
  const key = `${context}\u0000${oldText ?? '\u0001'}\u0000${newText}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const r = compute(oldText, newText ?? '', context);
  cache.set(key, r);
  if (cache.size > CACHE_MAX) {
    const first = cache.keys().next().value;
    if (first !== undefined) cache.delete(first);
  }
  return r;
}

function compute(oldText: string | null | undefined, newText: string, context: number): DiffResult {
  if (oldText === null || oldText === undefined) {
    const rows = splitLines(newText).map((text, i): DiffRow => ({ kind: 'add', newNo: i + 1, text }));
    return { rows, added: rows.length, removed: 0, created: true, coarse: false };
  }
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context, timeout: 250 });
  if (!patch) {
    const del = splitLines(oldText).map((text, i): DiffRow => ({ kind: 'del', oldNo: i + 1, text }));
    const add = splitLines(newText).map((text, i): DiffRow => ({ kind: 'add', newNo: i + 1, text }));
    return { rows: [...del, ...add], added: add.length, removed: del.length, created: false, coarse: true };
  }
  const rows: DiffRow[] = [];
  let added = 0;
  let removed = 0;
  patch.hunks.forEach((h, i) => {
    if (i > 0 || h.oldStart > 1) rows.push({ kind: 'gap', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
    let o = h.oldStart;
    let n = h.newStart;
    for (const line of h.lines) {
      const sign = line[0];
      const text = line.slice(1);
      if (sign === '+') {
        rows.push({ kind: 'add', newNo: n++, text });
        added++;
      } else if (sign === '-') {
        rows.push({ kind: 'del', oldNo: o++, text });
        removed++;
      } else if (sign === ' ') {
        rows.push({ kind: 'ctx', oldNo: o++, newNo: n++, text });
      } // "\ No newline at end of file" is skipped
    }
  });
  return { rows, added, removed, created: false, coarse: false };
}
