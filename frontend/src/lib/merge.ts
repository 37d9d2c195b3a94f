// Line merge of two edits of one text (what Go does in workspace/merge.go
// for an agent's write into unsaved edits): typed edits Go has not seen
// yet are merged with the content an event brings, so neither is lost.

import { diffArrays } from 'diff';

/** Base lines [s, e) replaced by lines. */
interface Hunk {
  s: number;
  e: number;
  lines: string[];
}

/** Splits after each newline, keeping them. */
export function splitKeep(s: string): string[] {
  if (s === '') return [];
  const out = s.split(/(?<=\n)/);
  return out;
}

function hunksOf(base: string[], x: string[]): Hunk[] {
  const out: Hunk[] = [];
  let pos = 0;
  let cur: Hunk | null = null;
  for (const c of diffArrays(base, x)) {
    const n = c.value.length;
    if (!c.added && !c.removed) {
      if (cur) out.push(cur);
      cur = null;
      pos += n;
      continue;
    }
    if (!cur) cur = { s: pos, e: pos, lines: [] };
    if (c.removed) {
      pos += n;
      cur.e = pos;
    } else {
      cur.lines.push(...c.value);
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Two hunks change the same base lines, or one inserts where the other changes. */
function touches(a: Hunk, b: Hunk): boolean {
  if (Math.max(a.s, b.s) < Math.min(a.e, b.e)) return true;
  if (a.s === a.e || b.s === b.e) return a.s <= b.e && b.s <= a.e;
  return false;
}

function apply(base: string[], s: number, e: number, hs: Hunk[]): string {
  let out = '';
  let pos = s;
  for (const h of hs) {
    out += base.slice(pos, h.s).join('') + h.lines.join('');
    pos = h.e;
  }
  return out + base.slice(pos, e).join('');
}

/**
 * Merges the changes base → mine and base → theirs line by line. null when
 * they change the same lines differently; a change made on both sides is
 * taken once.
 */
export function merge3(base: string, mine: string, theirs: string): string | null {
  if (mine === theirs || theirs === base) return mine;
  if (mine === base) return theirs;
  const bl = splitKeep(base);
  const mh = hunksOf(bl, splitKeep(mine));
  const th = hunksOf(bl, splitKeep(theirs));
  let out = '';
  let pos = 0;
  let i = 0;
  let j = 0;
  while (i < mh.length || j < th.length) {
    const gm: Hunk[] = [];
    const gt: Hunk[] = [];
    if (j >= th.length || (i < mh.length && mh[i].s <= th[j].s)) gm.push(mh[i++]);
    else gt.push(th[j++]);
    let span = spanOf(gm, gt);
    for (let grown = true; grown; ) {
      grown = false;
      if (i < mh.length && touches(span, mh[i])) {
        gm.push(mh[i++]);
        grown = true;
      }
      if (j < th.length && touches(span, th[j])) {
        gt.push(th[j++]);
        grown = true;
      }
      span = spanOf(gm, gt);
    }
    out += bl.slice(pos, span.s).join('');
    const m = apply(bl, span.s, span.e, gm);
    const t = apply(bl, span.s, span.e, gt);
    if (gt.length === 0) out += m;
    else if (gm.length === 0 || m === t) out += t;
    else return null;
    pos = span.e;
  }
  return out + bl.slice(pos).join('');
}

function spanOf(a: Hunk[], b: Hunk[]): Hunk {
  const all = [...a, ...b];
  return { s: Math.min(...all.map((h) => h.s)), e: Math.max(...all.map((h) => h.e)), lines: [] };
}
