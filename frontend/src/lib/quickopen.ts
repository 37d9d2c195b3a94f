// Quick Open's matcher: a note is found by its file name, its title (front
// matter title:, else its first heading) or its path, and — for Chinese
// names and titles — by pinyin: the initials (hcsj), the full syllables
// (huancun) or both mixed, the last syllable partly typed (huanc), every
// reading of a polyphone (行: xing, hang). Ranked: the name or title itself,
// then what starts with the query (the name or title, the path, their
// pinyin), then what holds it, then a loose match of the path's letters.
// Nothing typed: the notes opened last first (most recent first), then
// the others.
//
// The readings of a character come from pinyin-pro, loaded on first use
// (it is large: see loadReadings); until then names match as written.

/** The readings of one character (lower-case, no tones), or null when it has none. */
export type Readings = (ch: string) => readonly string[] | null;

export interface QuickEntry {
  path: string;
  /** The file name without .md. */
  name: string;
  /** The note's title, "" when it has none. */
  title: string;
}

export type QuickField = 'name' | 'title' | 'path';

export interface QuickMatch {
  entry: QuickEntry;
  /** Lower is better. */
  score: number;
  /** What matched best. */
  field: QuickField;
  /** Matched by pinyin. */
  pinyin: boolean;
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]/u;

/** The alternatives of each character of s: itself (lower-case) and its readings. */
export function charAlternatives(s: string, readings?: Readings | null): string[][] {
  const out: string[][] = [];
  for (const ch of s) {
    const lower = ch.toLowerCase();
    const alts = [lower];
    if (readings && CJK.test(ch)) {
      for (const r of readings(ch) ?? []) {
        const plain = r.toLowerCase();
        for (const v of plain.includes('ü') ? [plain.replace(/ü/g, 'v'), plain.replace(/ü/g, 'u')] : [plain]) {
          if (/^[a-z]+$/.test(v) && !alts.includes(v)) alts.push(v);
        }
      }
    }
    out.push(alts);
  }
  return out;
}

/**
 * Whether q (lower-case, no spaces) matches the characters from index
 * start on: each character taken as written, or as one of its readings in
 * full, or by its initial (zh/ch/sh as one or two letters); the query may
 * end inside a syllable (huanc). True when q is used up. failed remembers
 * the (character, query position) pairs known not to match: they do not
 * depend on start, so one memo serves every start of a string.
 */
export function pinyinMatchAt(alts: readonly string[][], start: number, q: string, failed: Uint8Array = new Uint8Array((alts.length + 1) * (q.length + 1))): boolean {
  const m = q.length + 1;
  const go = (i: number, j: number): boolean => {
    if (j === q.length) return true;
    if (i === alts.length) return false;
    if (failed[i * m + j]) return false;
    for (const a of alts[i]) {
      const c = a.charCodeAt(0);
      if (a.length === 1 || c < 97 || c > 122) {
        if (q.startsWith(a, j) && go(i + 1, j + a.length)) return true;
        continue;
      }
      if (q.charCodeAt(j) !== c) continue;
      if (q.startsWith(a, j) && go(i + 1, j + a.length)) return true;
      // The query ends inside this syllable: huanc.
      if (q.length - j < a.length && a.startsWith(q.slice(j))) return true;
      if (go(i + 1, j + 1)) return true;
      if (a.charCodeAt(1) === 104 && (c === 122 || c === 99 || c === 115) && q.charCodeAt(j + 1) === 104 && go(i + 1, j + 2)) return true;
    }
    failed[i * m + j] = 1;
    return false;
  };
  return go(start, 0);
}

/** Where q matches alts by pinyin: 0 from the first character, 1 from a later one, -1 nowhere. */
export function pinyinMatch(alts: readonly string[][], q: string): -1 | 0 | 1 {
  if (!q) return -1;
  const q0 = q.charCodeAt(0);
  let failed: Uint8Array | null = null;
  for (let i = 0; i < alts.length; i++) {
    // Only a character one of whose alternatives begins like q can start a match.
    if (!alts[i].some((a) => a.charCodeAt(0) === q0)) continue;
    failed ??= new Uint8Array((alts.length + 1) * (q.length + 1));
    if (pinyinMatchAt(alts, i, q, failed)) return i === 0 ? 0 : 1;
  }
  return -1;
}

/** Whether the letters of q appear in s in order (a loose match), and how spread out (lower is tighter). */
function loose(s: string, q: string): number {
  let j = 0;
  let first = -1;
  let last = -1;
  for (let i = 0; i < s.length && j < q.length; i++) {
    if (s[i] === q[j]) {
      if (first < 0) first = i;
      last = i;
      j++;
    }
  }
  return j === q.length ? last - first + 1 - q.length : -1;
}

interface Prepared {
  /** The query, trimmed and lower-case. */
  q: string;
  /** Without spaces (pinyin is typed with or without them). */
  qs: string;
  words: string[];
  /** It has Latin letters (it may be pinyin). */
  latin: boolean;
}

function prepare(query: string): Prepared {
  const q = query.trim().toLowerCase();
  const qs = q.replace(/\s+/g, '');
  return { q, qs, words: q.split(/\s+/), latin: /[a-z]/.test(qs) };
}

/** A matcher with the character alternatives it has worked out kept. */
export class QuickMatcher {
  private cache = new Map<string, string[][] | null>();

  constructor(private readings: Readings | null = null) {}

  /** Pinyin is known from now on (the cache of names matched as written goes). */
  setReadings(r: Readings | null): void {
    if (r === this.readings) return;
    this.readings = r;
    this.cache.clear();
  }

  get hasPinyin(): boolean {
    return this.readings !== null;
  }

  /** The alternatives of s's characters, or null when s has no CJK character (pinyin is then s as written). */
  private alts(s: string): string[][] | null {
    let a = this.cache.get(s);
    if (a === undefined) {
      a = CJK.test(s) ? charAlternatives(s, this.readings) : null;
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(s, a);
    }
    return a;
  }

  /** How well entry matches query (null: not at all). */
  match(entry: QuickEntry, query: string): QuickMatch | null {
    return this.matchQuery(entry, prepare(query));
  }

  private matchQuery(entry: QuickEntry, { q, qs, words, latin }: Prepared): QuickMatch | null {
    if (!q) return { entry, score: 100, field: 'path', pinyin: false };
    const r: { best: QuickMatch | null } = { best: null };
    const take = (score: number, field: QuickField, pinyin = false) => {
      if (!r.best || score < r.best.score) r.best = { entry, score, field, pinyin };
    };
    const path = entry.path.toLowerCase();
    for (const field of ['name', 'title'] as const) {
      const s = entry[field].toLowerCase();
      if (!s) continue;
      // The title weighs a little less than the name at each step.
      const w = field === 'title' ? 1 : 0;
      if (s === q) take(0 + w, field);
      else if (s.startsWith(q)) take(10 + w, field);
      else if (s.includes(q)) take(30 + w, field);
      else if (words.length > 1 && words.every((x) => s.includes(x))) take(35 + w, field);
      if (r.best && r.best.score <= 20) continue;
      if (!this.readings || !latin) continue;
      const alts = this.alts(entry[field]);
      if (!alts) continue;
      const at = pinyinMatch(alts, qs);
      if (at === 0) take(20 + w, field, true);
      else if (at === 1) take(40 + w, field, true);
    }
    if (path.startsWith(q)) take(15, 'path');
    else if (path.includes(q)) take(50, 'path');
    if (!r.best && qs.length >= 2) {
      const spread = loose(path, qs);
      if (spread >= 0) take(60 + Math.min(spread, 30), 'path');
    }
    return r.best;
  }

  /** The entries matching query, best first (then the shorter name, then by path), at most limit; for an empty query all of them,
   * the recently opened first (recent: paths, most recent first), then the others as given. */
  rank(entries: readonly QuickEntry[], query: string, limit = 50, recent: readonly string[] = []): QuickMatch[] {
    if (!query.trim()) return recentFirst(entries, recent, limit).map((entry) => ({ entry, score: 100, field: 'path', pinyin: false }));
    const prep = prepare(query);
    const out: QuickMatch[] = [];
    for (const e of entries) {
      const mt = this.matchQuery(e, prep);
      if (mt) out.push(mt);
    }
    out.sort(
      (a, b) =>
        a.score - b.score ||
        a.entry.name.length - b.entry.name.length ||
        (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0),
    );
    return out.slice(0, limit);
  }
}

/** The entries whose paths are in recent (most recent first), in recent's order, then the others as given; at most limit. */
export function recentFirst(entries: readonly QuickEntry[], recent: readonly string[], limit = Infinity): QuickEntry[] {
  if (!recent.length) return entries.slice(0, limit);
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const out: QuickEntry[] = [];
  const seen = new Set<string>();
  for (const p of recent) {
    const e = byPath.get(p);
    if (e && !seen.has(p)) {
      seen.add(p);
      out.push(e);
    }
  }
  for (const e of entries) {
    if (out.length >= limit) break;
    if (!seen.has(e.path)) out.push(e);
  }
  return out.slice(0, limit);
}

/** The file name without its Markdown extension. */
export function entryName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.replace(/\.(md|markdown)$/i, '');
}

let loading: Promise<Readings> | null = null;

/**
 * Loads pinyin-pro (its own chunk: about 320 kB, 140 kB gzipped) the first
 * time Quick Open needs it; every reading of a character, tones dropped.
 */
export function loadReadings(): Promise<Readings> {
  loading ??= import('pinyin-pro').then(({ pinyin }) => {
    const memo = new Map<string, readonly string[]>();
    return (ch: string) => {
      let r = memo.get(ch);
      if (!r) {
        r = pinyin(ch, { toneType: 'none', type: 'array', multiple: true });
        memo.set(ch, r);
      }
      return r;
    };
  });
  return loading;
}
