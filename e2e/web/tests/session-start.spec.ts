// Issue 13, an agent that answers initialize but hangs in session/new:
// "Starting … (N s)" stays up, counting, until session/new answers (not
// just until initialize does), and Cancel stops it at once (no process, no
// session left); on timeout its stderr tail shows where the user waits.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, openApp, TESTAGENT, type Page, type Serve } from './fixtures';

/** Adds agents to serve's config.json (read on every call: no restart). */
function addAgents(serve: Serve, agents: Record<string, object>): void {
  const file = path.join(serve.home, 'config.json');
  const cfg = JSON.parse(fs.readFileSync(file, 'utf8'));
  Object.assign(cfg.agent_servers, agents);
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2));
}

const hangs = (extra: object = {}) => ({
  command: TESTAGENT,
  args: ['--scenario-json', JSON.stringify({ sessionNewDelayMs: 600_000, ...extra })],
});

async function pick(page: Page, query: string, title: string): Promise<void> {
  const picker = page.getByTestId('agent-picker');
  await picker.locator('button.trigger').click();
  await picker.getByRole('combobox', { name: 'Search agents' }).fill(query);
  await expect(picker.getByRole('option')).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(picker.locator('button.trigger')).toContainText(title);
}

test('an agent that hangs in session/new shows Starting until it answers, and Cancel stops it', async ({ page, serve }) => {
  addAgents(serve, { 'Hanging Agent': hangs() });
  await openApp(page, serve);
  await pick(page, 'hanging', 'Hanging Agent');
  await page.getByRole('button', { name: 'New session with Hanging Agent' }).click();
  const starting = page.getByTestId('agent-starting');
  await expect(starting).toContainText('Starting Hanging Agent…');
  // initialize has answered (the process is pooled): session/new is what waits.
  await expect.poll(() => serve.call<unknown[]>('agents.running')).toHaveLength(1);
  await expect(starting).toContainText(/\([2-9]\d* s\)/, { timeout: 5_000 });
  await expect(starting).toBeVisible();
  const t0 = Date.now();
  await starting.getByRole('button', { name: 'Cancel' }).click();
  await expect(starting).toBeHidden({ timeout: 2_000 });
  expect(Date.now() - t0).toBeLessThan(2_000);
  await expect.poll(() => serve.call<unknown[]>('agents.running')).toEqual([]);
  // The agent stops before the new session is removed (app/live.go: releaseBound, then discardNew).
  await expect.poll(() => serve.call<unknown[]>('sessions.list')).toEqual([]);
  await expect(page.getByTestId('agent-start-failed')).toHaveCount(0);
});

test('session/new timing out shows the agent’s stderr where the user waits', async ({ page, serve }) => {
  addAgents(serve, { 'Stuck Agent': { ...hangs({ stderrAtStart: 'stuck: the model server is not answering' }), init_timeout_secs: 1 } });
  await openApp(page, serve);
  await pick(page, 'stuck', 'Stuck Agent');
  await page.getByRole('button', { name: 'New session with Stuck Agent' }).click();
  const failed = page.getByTestId('agent-start-failed');
  await expect(failed).toContainText('Stuck Agent did not start');
  await expect(failed.getByTestId('agent-start-stderr')).toContainText('the model server is not answering');
  await expect(page.getByRole('dialog', { name: 'Agents' })).toBeHidden();
  await expect.poll(() => serve.call<unknown[]>('agents.running')).toEqual([]);
});
