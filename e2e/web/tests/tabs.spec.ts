// Parallel sessions in tabs: a slow turn keeps streaming in a background
// tab while another tab chats; the background tab's badge says when it
// finished, and its whole answer is there when shown again; closing a tab
// whose turn runs asks, and "Keep running in background" leaves the turn
// running (History shows it); the tabs come back after a reload.
import { composer, expect, openApp, pickTestAgent, send, sendSteps, stopButton, test, thread, waitTurnEnd, type Page } from './fixtures';

function tabs(page: Page) {
  return page.getByTestId('session-tabs').getByRole('tab');
}

test('tabs: a slow turn streams in a background tab while another tab chats; its badge, its full answer', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);

  // Tab 1: a slow turn.
  await sendSteps(page, [{ message: 'part one' }, { sleepMs: 6000 }, { message: ' and part two, done' }]);
  await expect(tabs(page)).toHaveCount(1);
  await expect(stopButton(page)).toBeVisible();
  const first = (await tabs(page).first().getAttribute('data-id'))!;
  expect(first).toBeTruthy();
  await expect(tabs(page).first().locator('.dot.running')).toBeVisible();

  // Tab 2 (New session, Ctrl+N): chat there while tab 1 works.
  await composer(page).press('Control+n');
  await expect(tabs(page)).toHaveCount(2);
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(thread(page)).toHaveCount(0);
  await send(page, 'hello from tab two');
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('echo: hello from tab two');
  await waitTurnEnd(page);
  await expect(thread(page)).not.toContainText('part one');

  // Tab 1 finishes in the background: its badge says so.
  const badge = tabs(page).first().getByTestId('tab-badge');
  await expect(badge).toHaveAttribute('data-badge', 'done', { timeout: 30_000 });
  await expect(badge).toHaveAttribute('aria-label', 'Finished while in the background');
  await expect(tabs(page).nth(1).getByTestId('tab-badge')).toHaveCount(0);

  // Back to tab 1 (Ctrl+1): the whole answer; the badge is gone.
  await composer(page).press('Control+1');
  await expect(tabs(page).first()).toHaveAttribute('aria-selected', 'true');
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('part one and part two, done');
  await expect(badge).toHaveCount(0);
  await expect(page.locator(`.history button.open[data-id="${first}"]`)).toHaveAttribute('aria-current', 'true');
  // Ctrl+Tab: tab 2 again, its own thread.
  await composer(page).press('Control+Tab');
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('echo: hello from tab two');

  // A reload: both tabs come back, tab 2 shown.
  await page.reload();
  await expect(tabs(page)).toHaveCount(2);
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('echo: hello from tab two');
});

test('tabs: closing a running tab asks; Keep running closes the tab and the turn goes on (History)', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await send(page, 'a first session');
  await waitTurnEnd(page);

  await page.getByRole('button', { name: 'New session' }).first().click();
  await expect(tabs(page)).toHaveCount(2);
  await sendSteps(page, [{ message: 'still working' }, { sleepMs: 8000 }, { message: ' — finished' }]);
  await expect(stopButton(page)).toBeVisible();
  const running = (await tabs(page).nth(1).getAttribute('data-id'))!;

  // Its ×: the question, Cancel keeps it.
  const close = page.getByTestId('session-tabs').getByRole('button', { name: /^Close / }).nth(1);
  await close.click();
  const dialog = page.getByRole('alertdialog', { name: 'Close a session that is still working?' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button')).toHaveText(['Keep running in background', 'Stop and close', 'Cancel']);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(tabs(page)).toHaveCount(2);

  // Ctrl+W in the chat asks the same; Keep running closes the tab.
  await composer(page).press('Control+w');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep running in background' }).click();
  await expect(tabs(page)).toHaveCount(1);
  await expect(tabs(page).first()).toHaveAttribute('aria-selected', 'true');
  // Still running: History says so, and the API too.
  const row = page.locator(`.history button.open[data-id="${running}"]`);
  await expect(row.locator('.dot.running')).toBeVisible();
  const list = await serve.call<{ id: string; status: string }[]>('sessions.list', {});
  expect(list.find((s) => s.id === running)?.status).toBe('running');

  // Opened again from History: a tab, and the turn ends with its whole answer.
  await row.click();
  await expect(tabs(page)).toHaveCount(2);
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('still working — finished', { timeout: 30_000 });
  await waitTurnEnd(page);
});

test('tabs: each tab keeps where its thread was scrolled, and its draft', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  const long = Array.from({ length: 120 }, (_, i) => `line ${i + 1} of a long answer`).join('\n\n');
  await sendSteps(page, [{ message: long }]);
  await waitTurnEnd(page);
  await expect(thread(page).getByTestId('assistant-message').last()).toContainText('line 120 of a long answer');
  const scroller = thread(page);
  await scroller.evaluate((el) => (el.scrollTop = 400));
  await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBe(400);
  await composer(page).fill('half a thought');

  await page.getByRole('button', { name: 'New session' }).first().click();
  await expect(tabs(page)).toHaveCount(2);
  await expect(composer(page)).toHaveValue('');
  await send(page, 'short');
  await waitTurnEnd(page);

  await tabs(page).first().click();
  await expect(tabs(page).first()).toHaveAttribute('aria-selected', 'true');
  await expect(composer(page)).toHaveValue('half a thought');
  await expect.poll(() => thread(page).evaluate((el) => el.scrollTop)).toBeGreaterThan(390);
  expect(await thread(page).evaluate((el) => el.scrollTop)).toBeLessThan(410);
});
