// Issue 26 in the window, the pure parts: the no-output watchdog's
// reckoning and its setting, a session's cost in the interface's language
// and the agent's currency, and which agents are offered "also delete the
// agent's copy" and "Sign out".
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/api/types';
import { costText } from '../src/lib/cost';
import { i18n } from '../src/lib/i18n.svelte';
import { clampMinutes, DEFAULT_WATCHDOG_MINUTES, silence, watchdogPrefs } from '../src/lib/watchdog.svelte';
import { offersAgentCopy, offersSignOut } from '../src/stores/agents.svelte';

afterEach(() => i18n.choose('system'));

describe('watchdog', () => {
  const base = { running: true, waiting: false, lastOutputMs: 1_000_000, thresholdMinutes: 3 };
  it('is quiet until the threshold, then counts minutes', () => {
    expect(silence({ ...base, nowMs: base.lastOutputMs + 179_999 })).toBeNull();
    expect(silence({ ...base, nowMs: base.lastOutputMs + 180_000 })).toEqual({ minutes: 3 });
    expect(silence({ ...base, nowMs: base.lastOutputMs + 7 * 60_000 + 59_000 })).toEqual({ minutes: 7 });
  });
  it('counts seconds under a minute (a short threshold)', () => {
    expect(silence({ ...base, thresholdMinutes: 0.05, nowMs: base.lastOutputMs + 2_000 })).toBeNull();
    expect(silence({ ...base, thresholdMinutes: 0.05, nowMs: base.lastOutputMs + 4_500 })).toEqual({ seconds: 4 });
  });
  it('says nothing when no turn runs, the turn waits for the person, or nothing was heard yet', () => {
    const now = base.lastOutputMs + 3_600_000;
    expect(silence({ ...base, running: false, nowMs: now })).toBeNull();
    expect(silence({ ...base, waiting: true, nowMs: now })).toBeNull();
    expect(silence({ ...base, lastOutputMs: 0, nowMs: now })).toBeNull();
  });
  it('keeps the setting within bounds and in localStorage', () => {
    expect(clampMinutes(Number('abc'))).toBe(DEFAULT_WATCHDOG_MINUTES);
    expect(clampMinutes(-1)).toBe(DEFAULT_WATCHDOG_MINUTES);
    expect(clampMinutes(0.001)).toBe(0.05);
    expect(clampMinutes(10_000)).toBe(120);
    watchdogPrefs.setMinutes(5);
    expect(watchdogPrefs.minutes).toBe(5);
    expect(localStorage.getItem('mnote.watchdogMinutes')).toBe('5');
    watchdogPrefs.setMinutes(DEFAULT_WATCHDOG_MINUTES);
  });
});

describe('cost', () => {
  const usage = { cost: { amount: 0.0342, currency: 'USD' }, turnCost: { amount: 0.0242, currency: 'USD' } };
  it('shows the turn and the session in English', () => {
    i18n.choose('en');
    expect(costText(usage)).toEqual({ chip: '$0.0342 (+$0.0242)', title: 'This turn: $0.0242\nThis session: $0.0342' });
    expect(costText({ cost: { amount: 12.5, currency: 'EUR' } })).toEqual({ chip: '€12.50', title: 'This session: €12.50' });
  });
  it('shows them in Chinese, in the currency the agent named', () => {
    i18n.choose('zh-CN');
    expect(costText(usage)).toEqual({ chip: 'US$0.0342（本轮 +US$0.0242）', title: '本轮：US$0.0242\n本会话：US$0.0342' });
    expect(costText({ cost: { amount: 3, currency: 'CNY' } })?.chip).toBe('¥3.00');
  });
  it('shows nothing without a cost, and survives a currency code Intl does not know', () => {
    expect(costText(null)).toBeNull();
    expect(costText({ cost: null })).toBeNull();
    expect(costText({ cost: { amount: Number.NaN, currency: 'USD' } })).toBeNull();
    i18n.choose('en');
    expect(costText({ cost: { amount: 0.5, currency: 'not a code' } })?.chip).toBe('0.5000 not a code');
  });
});

describe('lifecycle offers', () => {
  const agent = (caps?: Agent['capabilities'], status: Agent['status'] = 'ready'): Agent => ({
    name: 'a',
    title: 'A',
    command: 'a',
    args: [],
    builtin: false,
    status,
    notesTools: true,
    ...(caps ? { capabilities: caps } : {}),
  });
  it('offers only what the agent advertised', () => {
    expect(offersAgentCopy(undefined)).toBe(false);
    expect(offersAgentCopy(agent())).toBe(false);
    expect(offersAgentCopy(agent({ close: true, delete: false, logout: true }))).toBe(false);
    expect(offersAgentCopy(agent({ close: false, delete: true, logout: false }))).toBe(true);
    expect(offersSignOut(agent({ close: false, delete: true, logout: false }))).toBe(false);
    expect(offersSignOut(agent({ close: false, delete: false, logout: true }))).toBe(true);
    expect(offersSignOut(agent({ close: false, delete: false, logout: true }, 'missing'))).toBe(false);
    expect(offersSignOut(agent({ close: false, delete: false, logout: true }, 'needs_login'))).toBe(false);
  });
});
