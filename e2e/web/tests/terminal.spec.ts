// An agent's terminal (ACP terminal/*) as a person sees it: the tool card
// shows the command's live output in xterm.js with its colours, the
// command, the folder and the exit; Stop kills a running command; after a
// reload the output is still there (from the transcript's records).
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd } from './fixtures';

test('terminal: live output with colours, exit code, Stop, and the output after a reload', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [
    { terminal: { name: 'p', command: 'printf', args: ['\\033[31mred words\\033[0m and plain\\n'], toolCallId: 'run-1' } },
    { terminalWait: 'p' },
    { terminal: { name: 'k', command: 'sh', args: ['-c', 'echo started; exec sleep 100'], toolCallId: 'run-2' } },
    { terminalWait: 'k' },
    { terminalRelease: 'k' },
    { terminalRelease: 'p' },
    { message: 'both done' },
  ]);

  const cards = thread(page).getByTestId('terminal-card');
  await expect(cards).toHaveCount(2);
  const first = cards.nth(0);
  const second = cards.nth(1);

  // The first command ran to its end: its output, in red where it was red.
  await expect(first.locator('.cmdline')).toContainText('printf');
  await expect(first.getByTestId('terminal-status')).toHaveText('Exit 0');
  await expect(first.locator('.xterm-rows')).toContainText('red words and plain');
  const red = first.locator('.xterm-rows span', { hasText: 'red words' });
  await expect(red.first()).toHaveClass(/xterm-fg-1/);
  await expect(first.locator('.cwd')).toHaveText(/\S/);

  // The second runs until the person stops it.
  await expect(second.locator('.xterm-rows')).toContainText('started');
  await expect(second.getByTestId('terminal-status')).toHaveText('Running');
  await second.getByTestId('terminal-stop').click();
  await expect(second.getByTestId('terminal-status')).toHaveText('Killed (SIGKILL)');
  await expect(second.getByTestId('terminal-stop')).toHaveCount(0);
  await waitTurnEnd(page);
  await expect(thread(page).getByTestId('assistant-message').last()).toContainText('both done');

  // After a reload the session opens from its snapshot: the output is kept.
  const id = await page.locator('.history button.open[aria-current="true"]').getAttribute('data-id');
  await page.reload();
  await page.locator(`.history button.open[data-id="${id}"]`).click();
  const again = thread(page).getByTestId('terminal-card');
  await expect(again).toHaveCount(2);
  await expect(again.nth(0).locator('.xterm-rows')).toContainText('red words and plain');
  await expect(again.nth(1).getByTestId('terminal-status')).toHaveText('Killed (SIGKILL)');
});
