// Playwright Test configuration for the browser end-to-end tests of the
// mnote UI (`mnote serve` + Debian's Chromium). run.sh is the entry point.
//
// No browser is downloaded: Chromium comes from Debian (`apt-get install
// chromium`, /usr/bin/chromium; MNOTE_E2E_CHROMIUM overrides the path).
//
// Two workers, each taking the next test (fullyParallel): a test waits on
// its browser, serve and agent much of the time. Every test has a `mnote
// serve` of its own (fresh MNOTE_HOME, a free port: tests/fixtures.ts) and
// no test depends on another, so tests in two workers share nothing but the
// temp folder run.sh made. The tests tagged @perf measure the UI and need the
// machine to themselves: they are their own project, which runs after all
// the others, one test at a time. It is the others' teardown, not a
// dependent project, so it runs also when one of them failed (a dependent
// project would be skipped).
import { defineConfig } from '@playwright/test';
import * as path from 'node:path';

export const chromiumPath = process.env.MNOTE_E2E_CHROMIUM || '/usr/bin/chromium';

// `make test` collects every suite's results in $TEST_REPORTS (for the list
// of the slowest tests at its end).
const reports = process.env.TEST_REPORTS;

export default defineConfig({
  testDir: './tests',
  outputDir: './out/test-results',
  workers: 2,
  fullyParallel: true,
  retries: 0,
  timeout: 60_000,
  globalTimeout: 15 * 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['./tests/summary-reporter.ts'],
    ...(reports ? [['json', { outputFile: path.join(reports, 'web.playwright.json') }] as const] : []),
  ],
  projects: [
    { name: 'ui', grepInvert: /@perf/, teardown: 'perf' },
    { name: 'perf', grep: /@perf/, workers: 1, fullyParallel: false },
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumPath,
      // As root Chromium needs --no-sandbox; without the background
      // networking flags it keeps trying hosts this closed network refuses.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
