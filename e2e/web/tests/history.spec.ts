// Sessions outlive the server, and search finds what the agent said.
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd } from './fixtures';

test('history: a session survives a restart of mnote serve', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: 'The walrus remembers **everything**.' }]);
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('The walrus remembers everything.');
  await waitTurnEnd(page);
  const row = page.locator('.history button.open');
  await expect(row).toHaveCount(1);
  const id = await row.getAttribute('data-id');
  const title = (await row.locator('.title').textContent())?.trim();
  expect(id).toBeTruthy();

  // Stop serve: the page notices.
  expect(await serve.stop()).toBe(0);
  await expect(page.locator('.sidebar .conn')).toContainText(/reconnecting|Connecting/);

  // A new serve on the same MNOTE_HOME (a new port, a new token).
  const oldOrigin = serve.origin;
  await serve.start();
  console.log(`history: restarted serve ${oldOrigin} -> ${serve.origin}`);
  await openApp(page, serve);

  // Nothing is open; the session is listed with its title and agent.
  await expect(page.locator('.chat .empty')).toBeVisible();
  const listed = page.locator(`.history button.open[data-id="${id}"]`);
  await expect(listed).toBeVisible();
  await expect(listed.locator('.title')).toHaveText(title!);
  await expect(listed.locator('.line2')).toContainText('Test Agent');

  // Opening it shows the earlier turn, rebuilt from the transcript.
  await listed.click();
  await expect(page.locator('.chat .head .title')).toHaveText(title!);
  await expect(thread(page).getByTestId('user-message')).toContainText('The walrus remembers');
  const answer = thread(page).getByTestId('assistant-message');
  await expect(answer).toHaveText('The walrus remembers everything.');
  await expect(answer.locator('strong')).toHaveText('everything');

  // ...and it can go on: the next prompt binds the agent again (session/load).
  await sendSteps(page, [{ message: 'Still here.' }]);
  await expect(answer).toHaveText(['The walrus remembers everything.', 'Still here.']);
  await waitTurnEnd(page);
});

test('search: finds a word of an answer, highlights it, and opens the session', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  // "\u0071uokka" in the step script: the agent says "quokka", the prompt
  // (which is indexed too) does not contain the word.
  await page.getByRole('combobox', { name: 'Message' }).fill('[{"message":"A \\u0071uokka sanctuary opens at dawn."}]');
  await page.getByRole('combobox', { name: 'Message' }).press('Enter');
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('A quokka sanctuary opens at dawn.');
  await waitTurnEnd(page);
  const firstTitle = (await page.locator('.chat .head .title').textContent())?.trim();

  // A second session (Ctrl+N), which stays open.
  await page.keyboard.press('Control+n');
  await expect(page.locator('.history button.open')).toHaveCount(2);
  await sendSteps(page, [{ message: 'Nothing about marsupials here.' }]);
  await expect(thread(page).getByTestId('assistant-message')).toHaveText('Nothing about marsupials here.');
  await waitTurnEnd(page);
  expect((await page.locator('.chat .head .title').textContent())?.trim()).not.toBe(firstTitle);

  // Ctrl+K, type the word.
  await page.keyboard.press('Control+k');
  const box = page.getByRole('searchbox', { name: 'Search sessions' });
  await expect(box).toBeFocused();
  await page.keyboard.type('quokka');
  const results = page.getByTestId('search-results');
  const hits = results.getByRole('option');
  await expect(hits).toHaveCount(1);
  await expect(hits.locator('mark')).toHaveText(['quokka']);
  // Highlighted: the mark has a background of its own, the rest of the snippet none.
  const bg = await hits.locator('mark').evaluate((m) => getComputedStyle(m).backgroundColor);
  expect(bg).not.toMatch(/^(transparent|rgba\(0, 0, 0, 0\))$/);
  expect(await hits.locator('.snippet').evaluate((el) => getComputedStyle(el).backgroundColor)).toMatch(/^(transparent|rgba\(0, 0, 0, 0\))$/);
  await expect(hits.locator('.snippet')).toContainText('sanctuary opens at dawn');
  await expect(hits.locator('.meta')).toHaveText('Agent · turn 1');
  await expect(hits.locator('.title')).toHaveText(firstTitle!);

  // A word nobody said: no hits.
  await box.fill('platypus');
  await expect(results).toContainText('No matches for “platypus”');
  await box.fill('quokka');
  await expect(hits).toHaveCount(1);

  // Clicking the hit opens that session and flashes the entry.
  await hits.getByRole('button').click();
  await expect(page.locator('.chat .head .title')).toHaveText(firstTitle!);
  const answer = thread(page).getByTestId('assistant-message');
  await expect(answer).toHaveText('A quokka sanctuary opens at dawn.');
  await expect(thread(page).locator('.row.flash')).toContainText('A quokka sanctuary');
  await expect(page.locator('.history button.open[aria-current="true"]')).toHaveCount(0); // the search results replace the list
  // Esc clears the search; the list comes back with the first session marked current.
  await box.focus();
  await page.keyboard.press('Escape');
  await expect(page.locator('.history button.open[aria-current="true"] .title')).toHaveText(firstTitle!);
});
