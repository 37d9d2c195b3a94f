import { describe, expect, it } from 'vitest';
import { cacheTrend, turnRate, TREND_TURNS } from '../src/lib/cachetrend';

const t = (turn: number, hit: number, miss: number, hitRatio = hit / (hit + miss)) => ({ turn, hitTokens: hit, missTokens: miss, hitRatio });

describe('cacheTrend', () => {
  it('draws the turns oldest first, 100 % at the top, 0 % at the bottom', () => {
    const tr = cacheTrend([t(1, 0, 100), t(2, 50, 50), t(3, 100, 0)], 40, 12)!;
    expect(tr.rates).toEqual([0, 0.5, 1]);
    expect(tr.turns).toEqual([1, 2, 3]);
    expect(tr.points).toBe('0,12 20,6 40,0');
    expect(tr.direction).toBe('up');
  });

  it('says falling and steady from the last two turns', () => {
    expect(cacheTrend([t(1, 90, 10), t(2, 50, 50)])!.direction).toBe('down');
    expect(cacheTrend([t(1, 90, 10), t(2, 91, 9)])!.direction).toBe('flat');
  });

  it('is no trend with fewer than two usable turns', () => {
    expect(cacheTrend(null)).toBeNull();
    expect(cacheTrend(undefined)).toBeNull();
    expect(cacheTrend([t(1, 1, 1)])).toBeNull();
    // A turn with no tokens, or broken figures, is left out.
    expect(cacheTrend([t(1, 1, 1), { turn: 2, hitTokens: 0, missTokens: 0, hitRatio: 0 }])).toBeNull();
    expect(cacheTrend([t(1, 1, 1), { turn: 2, hitTokens: NaN, missTokens: 3, hitRatio: NaN }])).toBeNull();
  });

  it('keeps the last turns only', () => {
    const many = Array.from({ length: 30 }, (_, i) => t(i + 1, i, 30 - i));
    const tr = cacheTrend(many)!;
    expect(tr.rates).toHaveLength(TREND_TURNS);
    expect(tr.turns[0]).toBe(30 - TREND_TURNS + 1);
    expect(tr.turns.at(-1)).toBe(30);
  });
});

describe('turnRate', () => {
  it("takes the agent's ratio, else works it out, never outside 0…1", () => {
    expect(turnRate({ hitTokens: 3, missTokens: 1, hitRatio: 0.7 })).toBe(0.7);
    expect(turnRate({ hitTokens: 3, missTokens: 1, hitRatio: 7 })).toBe(0.75);
    expect(turnRate({ hitTokens: 0, missTokens: 0, hitRatio: 0 })).toBeNull();
    expect(turnRate({ hitTokens: -5, missTokens: 10, hitRatio: -1 })).toBeNull();
  });
});
