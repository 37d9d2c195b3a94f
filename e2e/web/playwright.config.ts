// Playwright Test configuration for the browser end-to-end tests of the
// mnote UI (`mnote serve` + Debian's Chromium). run.sh is the entry point.
//
// No browser is downloaded: Chromium comes from Debian (`apt-get install
// chromium`, /usr/bin/chromium; MNOTE_E2E_CHROMIUM overrides the path).
// One worker: the perf tests need the machine (2 cores) to themselves, and
// the whole suite is short.
import { defineConfig } from '@playwright/test';

export const chromiumPath = process.env.MNOTE_E2E_CHROMIUM || '/usr/bin/chromium';

export default defineConfig({
  testDir: './tests',
  outputDir: './out/test-results',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  globalTimeout: 15 * 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['./tests/summary-reporter.ts']],
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
