// Issue 17, the chat people expect: a prompt typed while the agent works
// is queued (shown as Queued, editable, removable, kept across a reload)
// and goes when the turn ends, Esc still stops the turn; a failed turn
// (the agent's error, a crashed agent) offers Retry, which sends the same
// prompt, its files included, again; every message has a Copy button.
import fs from 'node:fs';
import path from 'node:path';
import {
  AGENT,
  OUT,
  TESTAGENT,
  composer,
  expect,
  openApp,
  pickTestAgent,
  send,
  sendSteps,
  stopButton,
  test,
  thread,
  waitTurnEnd,
  type Page,
  type Serve,
} from './fixtures';
import { agentRecords, writeNote } from './workspace-helpers';

const SHOTS = path.join(process.env.MNOTE_E2E_SHOTS || OUT, 'screens');

function queued(page: Page) {
  return page.getByTestId('queued');
}

/** Types into the composer and presses Enter (no waiting for a turn: it may be queued). */
async function typeEnter(page: Page, text: string): Promise<void> {
  const box = composer(page);
  await box.click();
  await box.fill(text);
  await box.press('Enter');
}

/** Gives the test agent a scenario: turn N of a session runs turns[N] (serve reads config.json on every start). */
function scenario(serve: Serve, sc: object): void {
  const file = path.join(serve.home, 'config.json');
  const cfg = JSON.parse(fs.readFileSync(file, 'utf8'));
  cfg.agent_servers[AGENT] = { command: TESTAGENT, args: ['--state', path.join(serve.home, 'agent-state'), '--scenario-json', JSON.stringify(sc)] };
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2));
}

test('queue: Enter while a turn runs queues; edit, remove, a reload keep it; it goes when the turn ends', async ({ page, serve }) => {
  test.setTimeout(120_000);
  await openApp(page, serve);
  await pickTestAgent(page);
  // The turn runs long enough for every step up to the reload on a loaded machine (15 s was not: the queue had gone).
  await sendSteps(page, [{ message: 'working on it' }, { sleepMs: 45000 }, { message: ' — done' }]);
  await expect(stopButton(page)).toBeVisible();
  await expect(page.locator('.composer .hints')).toContainText('Enter queue');

  await typeEnter(page, 'first queued');
  await typeEnter(page, 'second queued');
  await expect(composer(page)).toHaveValue('');
  await expect(queued(page)).toHaveCount(2);
  await expect(queued(page).first()).toContainText('Queued');
  await expect(queued(page).locator('.q-text')).toHaveText(['first queued', 'second queued']);
  await page.screenshot({ path: path.join(SHOTS, 'queue.png') });
  // Nothing was sent: one prompt in the thread.
  await expect(thread(page).getByTestId('user-message')).toHaveCount(1);

  // × removes the second; a click takes the first back into the box to edit.
  await queued(page).nth(1).getByRole('button', { name: 'Remove from the queue' }).click();
  await expect(queued(page)).toHaveCount(1);
  await queued(page).first().locator('.q-text').click();
  await expect(queued(page)).toHaveCount(0);
  await expect(composer(page)).toHaveValue('first queued');
  await composer(page).fill('first queued, edited');
  await composer(page).press('Enter');
  await expect(queued(page).locator('.q-text')).toHaveText(['first queued, edited']);

  // A reload while the turn runs: the queue is still there.
  await page.reload();
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  await page.locator('.history button.open').first().click();
  await expect(queued(page).locator('.q-text')).toHaveText(['first queued, edited']);

  // The turn ends: the queued prompt goes (the default turn echoes it).
  await expect(thread(page).getByTestId('assistant-message').last()).toContainText('echo: first queued, edited', { timeout: 70_000 });
  await waitTurnEnd(page);
  await expect(queued(page)).toHaveCount(0);
  await expect(thread(page).getByTestId('user-message')).toHaveCount(2);
  await expect(thread(page).getByTestId('user-message').last()).toHaveText('first queued, edited');
});

test('queue: Esc stops the running turn and keeps the queue, which then goes (FIFO)', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: 'waiting' }, { waitForCancel: true }]);
  await expect(stopButton(page)).toBeVisible();
  await typeEnter(page, 'one');
  await typeEnter(page, 'two');
  await expect(queued(page)).toHaveCount(2);
  await composer(page).press('Escape');
  // The stopped turn gives way to "one", then "two", in that order.
  await expect(thread(page).getByTestId('user-message')).toHaveText([/waitForCancel/, 'one', 'two'], { timeout: 20_000 });
  await waitTurnEnd(page);
  await expect(queued(page)).toHaveCount(0);
  const answers = await thread(page).getByTestId('assistant-message').allTextContents();
  expect(answers.map((a) => a.trim())).toEqual(['waiting', 'echo: one', 'echo: two']);
});

test('queue: after a failed turn the queued prompt waits, says so, and Send now sends it', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ sleepMs: 2500 }, { error: { code: -32603, message: 'model overloaded' } }]);
  await typeEnter(page, 'after the failure');
  await expect(queued(page)).toHaveCount(1);
  await expect(page.getByTestId('queue-held')).toHaveText('Not sent: the turn before it failed.', { timeout: 20_000 });
  await expect(page.getByTestId('notice')).toContainText('model overloaded');
  await expect(thread(page).getByTestId('user-message')).toHaveCount(1);
  await page.screenshot({ path: path.join(SHOTS, 'queue-held.png') });
  await queued(page).getByRole('button', { name: 'Send now' }).click();
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('echo: after the failure');
  await expect(queued(page)).toHaveCount(0);
});

test('retry: a turn the agent failed is sent again, the same prompt with its file', async ({ page, serve }) => {
  scenario(serve, { turns: [[{ error: { code: -32603, message: 'model overloaded' } }], [{ message: 'second try worked' }]] });
  writeNote(serve, 'notes/garden.md', '# Garden\n- tomatoes\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  const box = composer(page);
  await box.click();
  await box.pressSequentially('look at @gard');
  await expect(page.getByRole('listbox', { name: 'Files' }).getByRole('option').first()).toContainText('garden.md');
  await box.press('Enter');
  await expect(box).toHaveValue('look at @notes/garden.md ');
  await box.press('Enter');
  await waitTurnEnd(page);

  const notice = page.getByTestId('notice');
  await expect(notice).toContainText('model overloaded');
  await expect(page.locator('.stopped')).toContainText('The turn ended with an error.');
  await notice.getByRole('button', { name: 'Retry' }).click();
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('second try worked');
  await waitTurnEnd(page);
  await expect(page.getByTestId('retry-turn')).toHaveCount(0);
  await expect(notice).toHaveCount(0);

  // The agent got the same prompt twice: the text and the file, each time.
  const prompts = () =>
    agentRecords(serve)
      .filter((r) => r.sessionUpdate === 'user_message_chunk')
      .map((r) =>
        r.content?.type === 'text'
          ? `text: ${r.content.text}`
          : `${r.content?.type}: ${String((r.content?.resource as { uri?: string } | undefined)?.uri ?? '').replace(/^.*\/ws\//, '')}`,
      );
  await expect.poll(prompts).toEqual([
    'text: look at @notes/garden.md ',
    'resource: notes/garden.md',
    'text: look at @notes/garden.md ',
    'resource: notes/garden.md',
  ]);
});

test('retry: after the agent crashed (and a reload), Retry on the turn starts it again and the prompt goes', async ({ page, serve }) => {
  scenario(serve, { turns: [[{ message: 'about to go' }, { crash: 3 }], [{ message: 'back again' }]] });
  await openApp(page, serve);
  await pickTestAgent(page);
  await send(page, 'please answer');
  await waitTurnEnd(page);
  const notice = page.getByTestId('notice');
  await expect(notice.getByRole('button', { name: 'Retry' }).first()).toBeVisible();

  // After a reload the notice is gone; the failed turn itself offers Retry.
  await page.reload();
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  await page.locator('.history button.open').first().click();
  await expect(page.locator('.stopped')).toContainText('The turn ended with an error.');
  await page.getByTestId('retry-turn').click();
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('back again', { timeout: 20_000 });
  await waitTurnEnd(page);
  await expect(thread(page).getByTestId('user-message')).toHaveText(['please answer', 'please answer']);
  await expect(page.getByTestId('retry-turn')).toHaveCount(0);
});

test('copy: every message has a Copy button (hover, Tab) that copies its Markdown source', async ({ page, serve, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
  await openApp(page, serve);
  await pickTestAgent(page);
  const md = '# Plan\n\n- **bold** step\n\n```js\nrun()\n```';
  await sendSteps(page, [{ message: md }]);
  await waitTurnEnd(page);

  const answer = thread(page).getByTestId('assistant-message');
  const copy = answer.getByRole('button', { name: 'Copy message' });
  await expect(copy).toHaveCSS('opacity', '0');
  await answer.hover();
  await expect(copy).toHaveCSS('opacity', '1');
  await page.screenshot({ path: path.join(SHOTS, 'copy-hover.png') });
  await copy.click();
  await expect(answer.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(md);

  // The prompt's, reached with the keyboard.
  const prompt = thread(page).getByTestId('user-message');
  const promptCopy = prompt.getByRole('button', { name: 'Copy message' });
  await promptCopy.focus();
  await expect(promptCopy).toHaveCSS('opacity', '1');
  await page.keyboard.press('Enter');
  await expect(prompt.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(JSON.stringify([{ message: md }]));
  // The answer's text is still only the answer (the button's label is drawn).
  await expect(answer.locator('h1')).toHaveText('Plan');
});
