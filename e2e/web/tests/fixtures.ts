// Shared fixtures and helpers: a `mnote serve` of the test's own (fresh
// MNOTE_HOME whose config.json defines the scriptable test agent as the
// custom agent "Test Agent"), and small UI helpers that act as a person
// would (click, type, keys).
import { test as base, expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MNOTE = process.env.MNOTE_BIN || path.join(ROOT, 'build/bin/mnote');
export const TESTAGENT = process.env.MNOTE_TESTAGENT_BIN || path.join(ROOT, 'build/bin/mnote-testagent');
export const OUT = path.join(ROOT, 'e2e/web/out');
export const AGENT = 'Test Agent';

/** A running `mnote serve`. */
export class Serve {
  token = '';
  origin = '';
  private proc: ChildProcess | null = null;
  /** Page URLs serve printed and nobody used yet: each carries a one-time code. */
  private urls: string[] = [];
  private urlWaiters: Array<(u: string) => void> = [];
  private exited: Promise<number | null> = Promise.resolve(null);
  private logFd = -1;

  constructor(
    readonly home: string,
    readonly workspace: string,
    readonly log: string,
    /** More environment for serve (serveEnv). */
    readonly env: Record<string, string> = {},
  ) {}

  /** Where the stand-in launcher notes each file it was asked to open. */
  get openedLog(): string {
    return path.join(path.dirname(this.home), 'opened.log');
  }

  /** The files opened in the desktop's program (files.openInApp), in order. */
  opened(): string[] {
    return fs.existsSync(this.openedLog) ? fs.readFileSync(this.openedLog, 'utf8').split('\n').filter(Boolean) : [];
  }

  /**
   * Starts `mnote serve` on a free loopback port, reads its URL (the first
   * stdout line) and exchanges that URL's one-time code for the token, as
   * the page would. serve then prints a fresh URL, for the page (url()).
   */
  async start(): Promise<void> {
    if (this.proc) throw new Error('serve already running');
    this.logFd = fs.openSync(this.log, 'a');
    // The desktop's launcher (files.openInApp) is a stand-in that notes
    // what it was given: a test never starts a real PDF viewer.
    const bin = path.join(path.dirname(this.home), 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${this.openedLog}'\n`, { mode: 0o755 });
    const proc = spawn(MNOTE, ['serve', '--addr', '127.0.0.1:0', '--no-open', '--workspace', this.workspace], {
      env: { ...process.env, MNOTE_HOME: this.home, PATH: `${bin}:${process.env.PATH ?? ''}`, ...this.env },
      stdio: ['ignore', 'pipe', this.logFd],
      detached: true, // its own process group: agents it starts go with it if it must be killed
    });
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    const rl = createInterface({ input: proc.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mnote serve printed no URL within 15 s (log: ${this.log})`)), 15_000);
      rl.once('line', (l) => {
        clearTimeout(timer);
        resolve(l.trim());
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mnote serve exited (${code}) before printing its URL; log: ${this.log}\n${tail(this.log)}`));
      });
    });
    // Later stdout lines are fresh URLs (one after each use of the last).
    this.urls = [];
    this.urlWaiters = [];
    rl.on('line', (l) => {
      fs.appendFileSync(this.log, `[stdout] ${l}\n`);
      const w = this.urlWaiters.shift();
      if (w) w(l.trim());
      else this.urls.push(l.trim());
    });
    const u = new URL(first);
    this.origin = u.origin;
    const code = u.searchParams.get('code');
    if (!code || u.searchParams.has('token')) throw new Error(`no one-time code (or a token) in the URL mnote serve printed: ${first}`);
    const r = await fetch(`${this.origin}/api/exchange`, {
      method: 'POST',
      headers: { Origin: this.origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const body = (await r.json()) as { token?: string };
    if (!r.ok || !body.token) throw new Error(`exchange of the printed code: HTTP ${r.status}`);
    this.token = body.token;
  }

  /** A page URL with an unused one-time code (the next one serve printed). */
  url(): Promise<string> {
    const u = this.urls.shift();
    if (u) return Promise.resolve(u);
    return new Promise((resolve, reject) => {
      const waiter = (l: string) => {
        clearTimeout(timer);
        resolve(l);
      };
      const timer = setTimeout(() => {
        this.urlWaiters = this.urlWaiters.filter((w) => w !== waiter);
        reject(new Error(`mnote serve printed no fresh URL within 15 s (log: ${this.log})`));
      }, 15_000);
      this.urlWaiters.push(waiter);
    });
  }

  /** SIGTERM, then (after 8 s) SIGKILL to its process group. Returns the exit code. */
  async stop(): Promise<number | null> {
    const proc = this.proc;
    if (!proc) return null;
    this.proc = null;
    let code: number | null = null;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const timedOut = Symbol('timeout');
      const r = await Promise.race([this.exited, sleep(8_000).then(() => timedOut)]);
      if (r === timedOut) {
        fs.appendFileSync(this.log, '[e2e] serve did not exit 8 s after SIGTERM: SIGKILL to its process group\n');
        try {
          process.kill(-proc.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
        code = await this.exited;
      } else {
        code = r as number | null;
      }
    } else {
      code = proc.exitCode;
    }
    if (this.logFd >= 0) fs.closeSync(this.logFd);
    this.logFd = -1;
    return code;
  }

  /** Calls the API from Node (with the token), for checks the UI does not show. */
  async call<T = unknown>(method: string, args: object = {}): Promise<T> {
    const r = await fetch(`${this.origin}/api/call`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ method, args }),
    });
    const body = (await r.json()) as { result?: T; error?: unknown };
    if (!r.ok) throw new Error(`${method}: HTTP ${r.status} ${JSON.stringify(body.error)}`);
    return body.result as T;
  }
}

/** A fresh MNOTE_HOME with the test agent configured. */
export function makeHome(): { home: string; workspace: string } {
  // run.sh sets MNOTE_E2E_TMP (removed, and its processes stopped, on exit).
  // The notes folder beside MNOTE_HOME, not in it: mnote refuses a folder
  // inside its own data (agents must never reach it).
  const root = fs.mkdtempSync(path.join(process.env.MNOTE_E2E_TMP || os.tmpdir(), 'mnote-e2e-web-'));
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(home);
  fs.mkdirSync(workspace);
  const config = {
    agent_servers: {
      [AGENT]: { command: TESTAGENT, args: ['--state', path.join(home, 'agent-state')] },
    },
  };
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config, null, 2));
  return { home, workspace };
}

type Fixtures = {
  /** More environment for the test's `mnote serve` (test.use({ serveEnv: … })). */
  serveEnv: Record<string, string>;
  /** `mnote serve` on a fresh MNOTE_HOME, started; stopped and removed after the test. */
  serve: Serve;
};

export const test = base.extend<Fixtures>({
  serveEnv: [{}, { option: true }],
  serve: async ({ serveEnv }, use, testInfo) => {
    const { home, workspace } = makeHome();
    const s = new Serve(home, workspace, path.join(home, 'serve.log'), serveEnv);
    try {
      await s.start();
      await use(s);
    } finally {
      const code = await s.stop();
      if (testInfo.status !== testInfo.expectedStatus && fs.existsSync(s.log)) {
        await testInfo.attach('serve.log', { path: s.log, contentType: 'text/plain' });
      }
      if (code !== null && code !== 0) console.warn(`WARN: mnote serve exited with ${code} (log below)\n${tail(s.log)}`);
      fs.rmSync(path.dirname(home), { recursive: true, force: true });
    }
  },
  page: async ({ page }, use, testInfo) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      // A failed request is reported below with its URL.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await use(page);
    if (errors.length) {
      await testInfo.attach('browser-errors.txt', { body: errors.join('\n'), contentType: 'text/plain' });
      console.log(`[${testInfo.title}] browser console errors:\n  ${errors.slice(0, 10).join('\n  ')}`);
    }
  },
});

export { expect };

// ---------------------------------------------------------------------------
// UI helpers

/** Opens the page and waits until the app has loaded its agents. */
export async function openApp(page: Page, serve: Serve): Promise<void> {
  await page.goto(await serve.url());
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  // The agent button in the sidebar names the agent once agents.list answered.
  await expect(page.locator('.sidebar button.agent')).not.toContainText('Loading agents');
}

/** Picks "Test Agent" for new sessions in the session list's agent picker, as a person would. */
export async function pickTestAgent(page: Page): Promise<void> {
  const picker = page.getByTestId('sidebar-agent-picker');
  await picker.locator('button.agent').click();
  const option = picker.locator(`[role="option"][data-name="${AGENT}"]`);
  await expect(option).toHaveCount(1);
  await expect(option.locator('.dot')).toHaveClass(/\bready\b/); // ready: no tag beside it
  await expect(option.locator('.tag')).toHaveCount(0);
  await option.click();
  await expect(picker.getByRole('listbox')).toBeHidden();
  await expect(picker.locator('button.agent .name')).toHaveText(AGENT);
}

export function composer(page: Page): Locator {
  return page.getByRole('combobox', { name: 'Message' });
}

/** Types a prompt into the composer and presses Enter. */
export async function send(page: Page, text: string): Promise<void> {
  const box = composer(page);
  // The entry id and text of the newest prompt on screen (read at once, no
  // waiting). The text too: a new session's first prompt has the id the
  // last one's had in the session shown a moment before ("e1").
  const lastPrompt = () =>
    page.evaluate(() => {
      const els = document.querySelectorAll('[data-entry-id]');
      for (let i = els.length - 1; i >= 0; i--) {
        const msg = els[i].querySelector('[data-testid="user-message"]');
        if (msg) return `${els[i].getAttribute('data-entry-id')} ${msg.textContent ?? ''}`;
      }
      return null;
    });
  const before = await lastPrompt();
  await box.click();
  await box.fill(text);
  await box.press('Enter');
  // Returns once the prompt is in the thread (the turn has started: its
  // "running" event comes first), so that waitTurnEnd cannot see the Send
  // button of the moment before the turn.
  await expect.poll(lastPrompt, { timeout: 15_000, intervals: [10, 20, 50] }).not.toBe(before);
}

/** Sends a step script (the test agent runs it as this turn). */
export async function sendSteps(page: Page, steps: unknown[]): Promise<void> {
  await send(page, JSON.stringify(steps));
}

export function stopButton(page: Page): Locator {
  return page.locator('.composer').getByRole('button', { name: 'Stop' });
}
export function sendButton(page: Page): Locator {
  return page.locator('.composer').getByRole('button', { name: 'Send' });
}

/** Waits until the turn has ended (the Stop button gave way to Send). */
export async function waitTurnEnd(page: Page, timeout = 30_000): Promise<void> {
  await expect(sendButton(page)).toBeVisible({ timeout });
  await expect(stopButton(page)).toHaveCount(0);
}

export function thread(page: Page): Locator {
  return page.getByTestId('thread');
}

// ---------------------------------------------------------------------------
// misc

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Merges figures into out/perf.json (read-modify-write: tests may run in separate workers). */
export function recordPerf(key: string, figures: Record<string, unknown>): void {
  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, 'perf.json');
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    /* first */
  }
  all[key] = { ...figures, measuredAt: new Date().toISOString() };
  all.machine = { cpus: os.cpus().length, chromium: process.env.MNOTE_E2E_CHROMIUM || '/usr/bin/chromium', node: process.version };
  fs.writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
  console.log(`perf ${key}: ${JSON.stringify(figures)}`);
}

export type { Page, Locator, TestInfo };
