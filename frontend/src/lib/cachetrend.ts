// A session's prompt-cache hit rate per turn as a small trend beside the
// cache chip (Go: thread.CacheUsage.turns, the turns that reported
// figures). Pure: the component draws `points` as an SVG polyline.

import type { TurnCache } from '../api/types';

/** The trend's last turns (at most this many are drawn). */
export const TREND_TURNS = 12;

export interface CacheTrend {
  /** The drawn turns' rates, 0 to 1, oldest first. */
  rates: number[];
  /** Their turn numbers. */
  turns: number[];
  /** SVG polyline points in a width × height box (y grows downwards: 100 % at the top). */
  points: string;
  /** The last rate against the one before: "up", "down" or "flat" (within 2 points). */
  direction: 'up' | 'down' | 'flat';
}

/** The rate of one turn: its ratio when in 0…1, else hit / (hit + miss). */
export function turnRate(t: Pick<TurnCache, 'hitTokens' | 'missTokens' | 'hitRatio'>): number | null {
  if (Number.isFinite(t.hitRatio) && t.hitRatio >= 0 && t.hitRatio <= 1 && t.hitTokens + t.missTokens > 0) return t.hitRatio;
  const all = t.hitTokens + t.missTokens;
  if (!Number.isFinite(all) || all <= 0 || t.hitTokens < 0 || t.missTokens < 0) return null;
  return t.hitTokens / all;
}

/**
 * The trend of the last `max` turns with figures, or null with fewer than
 * two (one turn is no trend). Turns without usable figures are left out.
 */
export function cacheTrend(turns: TurnCache[] | null | undefined, width = 40, height = 12, max = TREND_TURNS): CacheTrend | null {
  const usable = (turns ?? []).flatMap((t) => {
    const r = turnRate(t);
    return r === null ? [] : [{ turn: t.turn, rate: r }];
  });
  const last = usable.slice(-max);
  if (last.length < 2) return null;
  const step = width / (last.length - 1);
  const round = (n: number) => Math.round(n * 10) / 10;
  const points = last.map((p, i) => `${round(i * step)},${round((1 - p.rate) * height)}`).join(' ');
  const d = last[last.length - 1].rate - last[last.length - 2].rate;
  return {
    rates: last.map((p) => p.rate),
    turns: last.map((p) => p.turn),
    points,
    direction: d > 0.02 ? 'up' : d < -0.02 ? 'down' : 'flat',
  };
}
