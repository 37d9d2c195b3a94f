// How the UI holds up: a 50,000-chunk stream and a 20,000-entry session.
// Figures go to e2e/web/out/perf.json and are printed.
//
// Headless Chromium on a shared 2-core machine is noisy (the agent, mnote
// serve and Playwright run on the same cores), so the assertions are
// mostly the bounds a person would notice: no main-thread task over
// 400 ms, a big session open in under 2 s. The targets (50 ms tasks, 500 ms
// to open) are printed, with a WARN line when missed. Opening the
// 20,000-entry session is held to the 50 ms target itself (issue 24): it
// comes a slice at a time, each a few ms. That assertion reads each
// task's main-thread CPU time from a trace, with parsing the whole reply
// at once as the reference in the same run (the ratio is printed); the
// wall time, which counts what other processes take, is printed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CDPSession } from '@playwright/test';
import { composer, expect, openApp, pickTestAgent, recordPerf, sendSteps, stopButton, test, thread, waitTurnEnd, type Page } from './fixtures';
import { editorText, openNote, readNote, writeNote } from './workspace-helpers';

// Asserted: well above what this shared 2-core machine shows now (no task
// over 50 ms in most runs, an odd one of 60–70 ms) so CI does not flake, low
// enough that a return of the seconds-long tasks fails. The 50 ms target is
// printed (WARN when missed) on every run.
const LONG_TASK_LIMIT_MS = 400; // asserted
const LONG_TASK_TARGET_MS = 50; // printed
const OPEN_LIMIT_MS = 2000; // asserted
const OPEN_TARGET_MS = 500; // printed
const OPEN_LONG_TASK_LIMIT_MS = 50; // asserted (main-thread CPU time): opening the 20,000-entry session, its earlier entries included
const KEYSTROKE_TARGET_MS = 16; // printed: live preview's keystroke in a 5,000-line note
const CPU_RATIO_LIMIT = 2; // asserted: live preview's main-thread CPU a keystroke / source's, same run

// A 1.95 MB single-paragraph message (50,000 flood chunks with no newline)
// used to make main-thread tasks of 0.7–4 s. Huge blocks now render as
// plain-text pieces of 8 KiB (only the last re-renders) with
// content-visibility: auto (pieces off screen are neither shaped nor
// painted), a long first line is not lexed while it streams, and a flood
// grows the message by at most 32 KiB an update: no task over 50 ms in most
// runs. Set this to true again
// only to park a regression while it is being fixed.
const KNOWN_BUG_LONG_PARAGRAPH_RERENDER = false;

// Installed before the page's own scripts: long tasks, frame gaps, and the
// moments a turn starts and ends (the Stop button shows and goes).
function instrument() {
  type P = {
    lt: { start: number; dur: number }[];
    frames: { n: number; max: number; over50: number };
    turn: { sentAt: number; stopSeenAt: number; endAt: number };
    clickAt: number;
  };
  const p: P = {
    lt: [],
    frames: { n: 0, max: 0, over50: 0 },
    turn: { sentAt: 0, stopSeenAt: 0, endAt: 0 },
    clickAt: 0,
  };
  (window as unknown as { __perf: P }).__perf = p;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) p.lt.push({ start: e.startTime, dur: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  let last = 0;
  const frame = (t: number) => {
    if (last) {
      const d = t - last;
      p.frames.n++;
      if (d > p.frames.max) p.frames.max = d;
      if (d > 50) p.frames.over50++;
    }
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  // Cheap polling (no MutationObserver on a page that mutates a lot).
  setInterval(() => {
    const stop = document.querySelector('.composer button.stop');
    if (p.turn.sentAt && !p.turn.endAt) {
      if (stop && !p.turn.stopSeenAt) p.turn.stopSeenAt = performance.now();
      if (!stop && p.turn.stopSeenAt) p.turn.endAt = performance.now();
    }
  }, 20);
  document.addEventListener('click', () => (p.clickAt = performance.now()), true);
}

type Window = { lt: { start: number; dur: number }[]; frames: { n: number; max: number; over50: number } };

/** Starts a measuring window: forgets the long tasks and frames so far. */
async function resetPerf(page: Page): Promise<void> {
  await page.evaluate(() => {
    const p = (window as unknown as { __perf: Window & { turn: Record<string, number> } }).__perf;
    p.lt = [];
    p.frames = { n: 0, max: 0, over50: 0 };
    p.turn = { sentAt: 0, stopSeenAt: 0, endAt: 0 };
  });
}

async function readPerf(page: Page) {
  const w = await page.evaluate(() => {
    const p = (window as unknown as { __perf: Window }).__perf;
    return { lt: p.lt.slice(), frames: { ...p.frames } };
  });
  const durs = w.lt.map((t) => t.dur).sort((a, b) => b - a);
  return {
    longTasks: durs.length,
    longTaskMaxMs: round(durs[0] ?? 0),
    longTaskTotalMs: round(durs.reduce((a, b) => a + b, 0)),
    blockingMs: round(durs.reduce((a, b) => a + Math.max(0, b - 50), 0)), // total blocking time
    longTasksTop: durs.slice(0, 8).map(round),
    frames: w.frames.n,
    frameGapMaxMs: round(w.frames.max),
    framesOver50ms: w.frames.over50,
  };
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

function judgeLongTasks(label: string, maxMs: number, asserted = true): void {
  if (maxMs > LONG_TASK_TARGET_MS) {
    const bound = asserted ? `asserted bound ${LONG_TASK_LIMIT_MS} ms` : 'not asserted';
    console.log(`WARN: ${label}: longest main-thread task ${maxMs} ms > ${LONG_TASK_TARGET_MS} ms target (${bound})`);
  } else {
    console.log(`ok: ${label}: longest main-thread task ${maxMs} ms <= ${LONG_TASK_TARGET_MS} ms`);
  }
}

/** With MNOTE_E2E_PROFILE=DIR, records the page's CPU profile (Chrome
 * DevTools format) of a measured window into DIR/<name>.cpuprofile, to see
 * what a long task was. Returns the function that stops and saves it. */
async function startProfile(page: Page, name: string): Promise<() => Promise<void>> {
  const dir = process.env.MNOTE_E2E_PROFILE;
  if (!dir) return async () => {};
  const cdp = await page.context().newCDPSession(page);
  if (process.env.MNOTE_E2E_TRACE) {
    // A timeline trace instead (layout, style, paint, scripts): open it in
    // Chrome DevTools' Performance panel.
    const events: unknown[] = [];
    cdp.on('Tracing.dataCollected', (e: { value: unknown[] }) => events.push(...e.value));
    await cdp.send('Tracing.start', {
      categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink.user_timing',
      transferMode: 'ReportEvents',
    });
    return async () => {
      const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
      await cdp.send('Tracing.end');
      await done;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${name}.trace.json`), JSON.stringify({ traceEvents: events }));
      console.log(`trace: ${path.join(dir, name + '.trace.json')}`);
    };
  }
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    console.log(`profile: ${path.join(dir, name + '.cpuprofile')}`);
  };
}

/**
 * The page's main thread so far (ms): its CPU time (ThreadTime: what it
 * ran, not what it waited for a core, so less noisy on a shared machine
 * than a keystroke's wall-clock time), script, and style + layout.
 */
async function mainThread(cdp: CDPSession): Promise<{ cpu: number; script: number; layout: number }> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const v = (name: string) => (metrics.find((x) => x.name === name)?.value ?? 0) * 1000;
  return { cpu: v('ThreadTime'), script: v('ScriptDuration'), layout: v('LayoutDuration') + v('RecalcStyleDuration') };
}

/** Records the page's main-thread tasks (DevTools' timeline trace: its
 * RunTask events are the tasks the long-task API sees, all of them)
 * until the returned function is called, which gives the longest one's
 * main-thread CPU time and wall time. CPU time is the page's own work:
 * what another process on a shared machine takes from it is left out
 * (the long-task API counts it). */
async function startTaskTrace(page: Page): Promise<() => Promise<{ tasks: number; maxCpuMs: number; maxWallMs: number; over50CpuMs: number }>> {
  const cdp = await page.context().newCDPSession(page);
  type TraceEvent = { name: string; ph: string; pid: number; tid: number; dur?: number; tdur?: number; args?: { name?: string } };
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e: { value: unknown[] }) => events.push(...(e.value as TraceEvent[])));
  await cdp.send('Tracing.start', { categories: 'disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  return async () => {
    const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
    const main = new Set(
      events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
    );
    const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && main.has(`${e.pid}:${e.tid}`));
    if (tasks.length === 0) {
      const names = new Map<string, number>();
      for (const e of events) names.set(e.name, (names.get(e.name) ?? 0) + 1);
      console.log(`task trace: no task of CrRendererMain (${main.size} threads): ${JSON.stringify([...names].slice(0, 30))}`);
    }
    const cpu = tasks.map((e) => (e.tdur ?? e.dur ?? 0) / 1000);
    return {
      tasks: tasks.length,
      maxCpuMs: round(Math.max(0, ...cpu)),
      maxWallMs: round(Math.max(0, ...tasks.map((e) => (e.dur ?? 0) / 1000))),
      over50CpuMs: cpu.filter((x) => x > 50).length,
    };
  };
}

/** Sends a prompt and marks the moment in the page (the turn's clock starts). */
async function sendTimed(page: Page, steps: unknown[]): Promise<void> {
  const box = composer(page);
  await box.click();
  await box.fill(JSON.stringify(steps));
  await page.evaluate(() => ((window as unknown as { __perf: { turn: { sentAt: number } } }).__perf.turn.sentAt = performance.now()));
  await box.press('Enter');
}

/** Waits (polling gently) until the turn has ended; returns its duration in ms. */
async function turnTime(page: Page, timeout: number): Promise<number> {
  const h = await page.waitForFunction(
    () => {
      const t = (window as unknown as { __perf: { turn: { sentAt: number; endAt: number } } }).__perf.turn;
      return t.endAt ? t.endAt - t.sentAt : 0;
    },
    undefined,
    { polling: 200, timeout },
  );
  return round((await h.jsonValue()) as number);
}

// Playwright's trace takes DOM snapshots around actions, inside the page:
// with a 2 MB message on screen they are long tasks of their own, which the
// measurements must not count.
test.use({ trace: 'off' });

// @perf: the project that runs alone, after the others (playwright.config.ts).
test.describe('perf', { tag: '@perf' }, () => {

  test.beforeEach(async ({ page }) => {
    await page.addInitScript(instrument);
  });

  // 8a. 50,000 streamed chunks into one message. The target is no task over
  // 50 ms; on this noisy shared machine the test asserts < 200 ms and prints
  // a WARN line above 50 ms.
  test('stream of 50,000 chunks: the main thread stays responsive', async ({ page, serve }) => {
    test.setTimeout(120_000);
    const N = 50_000;
    await openApp(page, serve);
    await pickTestAgent(page);
    // A warm-up turn starts the session and the agent (not measured).
    await sendSteps(page, [{ message: 'warm-up' }]);
    await expect(thread(page).getByTestId('assistant-message')).toHaveText('warm-up');
    await waitTurnEnd(page);

    await resetPerf(page);
    const stopProfile = await startProfile(page, 'stream50k');
    await sendTimed(page, [{ flood: N }]);
    const finishMs = await turnTime(page, 90_000);
    const streaming = await readPerf(page);
    // The final (non-streaming) render comes right after the turn ends.
    await page.waitForTimeout(1500);
    const withFinal = await readPerf(page);
    await stopProfile();

    // All of it arrived: the first and the last chunk are on screen.
    const answer = thread(page).getByTestId('assistant-message').last();
    const text = await answer.evaluate((el) => el.textContent ?? '');
    const chars = text.length;
    expect(text).toContain('tok 000000 lorem ipsum dolor sit amet.');
    expect(text).toContain(`tok ${String(N - 1).padStart(6, '0')} lorem ipsum dolor sit amet.`);
    await expect(stopButton(page)).toHaveCount(0);

    const figures = {
      chunks: N,
      messageChars: chars,
      timeToFinishMs: finishMs,
      chunksPerSecond: Math.round(N / (finishMs / 1000)),
      untilTurnEnd: streaming,
      includingFinalRender: withFinal,
      targetLongTaskMs: LONG_TASK_TARGET_MS,
      limitLongTaskMs: LONG_TASK_LIMIT_MS,
    };
    recordPerf('stream50k', figures);
    console.log(
      `stream50k: ${N} chunks (${chars} chars) in ${finishMs} ms; long tasks until the end: ${streaming.longTasks}, ` +
        `max ${streaming.longTaskMaxMs} ms (top ${streaming.longTasksTop.join(', ')}); ` +
        `with the final render: ${withFinal.longTasks}, max ${withFinal.longTaskMaxMs} ms; ` +
        `frame gap max ${withFinal.frameGapMaxMs} ms, ${withFinal.framesOver50ms} of ${withFinal.frames} frames over 50 ms`,
    );
    judgeLongTasks('stream50k', withFinal.longTaskMaxMs);
    if (KNOWN_BUG_LONG_PARAGRAPH_RERENDER) {
      if (withFinal.longTaskMaxMs >= LONG_TASK_LIMIT_MS) {
        test.fixme(true, `known UI bug (see KNOWN_BUG_LONG_PARAGRAPH_RERENDER): longest task ${withFinal.longTaskMaxMs} ms >= ${LONG_TASK_LIMIT_MS} ms`);
      }
      console.log('NOTE: stream50k is within the bound although KNOWN_BUG_LONG_PARAGRAPH_RERENDER is set: fixed? set it to false');
    }
    expect(withFinal.longTaskMaxMs, 'longest main-thread task while streaming 50,000 chunks').toBeLessThan(LONG_TASK_LIMIT_MS);
  });

  // 8b. A 20,000-entry session: built once through the agent (a "bench"
  // flood: message and thought chunks with a tool call every 20 updates,
  // about 0.15 entries per update), then opened from the history after a
  // reload.
  test('a 20,000-entry session opens quickly and scrolls end to end', async ({ page, serve }) => {
    test.setTimeout(150_000);
    const UPDATES = 134_000; // ≈ 20,150 entries (0.1504 per update)
    await openApp(page, serve);
    await pickTestAgent(page);
    await sendSteps(page, [{ message: 'warm-up' }]);
    await expect(thread(page).getByTestId('assistant-message')).toHaveText('warm-up');
    await waitTurnEnd(page);

    await resetPerf(page);
    await sendTimed(page, [
      { flood: UPDATES, mix: 'bench' },
      { toolCall: { toolCallId: 'last-tool', title: 'The last tool', kind: 'read', status: 'completed' } },
      { message: 'The very last entry.' },
    ]);
    const buildMs = await turnTime(page, 120_000);
    const buildPerf = await readPerf(page);
    await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('The very last entry.');

    const id = await page.locator('.history button.open[aria-current="true"]').getAttribute('data-id');
    const snap = await serve.call<{ thread: { entries: { id: string; kind: string }[] } }>('sessions.open', { id });
    const entries = snap.thread.entries;
    const kinds: Record<string, number> = {};
    for (const e of entries) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
    console.log(`session20k: ${UPDATES} bench updates made ${entries.length} entries ${JSON.stringify(kinds)} in ${buildMs} ms`);
    expect(entries.length).toBeGreaterThanOrEqual(20_000);
    const firstId = entries[0].id;
    const lastId = entries[entries.length - 1].id;

    // Let mnote finish its background work on the 134,000 updates (the
    // search index) before timing the page: wait until search finds the
    // last entry's words.
    const idx0 = Date.now();
    for (;;) {
      const hits = await serve.call<unknown[]>('sessions.search', { query: 'very last entry' });
      if (hits.length > 0) break;
      expect(Date.now() - idx0, 'the search index catches up with the last entry').toBeLessThan(30_000);
      await page.waitForTimeout(100);
    }
    const indexLagMs = Date.now() - idx0;
    // What the open costs on the Go side and the wire: sessions.open from Node.
    const api0 = Date.now();
    const again = await serve.call<{ thread: { entries: unknown[] } }>('sessions.open', { id });
    const apiOpenMs = Date.now() - api0;
    expect(again.thread.entries.length).toBe(entries.length);
    console.log(`session20k: index caught up ${indexLagMs} ms after the turn; sessions.open from Node ${apiOpenMs} ms`);

    // Its tab closed (open tabs come back after a reload), a reload:
    // nothing open; the session is in the history.
    await page.getByTestId('session-tabs').getByRole('button', { name: /^Close / }).click();
    await expect(page.getByTestId('session-tabs')).toHaveCount(0);
    await page.reload();
    await expect(page.locator('.chat .empty')).toBeVisible();
    const row = page.locator(`.history button.open[data-id="${id}"]`);
    await expect(row).toBeVisible();
    await page.waitForTimeout(300); // let the reload settle
    await resetPerf(page);
    const stopOpenProfile = await startProfile(page, 'session20k-open');
    const stopTaskTrace = process.env.MNOTE_E2E_PROFILE ? null : await startTaskTrace(page);

    // Click → the last entry is on screen, at the end of a scrollable thread.
    const visible = page.evaluate(
      ([entryId]) =>
        new Promise<number>((resolve) => {
          const check = () => {
            const el = document.querySelector(`[data-entry-id="${entryId}"]`);
            const sc = document.querySelector('[data-testid="thread"]');
            if (el && sc) {
              const r = el.getBoundingClientRect();
              const s = sc.getBoundingClientRect();
              if (r.height > 0 && r.bottom <= s.bottom + 1 && r.top >= s.top - 1 && sc.scrollHeight > sc.clientHeight) {
                resolve(performance.now());
                return;
              }
            }
            requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        }),
      [lastId],
    );
    await row.click();
    const shownAt = await visible;
    const clickAt = await page.evaluate(() => (window as unknown as { __perf: { clickAt: number } }).__perf.clickAt);
    const openMs = round(shownAt - clickAt);
    const openPerf = await readPerf(page);
    // Where the time went: the sessions.open request of the last entries
    // (the first /api/call of some size after the click; the earlier
    // entries' slices come after the last entry is shown).
    const openFetch = await page.evaluate((since) => {
      const calls = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
        (r) => r.name.includes('/api/call') && r.startTime >= since - 5,
      );
      const r = calls.sort((a, b) => a.startTime - b.startTime).find((c) => c.encodedBodySize > 20_000);
      if (!r) return null;
      const round = (x: number) => Math.round(x * 10) / 10;
      return {
        bytes: r.encodedBodySize,
        startAfterClickMs: round(r.startTime - since),
        waitMs: round(r.responseStart - r.requestStart), // Go builds and encodes the snapshot
        downloadMs: round(r.responseEnd - r.responseStart),
        doneAfterClickMs: round(r.responseEnd - since),
      };
    }, clickAt);
    console.log(`session20k: the sessions.open request: ${JSON.stringify(openFetch)}`);
    await expect(page.locator(`[data-entry-id="${lastId}"]`)).toContainText('The very last entry.');
    // The earlier entries come after, a slice at a time; the end stays in view.
    await expect(thread(page).locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 30_000 });
    const completeMs = round((await page.evaluate(() => performance.now())) - clickAt);
    const completePerf = await readPerf(page);
    await stopOpenProfile();
    const openTasks = stopTaskTrace ? await stopTaskTrace() : null;
    const slices = await page.evaluate((since) => {
      const calls = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
        (r) => r.name.includes('/api/call') && r.startTime >= since - 5 && r.encodedBodySize > 20_000,
      );
      return { calls: calls.length, bytes: calls.reduce((a, c) => a + c.encodedBodySize, 0) };
    }, clickAt);
    await expect(page.locator(`[data-entry-id="${lastId}"]`)).toBeInViewport();
    expect(await thread(page).locator('.earlier').count()).toBe(0);
    const geometry = await thread(page).evaluate((el) => ({
      scrollHeight: el.scrollHeight,
      clientHeight: el.clientHeight,
      scrollTop: Math.round(el.scrollTop),
      rendered: el.querySelectorAll('[data-entry-id]').length,
    }));
    console.log(`session20k: open ${openMs} ms (target ${OPEN_TARGET_MS} ms, limit ${OPEN_LIMIT_MS} ms); ${JSON.stringify(geometry)}`);
    if (openMs > OPEN_TARGET_MS) console.log(`WARN: session20k: opening took ${openMs} ms > ${OPEN_TARGET_MS} ms target`);
    console.log(
      `session20k: every entry in ${completeMs} ms after the click (${slices.calls} replies, ${slices.bytes} bytes): ` +
        `${completePerf.longTasks} long tasks, max ${completePerf.longTaskMaxMs} ms`,
    );
    expect(geometry.scrollHeight).toBeGreaterThan(geometry.clientHeight * 20);
    expect(geometry.scrollTop + geometry.clientHeight).toBeGreaterThan(geometry.scrollHeight - 80);
    expect(geometry.rendered).toBeLessThan(200); // virtualized

    // Home / End on the focused thread, then a person's wheel scrolling.
    await page.waitForTimeout(300);
    await resetPerf(page);
    await thread(page).focus();
    const stopJumpProfile = await startProfile(page, 'session20k-home');
    let t = Date.now();
    await page.keyboard.press('Home');
    await expect(page.locator(`[data-entry-id="${firstId}"]`)).toBeInViewport();
    const homeMs = Date.now() - t;
    // At the top (the list's 8 px top padding may stay above: scrollToIndex(0, start)).
    expect(await thread(page).evaluate((el) => el.scrollTop)).toBeLessThanOrEqual(8);
    t = Date.now();
    await page.keyboard.press('End');
    await expect(page.locator(`[data-entry-id="${lastId}"]`)).toBeInViewport();
    const endMs = Date.now() - t;
    const jumpPerf = await readPerf(page);
    await stopJumpProfile();

    await resetPerf(page);
    const box = (await thread(page).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const wheelStart = Date.now();
    for (let i = 0; i < 60; i++) {
      await page.mouse.wheel(0, -1200);
      await page.waitForTimeout(16);
    }
    await page.waitForTimeout(300);
    const wheelMs = Date.now() - wheelStart;
    const wheelPerf = await readPerf(page);
    const scrolledUp = await thread(page).evaluate((el) => el.scrollHeight - el.clientHeight - el.scrollTop);
    expect(scrolledUp).toBeGreaterThan(30_000); // the wheel really moved it

    // The reference, in the same run and page: parsing the whole session's
    // reply at once, as the open did in one task before it came in slices
    // (only part of that task: measuring and rendering came on top).
    const wholeText = JSON.stringify(again);
    // In a task of the page's own (a timer), as the open's tasks are.
    const parseWholeMs = round(
      await page.evaluate(
        (text) =>
          new Promise<number>((resolve) =>
            setTimeout(() => {
              const t0 = performance.now();
              JSON.parse(text);
              resolve(performance.now() - t0);
            }, 0),
          ),
        wholeText,
      ),
    );
    // The long-task API's figure is wall time: on a shared machine it
    // counts what other processes took from the page. The trace's CPU
    // time is the page's own work, asserted (printed both).
    const openTaskMaxMs = Math.max(openPerf.longTaskMaxMs, completePerf.longTaskMaxMs);
    // (Not traced while profiling: MNOTE_E2E_PROFILE, whose own cost is in the tasks.)
    const openTaskCpuMs = openTasks?.maxCpuMs ?? openTaskMaxMs;
    const openRatio = round(openTaskMaxMs / Math.max(0.1, parseWholeMs));

    const figures = {
      updates: UPDATES,
      entries: entries.length,
      kinds,
      buildMs,
      buildStream: buildPerf,
      indexLagMs,
      apiOpenMs,
      openMs,
      openTargetMs: OPEN_TARGET_MS,
      openLimitMs: OPEN_LIMIT_MS,
      open: openPerf,
      completeMs,
      untilComplete: completePerf,
      slices,
      openTasks,
      parseWholeMs,
      openTaskRatio: openRatio,
      openLongTaskLimitMs: OPEN_LONG_TASK_LIMIT_MS,
      openFetch,
      geometry,
      homeMs,
      endMs,
      homeEnd: jumpPerf,
      wheel: { steps: 60, px: 60 * 1200, scrolledPx: Math.round(scrolledUp), ms: wheelMs, ...wheelPerf },
    };
    recordPerf('session20k', figures);
    console.log(
      `session20k: Home ${homeMs} ms, End ${endMs} ms, longest task ${jumpPerf.longTaskMaxMs} ms; ` +
        `wheel ${Math.round(scrolledUp)} px: ${wheelPerf.longTasks} long tasks, max ${wheelPerf.longTaskMaxMs} ms, frame gap max ${wheelPerf.frameGapMaxMs} ms`,
    );
    console.log(
      `session20k: longest task of the open (its earlier entries included): ${openTaskCpuMs} ms main-thread CPU ` +
        `(${openTasks?.tasks ?? '?'} tasks traced), ${openTaskMaxMs} ms wall (long-task API); ` +
        `the reference, parsing the whole reply at once (wall): ${parseWholeMs} ms; open / whole parse (wall) = ${openRatio}`,
    );
    if (openTaskCpuMs > OPEN_LONG_TASK_LIMIT_MS) {
      console.log(`WARN: session20k open: longest main-thread task ${openTaskCpuMs} ms CPU > ${OPEN_LONG_TASK_LIMIT_MS} ms (asserted)`);
    } else {
      console.log(`ok: session20k open: longest main-thread task ${openTaskCpuMs} ms CPU <= ${OPEN_LONG_TASK_LIMIT_MS} ms`);
    }
    if (openTaskMaxMs > OPEN_LONG_TASK_LIMIT_MS) {
      console.log(`WARN: session20k open: longest task ${openTaskMaxMs} ms wall > ${OPEN_LONG_TASK_LIMIT_MS} ms target (not asserted: other processes' share)`);
    }
    judgeLongTasks('session20k Home/End', jumpPerf.longTaskMaxMs);
    judgeLongTasks('session20k wheel', wheelPerf.longTaskMaxMs);
    expect(openMs, 'click → last entry shown').toBeLessThan(OPEN_LIMIT_MS);
    if (openTasks) {
      expect(openTaskCpuMs, 'longest main-thread task (CPU) opening the session, its earlier entries included').toBeLessThanOrEqual(OPEN_LONG_TASK_LIMIT_MS);
    }
    expect(jumpPerf.longTaskMaxMs, 'longest task on Home/End').toBeLessThan(LONG_TASK_LIMIT_MS);
    expect(wheelPerf.longTaskMaxMs, 'longest task while wheel scrolling').toBeLessThan(LONG_TASK_LIMIT_MS);
  });

  // 8c. Typing in a 5,000-line note, live preview against source (the
  // reference, in the same run): each keystroke's main-thread time, from
  // its keydown to the end of the frame that shows it, less the wait for
  // that frame, and the main thread's CPU time a keystroke (what it ran,
  // not what it waited for a core). The 16 ms target for the p95 is
  // printed (WARN when missed), with the ratios live / source. Asserted:
  // every key landed, no task over the long-task bound (as 8a/8b), and
  // live preview's CPU a keystroke at most CPU_RATIO_LIMIT times source's
  // (1.0–1.2 here now: live preview redraws only the blocks a keystroke
  // changed; the wall-clock figures on this shared machine swing by 2–3
  // times between runs, the CPU ratio does not).
  test('typing in a 5,000-line note: live preview against source', async ({ page, serve }) => {
    test.setTimeout(180_000);
    const LINES = 5000;
    const body: string[] = [];
    for (let i = 0; body.length < LINES; i++) {
      if (i % 25 === 0) body.push(`## 第 ${i / 25 + 1} 节 Section`, '');
      body.push(`Reasonix 的缓存命中率 **很高** 而 *稳定*，见 [[笔记 ${i % 40}]] 与 [链接](https://example.com/${i}) 和 \`code ${i}\`。`);
      if (i % 5 === 0) body.push(`- [ ] 任务 ${i}`, `- [x] 完成 ${i}`, `1. 第一 ${i}`, `2. 第二 ${i}`);
      if (i % 50 === 0) body.push('', '| 名称 | 值 |', '| --- | --- |', `| 甲 | ${i} |`, '', '```go', `func f${i}() {}`, '```', '', `> [!note] 提示 ${i}`, '> 引用', '');
    }
    const text = body.slice(0, LINES).join('\n') + '\n';
    writeNote(serve, 'big.md', text);
    writeNote(serve, 'big2.md', text);
    await openApp(page, serve);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.evaluate(() => {
      const w = window as unknown as { __keys: { latency: number; busy: number }[] };
      w.__keys = [];
      window.addEventListener(
        'keydown',
        () => {
          const t0 = performance.now();
          let inputDone = 0;
          setTimeout(() => (inputDone = performance.now()), 0);
          requestAnimationFrame((frameStart) => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => {
              const t1 = performance.now();
              const idle = Math.max(0, frameStart - (inputDone || frameStart));
              w.__keys.push({ latency: t1 - t0, busy: t1 - t0 - idle });
            };
            ch.port2.postMessage(0);
          });
        },
        true,
      );
    });
    const TYPED = ' and **more** [[x]] y';
    const measure = async (note: string, mode: 'edit' | 'live') => {
      await openNote(page, note);
      await page.getByTestId('view-modes').locator(`[data-mode="${mode}"]`).click();
      // Focused, not clicked: a click in live preview may land on a link
      // and follow it (an unresolved one makes its note).
      await editorText(page).focus();
      // The end of the note (a line with bold, links and code), the whole note parsed and laid out above it.
      await page.keyboard.press('Control+End');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('End');
      await page.keyboard.type(' warm', { delay: 20 }); // not measured
      await expect(page.locator('.pane .cm-activeLine')).toContainText('warm');
      await page.evaluate(() => ((window as unknown as { __keys: unknown[] }).__keys = []));
      await resetPerf(page);
      const stop = await startProfile(page, `typing-${mode}`);
      const cpu0 = await mainThread(cdp);
      for (let r = 0; r < 4; r++) await page.keyboard.type(TYPED, { delay: 25 });
      await expect.poll(() => page.evaluate(() => (window as unknown as { __keys: unknown[] }).__keys.length)).toBe(4 * TYPED.length);
      const cpu1 = await mainThread(cdp);
      await stop();
      await expect.poll(() => page.evaluate(() => (window as unknown as { __keys: unknown[] }).__keys.length)).toBe(4 * TYPED.length);
      const keys = await page.evaluate(() => (window as unknown as { __keys: { latency: number; busy: number }[] }).__keys);
      const perf = await readPerf(page);
      const q = (xs: number[], p: number) => round(xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]);
      const busy = keys.map((k) => k.busy);
      const lat = keys.map((k) => k.latency);
      await page.keyboard.press('Control+s');
      await expect.poll(() => readNote(serve, note)).toContain(TYPED.repeat(4));
      const perKey = (k: keyof typeof cpu0) => round((cpu1[k] - cpu0[k]) / keys.length);
      return {
        keys: keys.length,
        busyMedianMs: q(busy, 0.5),
        busyP95Ms: q(busy, 0.95),
        busyMaxMs: q(busy, 1),
        latencyMedianMs: q(lat, 0.5),
        latencyP95Ms: q(lat, 0.95),
        longTaskMaxMs: perf.longTaskMaxMs,
        cpuPerKeyMs: perKey('cpu'),
        scriptPerKeyMs: perKey('script'),
        layoutPerKeyMs: perKey('layout'),
      };
    };
    const source = await measure('big.md', 'edit');
    const live = await measure('big2.md', 'live');
    const ratio = round(live.busyMedianMs / Math.max(0.1, source.busyMedianMs));
    const cpuRatio = round(live.cpuPerKeyMs / Math.max(0.1, source.cpuPerKeyMs));
    recordPerf('liveTyping5k', { lines: LINES, source, live, ratioMedian: ratio, ratioCpu: cpuRatio, targetMs: KEYSTROKE_TARGET_MS });
    console.log(
      `liveTyping5k: keystroke median ${live.busyMedianMs} ms (p95 ${live.busyP95Ms}) in live preview, ` +
        `${source.busyMedianMs} ms (p95 ${source.busyP95Ms}) in source: live / source = ${ratio}; ` +
        `main-thread CPU a keystroke ${live.cpuPerKeyMs} ms live, ${source.cpuPerKeyMs} ms source (${cpuRatio})`,
    );
    if (live.busyP95Ms > KEYSTROKE_TARGET_MS) console.log(`WARN: liveTyping5k: keystroke p95 ${live.busyP95Ms} ms > ${KEYSTROKE_TARGET_MS} ms target (not asserted)`);
    else console.log(`ok: liveTyping5k: keystroke p95 ${live.busyP95Ms} ms <= ${KEYSTROKE_TARGET_MS} ms`);
    expect(live.longTaskMaxMs, 'longest task while typing in live preview').toBeLessThan(LONG_TASK_LIMIT_MS);
    expect(cpuRatio, 'main-thread CPU a keystroke, live preview / source').toBeLessThan(CPU_RATIO_LIMIT);
  });
});
