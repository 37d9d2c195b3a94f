import { describe, expect, it } from 'vitest';
import { bytes, compact, duration, relativeTime, snippetParts, splitAtByteOffsets } from '../src/lib/format';
import { i18n } from '../src/lib/i18n.svelte';
import { lineDiff } from '../src/lib/linediff';
import { SessionStore } from '../src/stores/session.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

describe('search snippets', () => {
  it('splits « » marks into parts, leaving markup as text', () => {
    expect(snippetParts('the «typo» in <b>«notes»</b>')).toEqual([
      { text: 'the ', mark: false },
      { text: 'typo', mark: true },
      { text: ' in <b>', mark: false },
      { text: 'notes', mark: true },
      { text: '</b>', mark: false },
    ]);
    expect(snippetParts('no marks')).toEqual([{ text: 'no marks', mark: false }]);
    expect(snippetParts('«unclosed')).toEqual([{ text: 'unclosed', mark: true }]);
  });
});

describe('byte offsets (Go Block.offset) → string parts', () => {
  it('cuts at UTF-8 byte offsets, not UTF-16 indexes', () => {
    // "héllo " is 7 bytes; the block came after it.
    expect(splitAtByteOffsets('héllo 🌍 world', [7, 11])).toEqual(['héllo ', '🌍', ' world']);
    expect(splitAtByteOffsets('abc', [99])).toEqual(['abc', '']);
  });
});

describe('lineDiff', () => {
  it('numbers lines and counts changes', () => {
    const d = lineDiff('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(d.added).toBe(2);
    expect(d.removed).toBe(1);
    expect(d.rows.filter((r) => r.kind !== 'gap').map((r) => `${r.kind}:${r.oldNo ?? ''}:${r.newNo ?? ''}:${r.text}`)).toEqual([
      'ctx:1:1:a',
      'del:2::b',
      'add::2:B',
      'ctx:3:3:c',
      'add::4:d',
    ]);
  });

  it('treats a missing old text as a new file', () => {
    const d = lineDiff(null, 'x\ny');
    expect(d.created).toBe(true);
    expect(d.rows.map((r) => r.kind)).toEqual(['add', 'add']);
  });

  it('shows hunks apart with a gap row', () => {
    const old = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const next = old.replace('line 2\n', 'LINE 2\n').replace('line 35\n', 'LINE 35\n');
    const d = lineDiff(old, next);
    expect(d.rows.filter((r) => r.kind === 'gap')).toHaveLength(1);
    expect(d.rows.length).toBeLessThan(30);
  });
});

describe('format', () => {
  it('duration', () => {
    expect(duration(850)).toBe('850ms');
    expect(duration(4200)).toBe('4.2s');
    expect(duration(185_000)).toBe('3m 5s');
  });
  it('formats for the interface locale', () => {
    try {
      i18n.choose('zh-CN');
      expect(duration(4200)).toBe('4.2秒');
      expect(duration(185_000)).toBe('3分钟 5秒');
      expect(relativeTime(Date.now() - 3 * 60_000)).toBe('3分钟前');
      expect(relativeTime(Date.now())).toBe('刚刚');
      expect(compact(25_000)).toBe('2.5万');
      expect(document.documentElement.lang).toBe('zh-CN');
      i18n.choose('en');
      expect(relativeTime(Date.now() - 3 * 60_000)).toBe('3 minutes ago');
      expect(relativeTime(Date.now())).toBe('just now');
      expect(compact(25_000)).toBe('25K');
      expect(bytes(1536)).toBe('1.5kB');
    } finally {
      i18n.choose('system');
    }
  });
});

describe('streaming load', () => {
  it('applies 50,000 appends fast, with one render per frame', async () => {
    const frames = manualFrames();
    const fc = fakeClient({
      'sessions.open': () =>
        snapshot(
          's',
          0,
          Array.from({ length: 20_000 }, (_, i) => ({ id: 'e' + (i + 1), kind: 'assistant_message', turn: i, text: 'entry ' + i })),
        ),
    });
    const store = new SessionStore(fc.client, frames.schedule);
    await store.open('s');
    expect(store.order).toHaveLength(20_000);
    store.handleEvent({ sessionId: 's', seq: 1, type: 'entry', payload: { id: 'e20001', kind: 'assistant_message', turn: 1, text: '', streaming: true } });
    const t0 = performance.now();
    let renders = 0;
    for (let i = 0; i < 50_000; i++) {
      store.handleEvent({ sessionId: 's', seq: i + 2, type: 'append', payload: { entryId: 'e20001', delta: 'word ' } });
      if (i % 50 === 49) {
        renders += frames.pending;
        frames.run(); // a frame every 50 events
      }
    }
    const ms = performance.now() - t0;
    frames.run();
    expect(store.cell('e20001')!.v.text).toHaveLength(250_000);
    expect(renders).toBe(1000);
    expect(ms).toBeLessThan(2000);
  });
});
