// Issue 26 in the window, with the test agent advertising session/close,
// session/delete and logout: a turn's cost beside the session's total
// (the agent's currency); a turn silent past the watchdog's threshold
// (set short in Settings → Chat) shows "No output for N seconds" with
// Stop, which goes when output comes again and stops the turn when
// clicked; deleting the session asks whether to delete the agent's own
// copy too, and "Also delete" has the agent delete it; the Agents dialog
// offers Sign out.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT, TESTAGENT, expect, openApp, pickTestAgent, sendSteps, stopButton, test, thread, waitTurnEnd } from './fixtures';
import { agentRow, openSettings } from './settings-helpers';

test('agent lifecycle: cost, the no-output watchdog, deleting the agent copy, sign out', async ({ page, serve }) => {
  // The test agent as configured by the fixture, now advertising the lifecycle methods.
  const state = path.join(serve.home, 'agent-state');
  const scenario = JSON.stringify({ close: true, delete: true, logout: true });
  fs.writeFileSync(
    path.join(serve.home, 'config.json'),
    JSON.stringify({ agent_servers: { [AGENT]: { command: TESTAGENT, args: ['--state', state, '--scenario-json', scenario] } } }, null, 2),
  );
  await openApp(page, serve);
  await pickTestAgent(page);

  // Cost: the session's total and this turn's share, as the agent reports them.
  const cost = (amount: number) => ({ usage: { used: 1000, size: 100000, cost: { amount, currency: 'USD' } } });
  await sendSteps(page, [cost(0.01), { message: 'first' }]);
  await waitTurnEnd(page);
  await sendSteps(page, [cost(0.0342), { message: 'second' }]);
  await waitTurnEnd(page);
  const chip = page.getByTestId('usage-cost');
  await expect(chip).toHaveText('$0.0342 (+$0.0242)');
  await expect(chip).toHaveAttribute('title', 'This turn: $0.0242\nThis session: $0.0342');

  // The watchdog, with a threshold of 3 seconds.
  const settings = await openSettings(page);
  await settings.getByTestId('watchdog-minutes').fill('0.05');
  await settings.getByTestId('watchdog-minutes').press('Enter');
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  const watchdog = page.getByTestId('watchdog');
  await sendSteps(page, [{ message: 'thinking' }, { sleepMs: 9000 }, { message: ' resumed' }, { sleepMs: 120000 }]);
  await expect(watchdog).toBeVisible({ timeout: 8000 });
  await expect(watchdog).toContainText(/No output for \d+ seconds?\./);
  // Output again: it goes.
  await expect(thread(page).getByTestId('assistant-message').last()).toContainText('resumed', { timeout: 15000 });
  await expect(watchdog).toBeHidden();
  // Silent again: it comes back; its Stop stops the turn.
  await expect(watchdog).toBeVisible({ timeout: 15000 });
  await expect(stopButton(page)).toBeVisible();
  await watchdog.getByTestId('watchdog-stop').click();
  await waitTurnEnd(page);
  await expect(watchdog).toBeHidden();

  // Delete: the agent deletes its own sessions, so the question offers it.
  const agentSessions = () => fs.readdirSync(state).filter((f) => /^ta-.*\.jsonl$/.test(f));
  expect(agentSessions()).toHaveLength(1);
  const agentSession = agentSessions()[0].replace(/\.jsonl$/, '');
  const row = page.locator('.history li').first();
  await row.hover();
  await row.getByRole('button', { name: 'Delete' }).click();
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText("Test Agent keeps its own copy of this conversation");
  await expect(ask.getByRole('button', { name: 'Move to trash' })).toBeVisible();
  await ask.getByRole('button', { name: "Also delete Test Agent's copy" }).click();
  await expect(ask).toBeHidden();
  await expect(page.locator('.history button.open')).toHaveCount(0);
  await expect.poll(() => serve.call<unknown[]>('sessions.trash').then((t) => t.length)).toBe(1);
  expect(agentSessions()).toEqual([]);
  const calls = fs.readFileSync(path.join(state, 'calls.log'), 'utf8').trim().split('\n');
  expect(calls).toEqual([`session/close ${agentSession}`, `session/delete ${agentSession}`]);

  // Sign out, in the Agents dialog.
  await page.locator('.sidebar button.agent').click();
  await page.getByTestId('sidebar-agent-picker').getByRole('button', { name: 'Manage agents…' }).click();
  const agent = agentRow(page, AGENT);
  await agent.getByTestId('sign-out').click();
  await expect(page.getByText('Signed out of Test Agent.')).toBeVisible();
  await expect.poll(() => fs.readFileSync(path.join(state, 'calls.log'), 'utf8').trim().split('\n').pop()).toBe('logout');
  // Signed out: it waits for a sign-in, and Sign out is not offered again.
  await expect(agent.getByTestId('sign-out')).toHaveCount(0);
});
