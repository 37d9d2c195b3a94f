// Small formatting helpers shared by components. Every one formats for
// the interface's locale (lib/i18n) with Intl, so "3 min ago" is "3 分钟前"
// and 12,345 is 12,345 in both.

import { locale, m } from './i18n.svelte';

const cache = new Map<string, Intl.RelativeTimeFormat | Intl.NumberFormat | Intl.DateTimeFormat>();

function cached<T extends Intl.RelativeTimeFormat | Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  const k = `${locale()}|${key}`;
  let f = cache.get(k);
  if (!f) {
    f = make();
    cache.set(k, f);
  }
  return f as T;
}

/** "3 min ago", "yesterday", or a date for older times. */
export function relativeTime(ms: number, now = Date.now()): string {
  if (!ms) return '';
  const d = (ms - now) / 1000;
  const a = Math.abs(d);
  const rtf = cached('rtf', () => new Intl.RelativeTimeFormat(locale(), { numeric: 'auto' }));
  if (a < 45) return m.common_just_now();
  if (a < 3600) return rtf.format(Math.round(d / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(d / 3600), 'hour');
  if (a < 7 * 86400) return rtf.format(Math.round(d / 86400), 'day');
  return dateShort(ms);
}

/** "Dec 1, 2026" / "2026年12月1日". */
export function dateShort(ms: number): string {
  return cached('date', () => new Intl.DateTimeFormat(locale(), { month: 'short', day: 'numeric', year: 'numeric' })).format(ms);
}

/** "Dec 1, 2026, 3:04 PM" / "2026年12月1日 15:04". */
export function dateTime(ms: number): string {
  return cached('datetime', () => new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' })).format(ms);
}

function unit(u: string, n: number, digits = 0): string {
  return cached(`unit|${u}|${digits}`, () =>
    new Intl.NumberFormat(locale(), { style: 'unit', unit: u, unitDisplay: 'narrow', maximumFractionDigits: digits }),
  ).format(n);
}

/** "850ms", "4.2s", "3m 5s" ("850毫秒", "4.2秒", "3分钟 5秒"). */
export function duration(ms: number): string {
  if (!(ms >= 0)) return '';
  if (ms < 1000) return unit('millisecond', Math.round(ms));
  if (ms < 60_000) return unit('second', ms / 1000, ms < 10_000 ? 1 : 0);
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${unit('minute', min)} ${unit('second', s)}`;
}

/** 12345 → "12,345". */
export function num(n: number): string {
  return cached('num', () => new Intl.NumberFormat(locale())).format(n);
}

/** 1234 → "1.2K" ("1234" in Chinese, 25000 → "2.5万"). */
export function compact(n: number): string {
  if (!Number.isFinite(n)) return '';
  return cached('compact', () => new Intl.NumberFormat(locale(), { notation: 'compact', maximumFractionDigits: 1 })).format(n);
}

/** 1536 → "1.5 kB", 5_000_000 → "4.8 MB". */
export function bytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '';
  if (n < 1024) return unit('byte', n);
  if (n < 1024 ** 2) return unit('kilobyte', n / 1024, 1);
  if (n < 1024 ** 3) return unit('megabyte', n / 1024 ** 2, 1);
  return unit('gigabyte', n / 1024 ** 3, 1);
}

/** 0.42 → "42%". */
export function percent(fraction: number): string {
  return cached('pct', () => new Intl.NumberFormat(locale(), { style: 'percent', maximumFractionDigits: 0 })).format(fraction);
}

export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(locale(), {
      style: 'currency',
      currency: currency || 'USD',
      maximumFractionDigits: amount < 1 ? 4 : 2,
    }).format(amount);
  } catch {
    return `${amount.toFixed(4)} ${currency}`;
  }
}

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/;

/**
 * A search snippet of a message without its Markdown: headings', quotes'
 * and lists' markers, emphasis, code marks, fences, table pipes, links
 * and images (their text kept), [[links]] (their name or alias); lines
 * joined, with no space put between two CJK characters. The « » marks
 * stay. Snippets are cut anywhere, so half a link is taken too.
 */
export function snippetPlain(snippet: string): string {
  const BLOCK = /^\s{0,3}(>|#{1,6}\s|([-*+]|\d+[.)])\s)/;
  const raw = snippet.split(/\r?\n/);
  const lines = raw.map((line) =>
    line
      .replace(/^\s*(```|~~~).*$/, '')
      .replace(/^\s*([-*_])(\s*\1){2,}\s*$/, '')
      .replace(/^\s*\|?[\s:|-]*-{3,}[\s:|-]*$/, '')
      .replace(/^\s{0,3}(>\s?)+/, '')
      .replace(/^\s{0,3}#{1,6}\s+/, '')
      .replace(/^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?/, '')
      .replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
      .replace(/!?\[\[([^\]]*)\]\]/g, '$1')
      .replace(/!?\[([^\]]*)\]\([^)]*\)?/g, '$1')
      .replace(/^[^[]*?\]\([^)\s]*\)?/, (m) => m.slice(0, m.indexOf('](')))
      .replace(/\[\[|\]\]/g, '')
      .replace(/\*\*|__|~~|`+/g, '')
      .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1$2')
      .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
      .replace(/\s*\|\s*/g, ' ')
      .trim(),
  );
  // Lines of one paragraph join without a space between CJK characters;
  // a paragraph break, a heading, a list item or a quote is a space.
  let out = '';
  let brk = false;
  for (const [i, line] of lines.entries()) {
    if (!line) {
      brk = true;
      continue;
    }
    const joinCJK = CJK.test(out.replace(/[«»]+$/, '').slice(-1)) && CJK.test(line.replace(/^[«»…]+/, '')[0] ?? '');
    if (out && (brk || BLOCK.test(raw[i]) || !joinCJK)) out += ' ';
    out += line;
    brk = BLOCK.test(raw[i]);
  }
  return out;
}

/** Splits a search snippet at « » into plain and marked parts (rendered as
 * text nodes and <mark>, never as HTML). */
export function snippetParts(snippet: string): { text: string; mark: boolean }[] {
  const out: { text: string; mark: boolean }[] = [];
  let mark = false;
  let buf = '';
  for (const ch of snippet) {
    if (ch === '«' && !mark) {
      if (buf) out.push({ text: buf, mark });
      buf = '';
      mark = true;
    } else if (ch === '»' && mark) {
      if (buf) out.push({ text: buf, mark });
      buf = '';
      mark = false;
    } else {
      buf += ch;
    }
  }
  if (buf) out.push({ text: buf, mark });
  return out;
}

/** Splits text at UTF-8 byte offsets (Go's Block.offset) into string parts. */
export function splitAtByteOffsets(text: string, offsets: number[]): string[] {
  const enc = new TextEncoder();
  const bytes = enc.encode(text);
  const dec = new TextDecoder();
  const parts: string[] = [];
  let prev = 0;
  for (const raw of offsets) {
    const off = Math.max(prev, Math.min(bytes.length, raw));
    parts.push(dec.decode(bytes.subarray(prev, off)));
    prev = off;
  }
  parts.push(dec.decode(bytes.subarray(prev)));
  return parts;
}
