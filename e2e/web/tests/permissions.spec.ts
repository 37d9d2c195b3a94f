// Permissions that are safe to answer fast, drafts that survive a reload,
// and the settings of the first hour (theme, remembered permissions): in
// Chromium against `mnote serve`, as a person uses them.
import * as path from 'node:path';
import { composer, expect, openApp, pickTestAgent, send, sendSteps, stopButton, test, thread, waitTurnEnd, type Page } from './fixtures';
import { agentRow, openSettings } from './settings-helpers';

/** The agent's answers in the thread. */
const answers = (page: Page) => thread(page).getByTestId('assistant-message');

/** Options in an order that puts an always-choice first. */
const alwaysFirst = [
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

const runLs = (id: string) => ({
  permission: { toolCall: { toolCallId: id, title: 'Run ls', kind: 'execute', rawInput: { command: 'ls' } }, options: alwaysFirst },
});

/** Waits past the dialog's guard against held keys (350 ms). */
const pastGuard = (page: Page) => page.waitForTimeout(500);

test('permission: Enter picks allow once; always needs an explicit choice, and Settings revokes it', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  const dialog = page.getByTestId('permission-dialog');

  // Enter: the one-time allow, though the agent lists "Always allow" first.
  await sendSteps(page, [runLs('t1')]);
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('button[data-option="once"]')).toBeFocused();
  await expect(dialog.locator('.foot-hints')).toContainText('Enter Allow once');
  await pastGuard(page);
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(answers(page)).toHaveText(['permission: selected once']);
  await waitTurnEnd(page);

  // A digit does not pick the always-choice; the arrows reach it, Enter takes it.
  await sendSteps(page, [runLs('t2')]);
  await expect(dialog).toBeVisible();
  await pastGuard(page);
  await page.keyboard.press('1');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(dialog.locator('button[data-option="always"]')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(answers(page)).toHaveText(['permission: selected once', 'permission: selected always']);
  await waitTurnEnd(page);

  // Remembered: the next one is answered without asking.
  await sendSteps(page, [runLs('t3')]);
  await expect(answers(page)).toHaveCount(3);
  await expect(answers(page).nth(2)).toHaveText('permission: selected always');
  await waitTurnEnd(page);

  // Settings lists it; Revoke; the agent asks again.
  const settings = await openSettings(page);
  const row = settings.getByTestId('rule-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Always allowed');
  await expect(row).toContainText('Run command');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(settings.getByTestId('rule-row')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  expect(await serve.call<unknown[]>('permissions.rules')).toEqual([]);

  await sendSteps(page, [runLs('t4')]);
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Reject' }).click();
  await expect(answers(page).nth(3)).toHaveText('permission: selected no');
  await waitTurnEnd(page);
});

test('permission: raw-JSON titles read as kind + file, a file outside the notes folder is flagged', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  const inside = path.join(serve.workspace, 'plans', 'week.md');
  await sendSteps(page, [
    {
      permission: {
        toolCall: {
          toolCallId: 'w1',
          title: JSON.stringify({ file_path: '/etc/hosts', content: 'x' }),
          kind: 'edit',
          locations: [{ path: '/etc/hosts' }, { path: inside, line: 4 }],
        },
      },
    },
  ]);
  const dialog = page.getByTestId('permission-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('perm-title')).toHaveText('Edit /etc/hosts');
  await expect(dialog.getByTestId('perm-file')).toHaveText(['/etc/hosts', 'plans/week.md:4']);
  await expect(dialog.getByTestId('perm-outside')).toHaveCount(1);
  await expect(dialog.getByTestId('perm-outside')).toContainText('outside the notes folder');
  // Esc rejects once; the card then says "Rejected" once.
  await pastGuard(page);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await waitTurnEnd(page);
  const head = thread(page).getByTestId('tool-card').locator('.head');
  await expect(head).toContainText('Rejected');
  expect(((await head.textContent()) ?? '').match(/Rejected/g)).toHaveLength(1);
});

/** A session/request_permission the test agent writes without waiting for the answer. */
function rawPermission(rpcId: string, toolCallId: string) {
  return {
    raw: JSON.stringify({
      jsonrpc: '2.0',
      id: rpcId,
      method: 'session/request_permission',
      params: {
        toolCall: { toolCallId, title: `Edit ${toolCallId}.md`, kind: 'edit' },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      },
    }),
  };
}

test('permission: two requests sent back to back are asked in the order sent', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [rawPermission('q1', 'first'), rawPermission('q2', 'second'), { waitForCancel: true }]);
  const dialog = page.getByTestId('permission-dialog');
  await expect(dialog.getByTestId('perm-title')).toHaveText('Edit first.md');
  await dialog.getByRole('button', { name: 'Allow' }).click();
  await expect(dialog.getByTestId('perm-title')).toHaveText('Edit second.md');
  await dialog.getByRole('button', { name: 'Reject' }).click();
  await expect(dialog).toBeHidden();
  const cards = thread(page).getByTestId('tool-card');
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0).locator('.title')).toHaveText('Edit first.md');
  await stopButton(page).click();
  await waitTurnEnd(page);
});

test('stop: the notice does not cover the last card, and the card is not left "Running"', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  // A thread longer than the window: the end is in view, scrolled.
  await sendSteps(page, [
    ...Array.from({ length: 12 }, (_, i) => ({ message: `paragraph ${i}\n\n${'words '.repeat(60)}` })),
    { toolCall: { toolCallId: 'long', title: 'Long job', kind: 'execute', status: 'in_progress', rawInput: { command: 'sleep 100' } } },
    { waitForCancel: true },
  ]);
  const card = thread(page).getByTestId('tool-card');
  await expect(card.locator('.badge')).toHaveText('Running');
  await stopButton(page).click();
  await waitTurnEnd(page);
  const notice = page.getByText('Stopped: the turn was cancelled.');
  await expect(notice).toBeVisible();
  await expect(card.locator('.badge')).toHaveText('Cancelled');
  // The card is wholly in view above the notice, and no "Latest" button sits on it.
  await expect(page.locator('.to-end')).toHaveCount(0);
  const scroller = (await thread(page).boundingBox())!;
  const c = (await card.boundingBox())!;
  const n = (await notice.boundingBox())!;
  expect(c.y + c.height).toBeLessThanOrEqual(n.y + 1);
  expect(c.y + c.height).toBeLessThanOrEqual(scroller.y + scroller.height + 1);
  expect(c.y).toBeGreaterThanOrEqual(scroller.y - 1);
});

test('tool card: a call the agent never finished is not "Running" once the turn ended', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [
    { toolCall: { toolCallId: 'left', title: 'Left open', kind: 'edit', status: 'in_progress' } },
    { message: 'done' },
  ]);
  await waitTurnEnd(page);
  const card = thread(page).getByTestId('tool-card');
  await expect(card.locator('.badge')).toHaveText('Not finished');
  await expect(card.locator('.spinner')).toHaveCount(0);
});

test('draft: an unsent prompt survives a reload, per session, and goes once sent', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await send(page, 'first prompt');
  await waitTurnEnd(page);
  const box = composer(page);
  await box.fill('half-written thought about the garden');
  await page.reload();
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  // The page opens with no session: its history row opens it, with its draft.
  await page.locator('.history button.open').first().click();
  await expect(composer(page)).toHaveValue('half-written thought about the garden');
  await box.press('Enter');
  await waitTurnEnd(page);
  await expect(composer(page)).toHaveValue('');
  await page.reload();
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  await page.locator('.history button.open').first().click();
  await expect(thread(page).getByTestId('user-message')).toHaveCount(2);
  await expect(composer(page)).toHaveValue('');
});

test('settings: the theme switches at once and stays after a reload', async ({ page, serve }) => {
  await openApp(page, serve);
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  let settings = await openSettings(page);
  await settings.getByRole('radio', { name: 'Light' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const light = await bg();
  await settings.getByRole('radio', { name: 'Dark' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await bg()).not.toBe(light);
  await settings.getByLabel('Text size').selectOption('16');
  expect(await page.evaluate(() => getComputedStyle(document.body).fontSize)).toBe('16px');
  await page.keyboard.press('Escape');
  await page.reload();
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await page.evaluate(() => getComputedStyle(document.body).fontSize)).toBe('16px');
  // "System" follows the browser's scheme.
  await page.emulateMedia({ colorScheme: 'light' });
  settings = await openSettings(page);
  await settings.getByRole('radio', { name: 'System' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('agents: Esc closes the dialog after Check', async ({ page, serve }) => {
  await openApp(page, serve);
  await page.locator('.sidebar button.agent').click();
  await page.getByTestId('sidebar-agent-picker').getByRole('button', { name: 'Manage agents…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Agents' });
  await expect(dialog).toBeVisible();
  const row = agentRow(page, 'Test Agent');
  await row.getByRole('button', { name: 'Check' }).click();
  await expect(row.locator('.check')).toContainText('protocol');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});
