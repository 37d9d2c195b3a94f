// Quick Open's matcher with pinyin-pro's real readings: initials, full and
// partial pinyin, polyphones, titles, paths, and the ranking; with nothing
// typed, the notes opened last first (kept per folder in lib/prefs.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_RECENT_FOLDERS, MAX_RECENT_NOTES, pushRecentNote, readRecentNotes } from '../src/lib/prefs';
import { charAlternatives, entryName, loadReadings, pinyinMatch, QuickMatcher, type QuickEntry, type Readings } from '../src/lib/quickopen';

function entry(path: string, title = ''): QuickEntry {
  return { path, name: entryName(path), title };
}

const NOTES: QuickEntry[] = [
  entry('设计/缓存设计.md'),
  entry('缓存实验.md', '缓存命中率实验'),
  entry('日记/2026-12-07.md', '周一'),
  entry('银行卡.md'),
  entry('旅行计划.md'),
  entry('hcsj-notes.md'),
  entry('docs/cache.md', 'Caching design'),
  entry('a/b/huancun.md'),
  entry('绿色.md'),
];

let readings: Readings;
beforeAll(async () => {
  readings = await loadReadings();
});

function ranked(q: string): string[] {
  return new QuickMatcher(readings).rank(NOTES, q).map((x) => x.entry.path);
}

describe('pinyin', () => {
  it('matches initials, full syllables, a partly typed one, and mixes', () => {
    const alts = charAlternatives('缓存设计', readings);
    expect(alts[0]).toEqual(['缓', 'huan']);
    for (const q of ['hcsj', 'huancun', 'huanc', 'huancunsheji', 'hcsheji', 'huancsj', 'h', 'hcs', '缓cun']) {
      expect(pinyinMatch(alts, q), q).toBe(0);
    }
    expect(pinyinMatch(alts, 'sj')).toBe(1);
    expect(pinyinMatch(alts, 'sheji')).toBe(1);
    for (const q of ['hx', 'huanx', 'hcsjx', 'uan']) expect(pinyinMatch(alts, q), q).toBe(-1);
  });

  it('knows every reading of a polyphone, zh/ch/sh as one or two letters, ü as v or u', () => {
    expect(pinyinMatch(charAlternatives('银行卡', readings), 'yhk')).toBe(0);
    expect(pinyinMatch(charAlternatives('银行卡', readings), 'yinhang')).toBe(0);
    expect(pinyinMatch(charAlternatives('旅行计划', readings), 'lxjh')).toBe(0);
    expect(pinyinMatch(charAlternatives('旅行计划', readings), 'lvxing')).toBe(0);
    expect(pinyinMatch(charAlternatives('设计', readings), 'shj')).toBe(0);
    expect(pinyinMatch(charAlternatives('绿色', readings), 'lvse')).toBe(0);
    expect(pinyinMatch(charAlternatives('绿色', readings), 'luse')).toBe(0);
  });

  it('without readings (pinyin-pro not loaded yet) names match as written', () => {
    const m = new QuickMatcher(null);
    expect(m.rank(NOTES, 'hcsj').map((x) => x.entry.path)).toEqual(['hcsj-notes.md']);
    m.setReadings(readings);
    expect(m.rank(NOTES, 'hcsj').map((x) => x.entry.path)).toEqual(['hcsj-notes.md', '设计/缓存设计.md']);
  });
});

describe('ranking', () => {
  it('hcsj and huancun find 缓存设计.md; what starts with the query comes first', () => {
    // The name as typed first, then the pinyin of a name from its start.
    expect(ranked('hcsj')).toEqual(['hcsj-notes.md', '设计/缓存设计.md']);
    expect(ranked('huancun')[0]).toBe('a/b/huancun.md');
    expect(ranked('huancun')).toContain('设计/缓存设计.md');
    expect(ranked('huanc').slice(0, 3)).toEqual(['a/b/huancun.md', '缓存实验.md', '设计/缓存设计.md']);
    expect(ranked('hcs')[0]).toBe('hcsj-notes.md');
    // Chinese as written: the name that starts with it first.
    expect(ranked('缓存')).toEqual(['缓存实验.md', '设计/缓存设计.md']);
  });

  it('matches titles and paths', () => {
    expect(ranked('mingzhong')).toEqual(['缓存实验.md']);
    expect(ranked('周一')).toEqual(['日记/2026-12-07.md']);
    expect(ranked('caching')).toEqual(['docs/cache.md']);
    expect(ranked('docs/')).toEqual(['docs/cache.md']);
    expect(ranked('2026-12')[0]).toBe('日记/2026-12-07.md');
    // An exact name beats a name that only starts with it, and a title.
    expect(new QuickMatcher(readings).rank([entry('x/cache-old.md'), entry('cache.md'), entry('y.md', 'cache')], 'cache').map((x) => x.entry.path)).toEqual([
      'cache.md',
      'y.md',
      'x/cache-old.md',
    ]);
    // A loose match of the path's letters, last.
    expect(ranked('dcch')).toEqual(['docs/cache.md']);
    expect(ranked('zzzz')).toEqual([]);
  });

  it('an empty query lists every note', () => {
    expect(ranked('')).toHaveLength(NOTES.length);
  });

  it('an empty query lists the notes opened last first, most recent first, then the rest as given', () => {
    const m = new QuickMatcher(readings);
    // A note no longer there (renamed, deleted) and a repeated path are skipped.
    const recent = ['绿色.md', 'gone.md', 'docs/cache.md', '绿色.md', '缓存实验.md'];
    const paths = m.rank(NOTES, '', 50, recent).map((x) => x.entry.path);
    expect(paths).toEqual([
      '绿色.md',
      'docs/cache.md',
      '缓存实验.md',
      ...NOTES.map((e) => e.path).filter((p) => !['绿色.md', 'docs/cache.md', '缓存实验.md'].includes(p)),
    ]);
    // The limit keeps the most recent.
    expect(m.rank(NOTES, '', 2, recent).map((x) => x.entry.path)).toEqual(['绿色.md', 'docs/cache.md']);
    expect(m.rank(NOTES, '  ', 50, recent)[0].entry.path).toBe('绿色.md');
    // Typing ranks by the match alone.
    expect(m.rank(NOTES, '缓存', 50, recent).map((x) => x.entry.path)).toEqual(['缓存实验.md', '设计/缓存设计.md']);
  });
});

describe('recent notes, kept per folder', () => {
  it('puts the note opened last first, once, per folder, bounded', () => {
    localStorage.clear();
    pushRecentNote('/w/a', 'one.md');
    pushRecentNote('/w/a', 'two.md');
    pushRecentNote('/w/b', 'other.md');
    pushRecentNote('/w/a', 'one.md');
    expect(readRecentNotes('/w/a')).toEqual(['one.md', 'two.md']);
    expect(readRecentNotes('/w/b')).toEqual(['other.md']);
    expect(readRecentNotes('/w/c')).toEqual([]);
    for (let i = 0; i < MAX_RECENT_NOTES + 5; i++) pushRecentNote('/w/a', `n${i}.md`);
    const a = readRecentNotes('/w/a');
    expect(a).toHaveLength(MAX_RECENT_NOTES);
    expect(a[0]).toBe(`n${MAX_RECENT_NOTES + 4}.md`);
    // The folders written longest ago go past the limit.
    for (let i = 0; i < MAX_RECENT_FOLDERS - 1; i++) pushRecentNote(`/f/${i}`, 'x.md');
    expect(readRecentNotes('/w/b')).toEqual([]);
    expect(readRecentNotes('/w/a')).toHaveLength(MAX_RECENT_NOTES);
    pushRecentNote('/w/a', 'again.md'); // /w/a is the most recent folder now
    pushRecentNote('/f/last', 'x.md');
    expect(readRecentNotes('/f/0')).toEqual([]);
    expect(readRecentNotes('/f/1')).toEqual(['x.md']);
    expect(readRecentNotes('/w/a')[0]).toBe('again.md');
    // Each folder under its own key; a damaged value reads as nothing kept.
    expect(JSON.parse(localStorage.getItem('mnote.recentNotes@/w/a') ?? '[]')[0]).toBe('again.md');
    localStorage.setItem('mnote.recentNotes@/w/a', '[1,2');
    expect(readRecentNotes('/w/a')).toEqual([]);
    expect(localStorage.getItem('mnote.recentNotes@/w/b')).toBeNull(); // its key went with it
    localStorage.clear();
  });
});
