// Issue 13, the Trash view in History: a deleted session is listed there
// with when it was deleted; Restore brings it back into the list in its
// place by last activity, with its transcript; Delete forever removes it
// (after a question); an empty trash says so.
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd, type Page } from './fixtures';

function rows(page: Page) {
  return page.locator('.history button.open');
}

async function ids(page: Page): Promise<string[]> {
  return rows(page).evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id ?? ''));
}

test('trash: delete a session, find it in the Trash, restore it with its transcript', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: 'Otters hold hands while they sleep.' }]);
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('Otters hold hands while they sleep.');
  await waitTurnEnd(page);
  await expect(rows(page)).toHaveCount(1);
  const otters = (await ids(page))[0];

  await page.keyboard.press('Control+n');
  await expect(rows(page)).toHaveCount(2);
  await sendSteps(page, [{ message: 'Herons stand on one leg.' }]);
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('Herons stand on one leg.');
  await waitTurnEnd(page);
  const before = await ids(page);
  expect(before).toHaveLength(2);
  expect(before[1]).toBe(otters); // older activity, lower in the list

  // An empty trash says so.
  await page.getByTestId('open-trash').click();
  const trash = page.getByTestId('trash');
  await expect(trash.getByRole('heading', { name: 'Trash' })).toBeVisible();
  await expect(trash.getByTestId('trash-empty')).toContainText('The trash is empty.');
  await trash.getByRole('button', { name: 'Back to sessions' }).click();

  // Delete the otters session (its row's trash button).
  const row = page.locator(`.history li:has(button.open[data-id="${otters}"])`);
  await row.hover();
  await row.getByRole('button', { name: 'Delete' }).click();
  await expect(rows(page)).toHaveCount(1);
  expect(await ids(page)).toEqual([before[0]]);

  // The Trash lists it, deleted just now.
  await page.getByTestId('open-trash').click();
  const item = trash.locator(`li.trashed[data-id="${otters}"]`);
  await expect(item).toBeVisible();
  await expect(item).toContainText('Deleted just now');
  await expect(item).toContainText('Test Agent');
  await expect(trash.locator('li.trashed')).toHaveCount(1);

  // Restore: back in the list, in its place by last activity.
  await item.getByRole('button', { name: 'Restore' }).click();
  await expect(trash).toBeHidden();
  await expect(rows(page)).toHaveCount(2);
  expect(await ids(page)).toEqual(before);
  expect(await serve.call<unknown[]>('sessions.trash')).toEqual([]);

  // With its transcript.
  await page.locator(`.history button.open[data-id="${otters}"]`).click();
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('Otters hold hands while they sleep.');
  await expect(thread(page).getByTestId('user-message')).toContainText('Otters hold hands');
});

test('trash: Delete forever asks, then the session is gone for good', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: 'Gone soon.' }]);
  await waitTurnEnd(page);
  const [id] = await ids(page);
  await page.locator('.history li').first().hover();
  await page.locator('.history li').first().getByRole('button', { name: 'Delete' }).click();
  await expect(rows(page)).toHaveCount(0);

  await page.getByTestId('open-trash').click();
  const item = page.locator(`li.trashed[data-id="${id}"]`);
  await item.getByRole('button', { name: 'Delete forever' }).click();
  const ask = page.getByRole('alertdialog', { name: /forever\?/ });
  await expect(ask).toBeVisible();
  // Cancel keeps it.
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await expect(item).toBeVisible();
  await item.getByRole('button', { name: 'Delete forever' }).click();
  await ask.getByRole('button', { name: 'Delete forever' }).click();
  await expect(item).toBeHidden();
  await expect(page.getByTestId('trash-empty')).toBeVisible();
  expect(await serve.call<unknown[]>('sessions.trash')).toEqual([]);
  await expect(serve.call('sessions.restore', { id })).rejects.toThrow();
});
