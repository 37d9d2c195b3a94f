// Helpers of settings.spec.ts: a real control plane (build/bin/mnote-controlplane
// on SQLite, a user and its token) and the settings, session menu and agent
// selector as a person uses them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { expect, ROOT, sleep, tail, type Locator, type Page } from './fixtures';

export const CONTROLPLANE = process.env.MNOTE_CONTROLPLANE_BIN || path.join(ROOT, 'build/bin/mnote-controlplane');

/** A running `mnote-controlplane serve` on a loopback port, with one user. */
export class ControlPlane {
  url = '';
  /** The user's token (as `user add` printed it). */
  token = '';
  private proc: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private logFd = -1;

  private constructor(
    readonly dir: string,
    readonly log: string,
  ) {}

  /** Creates the database and a user in dir, then serves it on 127.0.0.1:0. */
  static async start(dir: string): Promise<ControlPlane> {
    if (!fs.existsSync(CONTROLPLANE)) throw new Error(`${CONTROLPLANE} is missing: run 'make build' first (it builds mnote-controlplane)`);
    fs.mkdirSync(dir, { recursive: true });
    const cp = new ControlPlane(dir, path.join(dir, 'controlplane.log'));
    const db = `sqlite:${path.join(dir, 'cp.db')}`;
    const add = spawnSync(CONTROLPLANE, ['user', 'add', 'e2e', '--db', db], { encoding: 'utf8', timeout: 20_000 });
    if (add.status !== 0) throw new Error(`mnote-controlplane user add failed (${add.status}): ${add.stderr}`);
    cp.token = add.stdout.trim();
    if (!cp.token) throw new Error(`mnote-controlplane user add printed no token: ${add.stderr}`);

    cp.logFd = fs.openSync(cp.log, 'a');
    const proc = spawn(CONTROLPLANE, ['serve', '--addr', '127.0.0.1:0', '--db', db], {
      stdio: ['ignore', 'pipe', cp.logFd],
      detached: true,
    });
    cp.proc = proc;
    cp.exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    const rl = createInterface({ input: proc.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mnote-controlplane printed no address within 15 s (log: ${cp.log})`)), 15_000);
      rl.once('line', (l) => {
        clearTimeout(timer);
        resolve(l.trim());
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mnote-controlplane exited (${code}) before serving; log:\n${tail(cp.log)}`));
      });
    });
    rl.on('line', (l) => fs.appendFileSync(cp.log, `[stdout] ${l}\n`));
    const m = /serving on (http:\/\/\S+)/.exec(first);
    if (!m) throw new Error(`unexpected first line from mnote-controlplane: ${first}`);
    cp.url = m[1];
    return cp;
  }

  /** Calls the control plane's API with the user's token. */
  async get(pathname: string): Promise<{ status: number; body: string }> {
    const r = await fetch(this.url + pathname, { headers: { Authorization: `Bearer ${this.token}` } });
    return { status: r.status, body: await r.text() };
  }

  /** SIGTERM, then SIGKILL to its process group after 8 s. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const timedOut = Symbol('timeout');
      if ((await Promise.race([this.exited, sleep(8_000).then(() => timedOut)])) === timedOut) {
        try {
          process.kill(-proc.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
        await this.exited;
      }
    }
    if (this.logFd >= 0) fs.closeSync(this.logFd);
    this.logFd = -1;
  }
}

/** Opens Settings with its shortcut. */
export async function openSettings(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+Comma');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Opens the chat header's menu and picks an item ("Markdown…", "Share…"). */
export async function sessionMenu(page: Page, item: string): Promise<void> {
  await page.getByRole('button', { name: 'Session actions' }).click();
  await page.getByRole('menu', { name: 'Session actions' }).getByRole('menuitem', { name: item }).click();
}

/** The Agents dialog's row of an agent. */
export function agentRow(page: Page, title: string): Locator {
  return page
    .getByRole('dialog', { name: 'Agents' })
    .locator('.agent')
    .filter({ has: page.locator('.title', { hasText: title }) });
}

/** Every input's current value in the page (what page.content() does not show). */
export async function inputValues(page: Page): Promise<string[]> {
  return page.evaluate(() => [...document.querySelectorAll('input, textarea')].map((el) => (el as HTMLInputElement).value));
}
