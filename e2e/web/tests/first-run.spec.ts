// Issue 13, first run and agents: the agent picker (a small searchable
// menu, installed agents first, arrows + Enter) and an agent that does not
// answer initialize ("Starting … (N s)" with a Cancel that works at once;
// on timeout its stderr tail where the user waits).
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, openApp, send, TESTAGENT, thread, type Serve } from './fixtures';

/** Adds agents to serve's config.json (read on every call: no restart). */
function addAgents(serve: Serve, agents: Record<string, object>): void {
  const file = path.join(serve.home, 'config.json');
  const cfg = JSON.parse(fs.readFileSync(file, 'utf8'));
  Object.assign(cfg.agent_servers, agents);
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2));
}

const slow = (extra: object = {}) => ({
  command: TESTAGENT,
  args: ['--scenario-json', JSON.stringify({ initializeDelayMs: 600_000, ...extra })],
});

async function pick(page: import('@playwright/test').Page, query: string, title: string): Promise<void> {
  const picker = page.getByTestId('agent-picker');
  await picker.locator('button.trigger').click();
  const search = picker.getByRole('combobox', { name: 'Search agents' });
  await expect(search).toBeFocused();
  await search.fill(query);
  await expect(picker.getByRole('option')).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(picker.getByRole('listbox')).toBeHidden();
  await expect(picker.locator('button.trigger')).toContainText(title);
}

test('the agent picker lists installed agents first and picks with the keyboard', async ({ page, serve }) => {
  addAgents(serve, { 'Slow Agent': slow() });
  await openApp(page, serve);
  const picker = page.getByTestId('agent-picker');
  await picker.locator('button.trigger').click();
  const options = picker.getByRole('option');
  await expect(options.first()).toBeVisible();
  const listed = await options.evaluateAll((els) => els.map((e) => ({ name: (e as HTMLElement).dataset.name, missing: e.classList.contains('missing') })));
  const firstMissing = listed.findIndex((o) => o.missing);
  expect(firstMissing).toBeGreaterThan(0);
  expect(listed.slice(firstMissing).every((o) => o.missing)).toBe(true);
  expect(listed.slice(0, firstMissing).map((o) => o.name)).toEqual(expect.arrayContaining(['Test Agent', 'Slow Agent']));
  // Arrows move, Esc closes without a pick.
  const search = picker.getByRole('combobox', { name: 'Search agents' });
  await search.fill('agent');
  await expect(options).toHaveCount(2);
  await page.keyboard.press('ArrowDown');
  await expect(picker.locator('[role="option"][aria-selected="true"]')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(picker.getByRole('listbox')).toBeHidden();
  await pick(page, 'slow', 'Slow Agent');
  await expect(page.getByRole('button', { name: 'New session with Slow Agent' })).toBeVisible();
});

test('"Add your own agent…" from the first screen: its command, then a session with it', async ({ page, serve }) => {
  await openApp(page, serve);
  await expect(page.getByRole('button', { name: /^New session with / })).toBeVisible(); // the first screen: no session
  const picker = page.getByTestId('agent-picker');
  await picker.locator('button.trigger').click();
  // The last entry, reached with the keys like the agents.
  await page.keyboard.press('End');
  const add = picker.getByRole('button', { name: 'Add your own agent…' });
  await expect(add).toHaveClass(/\bactive\b/);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Agents' });
  await expect(dialog.getByLabel('Name')).toBeFocused();
  await dialog.getByLabel('Name').fill('My Own Agent');
  await dialog.getByLabel('Command', { exact: true }).fill(TESTAGENT);
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(picker.locator('button.trigger')).toContainText('My Own Agent');
  await page.getByRole('button', { name: 'New session with My Own Agent' }).click();
  await expect(page.getByTestId('header-agent')).toHaveText('My Own Agent');
  await send(page, 'hello mine');
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('echo: hello mine');
  const list = await serve.call<{ agent: string }[]>('sessions.list');
  expect(list.map((s) => s.agent)).toEqual(['My Own Agent']);
});

test('Starting… shows the time and Cancel stops the agent at once', async ({ page, serve }) => {
  addAgents(serve, { 'Slow Agent': slow() });
  await openApp(page, serve);
  await pick(page, 'slow', 'Slow Agent');
  await page.getByRole('button', { name: 'New session with Slow Agent' }).click();
  const starting = page.getByTestId('agent-starting');
  await expect(starting).toContainText('Starting Slow Agent…');
  await expect(starting).toContainText(/\([1-9]\d* s\)/);
  await starting.getByRole('button', { name: 'Cancel' }).click();
  await expect(starting).toBeHidden({ timeout: 2_000 });
  await expect.poll(() => serve.call<unknown[]>('agents.running')).toEqual([]);
  // The agent stops before the new session is removed (app/live.go: releaseBound, then discardNew).
  await expect.poll(() => serve.call<unknown[]>('sessions.list')).toEqual([]);
  await expect(page.getByRole('dialog', { name: 'Agents' })).toBeHidden();
});

test('an agent that times out shows its stderr where the user waits', async ({ page, serve }) => {
  addAgents(serve, { 'Stuck Agent': { ...slow({ stderrAtStart: 'stuck: cannot reach the model server' }), init_timeout_secs: 1 } });
  await openApp(page, serve);
  await pick(page, 'stuck', 'Stuck Agent');
  await page.getByRole('button', { name: 'New session with Stuck Agent' }).click();
  const failed = page.getByTestId('agent-start-failed');
  await expect(failed).toContainText('Stuck Agent did not start');
  await expect(failed.getByTestId('agent-start-stderr')).toContainText('cannot reach the model server');
  await expect(page.getByRole('dialog', { name: 'Agents' })).toBeHidden();
});
