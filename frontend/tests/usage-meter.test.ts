import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import UsageMeter from '../src/components/UsageMeter.svelte';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;

beforeEach(() => {
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target.remove();
});

function show(usage: unknown) {
  comp = mount(UsageMeter, { target, props: { usage: usage as never } });
  flushSync();
}

// What Go sends for a Reasonix turn (thread.Usage with cache figures from
// its _reasonix.io/session/status_update notification).
const reasonix = {
  used: 0,
  size: 0,
  cache: {
    turn: { hitTokens: 2900, missTokens: 100, hitRatio: 0.9667 },
    session: { hitTokens: 5421, missTokens: 1441, hitRatio: 0.79 },
  },
};

describe('UsageMeter', () => {
  it('shows the prompt-cache hit ratio with hit and miss tokens per turn and session', () => {
    show(reasonix);
    const chip = target.querySelector('[data-testid="usage-cache"]')!;
    expect(chip.textContent).toBe('cache 97%');
    const title = chip.getAttribute('title')!;
    expect(title).toContain('This turn: 97% hit (2,900 hit / 100 miss tokens)');
    expect(title).toContain('Session: 79% hit (5,421 hit / 1,441 miss tokens)');
    // No context window reported: no bar, only the cache figures.
    expect(target.querySelector('[role="meter"]')).toBeNull();
  });

  it('draws the hit rate per turn beside the chip, worded in the tooltip', () => {
    const turns = [
      { turn: 1, hitTokens: 600, missTokens: 400, hitRatio: 0.6 },
      { turn: 2, hitTokens: 900, missTokens: 100, hitRatio: 0.9 },
      { turn: 3, hitTokens: 940, missTokens: 60, hitRatio: 0.94 },
    ];
    show({ ...reasonix, cache: { ...reasonix.cache, turns } });
    const svg = target.querySelector('[data-testid="usage-cache-trend"]')!;
    expect(svg.getAttribute('aria-label')).toBe('Hit rate per turn, last 3: 60% → 90% → 94% (rising)');
    expect(svg.getAttribute('data-direction')).toBe('up');
    expect(svg.querySelector('polyline')!.getAttribute('points')).toBe('0,4.8 20,1.2 40,0.7');
    unmount(comp!);
    // One turn is no trend.
    show({ ...reasonix, cache: { ...reasonix.cache, turns: turns.slice(0, 1) } });
    expect(target.querySelector('[data-testid="usage-cache-trend"]')).toBeNull();
  });

  it('falls back to the session ratio when the turn has no figures yet', () => {
    show({ ...reasonix, cache: { ...reasonix.cache, turn: { hitTokens: 0, missTokens: 0, hitRatio: 0 } } });
    const chip = target.querySelector('[data-testid="usage-cache"]')!;
    expect(chip.textContent).toBe('cache 79%');
    expect(chip.getAttribute('title')).not.toContain('This turn');
  });

  it('shows the context bar and cost beside the cache, and no cache for other agents', () => {
    show({ used: 1200, size: 128000, cost: { amount: 0.5, currency: 'USD' }, cache: reasonix.cache });
    expect(target.querySelector('[role="meter"]')?.getAttribute('aria-valuenow')).toBe('1200');
    expect(target.querySelector('.cost')).not.toBeNull();
    expect(target.querySelector('[data-testid="usage-cache"]')?.textContent).toBe('cache 97%');
    unmount(comp!);
    comp = null;
    show({ used: 1200, size: 128000 });
    expect(target.querySelector('[role="meter"]')).not.toBeNull();
    expect(target.querySelector('[data-testid="usage-cache"]')).toBeNull();
  });

  it('renders nothing without usage worth showing', () => {
    show({ used: 0, size: 0, cache: null });
    expect(target.querySelector('[data-testid="usage"]')).toBeNull();
  });
});
