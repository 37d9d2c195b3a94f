// The no-output watchdog: a turn that has produced nothing (no update, no
// request) for a long time is shown to the person ("No output for 3
// minutes", with Stop). It never stops anything by itself, and it goes
// away when output comes again. A turn waiting for the person (a
// permission or a question) is not silent. The threshold is a setting
// (Settings → Chat), in minutes, kept in localStorage.

import { readNumber, writePref } from './prefs';

const KEY = 'mnote.watchdogMinutes';
export const DEFAULT_WATCHDOG_MINUTES = 3;
/** The bounds of the setting (a few seconds is for trying it out). */
export const MIN_WATCHDOG_MINUTES = 0.05;
export const MAX_WATCHDOG_MINUTES = 120;

/** A setting as typed, within the bounds (the default for nonsense). */
export function clampMinutes(v: number): number {
  if (!Number.isFinite(v) || v <= 0) return DEFAULT_WATCHDOG_MINUTES;
  return Math.min(MAX_WATCHDOG_MINUTES, Math.max(MIN_WATCHDOG_MINUTES, v));
}

class WatchdogPrefs {
  minutes = $state(clampMinutes(readNumber(KEY, DEFAULT_WATCHDOG_MINUTES)));

  setMinutes(v: number): void {
    this.minutes = clampMinutes(v);
    writePref(KEY, String(this.minutes));
  }
}

export const watchdogPrefs = new WatchdogPrefs();

export interface WatchInput {
  /** A turn runs. */
  running: boolean;
  /** The turn waits for the person (a permission request, a question). */
  waiting: boolean;
  /** When the session last heard from its agent (or the turn began), ms. */
  lastOutputMs: number;
  nowMs: number;
  thresholdMinutes: number;
}

/** How long the turn has been silent, when it is past the threshold: whole
 * minutes, or seconds under one minute (a short test threshold); null
 * when there is nothing to show. */
export function silence(i: WatchInput): { minutes: number } | { seconds: number } | null {
  if (!i.running || i.waiting || i.lastOutputMs <= 0) return null;
  const quiet = i.nowMs - i.lastOutputMs;
  if (quiet < clampMinutes(i.thresholdMinutes) * 60_000) return null;
  return quiet >= 60_000 ? { minutes: Math.floor(quiet / 60_000) } : { seconds: Math.floor(quiet / 1000) };
}
