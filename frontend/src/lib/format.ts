// Small formatting helpers shared by components.

const rtf = typeof Intl !== 'undefined' ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }) : null;

/** "3 min ago", "yesterday", or a date for older times. */
export function relativeTime(ms: number, now = Date.now()): string {
  if (!ms) return '';
  const d = (ms - now) / 1000;
  const a = Math.abs(d);
  if (!rtf) return new Date(ms).toLocaleString();
  if (a < 45) return 'just now';
  if (a < 3600) return rtf.format(Math.round(d / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(d / 3600), 'hour');
  if (a < 7 * 86400) return rtf.format(Math.round(d / 86400), 'day');
  return new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' });
}

/** "850 ms", "4.2 s", "3 min 05 s". */
export function duration(ms: number): string {
  if (!(ms >= 0)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${String(s).padStart(2, '0')} s`;
}

/** 1234 → "1.2k", 2_500_000 → "2.5M". */
export function compact(n: number): string {
  if (!Number.isFinite(n)) return '';
  if (Math.abs(n) < 1000) return String(Math.round(n));
  if (Math.abs(n) < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency: currency || 'USD',
      maximumFractionDigits: amount < 1 ? 4 : 2,
    }).format(amount);
  } catch {
    return `${amount.toFixed(4)} ${currency}`;
  }
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
