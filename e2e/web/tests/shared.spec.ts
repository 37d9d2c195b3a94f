// Shared sessions in two browsers: two `mnote serve` (two homes, accounts
// e2e and bob) on one real control plane started here. e2e shares a session
// and adds bob as editor (invite); bob's prompt runs on bob's own agent and
// e2e sees it with bob's name (a shared turn); e2e chooses that members
// also see her thoughts, bob reads them and of her tool call its title,
// kind and status while she sees it in full; e2e's prompt while bob's
// turn runs waits, visibly, then runs (a queued prompt); e2e removes bob,
// whose view says access ended and loses the prompt box (revoke).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { composer, expect, makeHome, openApp, pickTestAgent, send, Serve, test, waitTurnEnd, type Page } from './fixtures';
import { CONTROLPLANE, ControlPlane, sessionMenu } from './settings-helpers';

/** Sends a prompt in a shared session (its prompt shows in the shared log, not the local thread). */
async function sharedSend(page: Page, text: string): Promise<void> {
  const box = composer(page);
  await box.click();
  await box.fill(text);
  await box.press('Enter');
}

async function syncOn(serve: Serve, url: string, token: string): Promise<void> {
  await serve.call('sync.configure', { url, token, allowTitles: false });
  await serve.call('sync.enable', { on: true });
}

test('shared session: invite, a shared turn, a queued prompt, revoke', async ({ page, serve, browser }) => {
  test.setTimeout(180_000);
  const cp = await ControlPlane.start(path.join(serve.home, 'controlplane'));
  const add = spawnSync(CONTROLPLANE, ['user', 'add', 'bob', '--db', `sqlite:${path.join(cp.dir, 'cp.db')}`], { encoding: 'utf8', timeout: 20_000 });
  expect(add.status, add.stderr).toBe(0);
  const bobToken = add.stdout.trim();
  const hb = makeHome();
  const serveB = new Serve(hb.home, hb.workspace, path.join(hb.home, 'serve.log'));
  const ctxB = await browser.newContext();
  const pageB = await ctxB.newPage();
  try {
    await serveB.start();
    await syncOn(serve, cp.url, cp.token);
    await syncOn(serveB, cp.url, bobToken);
    // bob's app registers its device with sync on (before he is invited:
    // the owner wraps the session's key for the devices it knows).
    await serveB.call('shared.devices');

    // Invite: e2e's session, shared with bob as an editor.
    await openApp(page, serve);
    await pickTestAgent(page);
    await send(page, 'a private start');
    await waitTurnEnd(page);
    const [session] = await serve.call<{ id: string }[]>('sessions.list');
    await sessionMenu(page, 'Share…');
    const dialog = page.getByRole('dialog', { name: 'Share the session' });
    const members = dialog.getByTestId('shared-members');
    await expect(members).toContainText('Only you can see this session.');
    await members.getByTestId('shared-share').click();
    await expect(members.getByTestId('shared-member')).toHaveCount(1);
    await members.getByLabel('Account name').fill('bob');
    await members.getByLabel('Role', { exact: true }).selectOption('editor');
    await members.getByRole('button', { name: 'Add', exact: true }).click();
    const bobRow = members.getByTestId('shared-member').filter({ hasText: 'bob' });
    await expect(bobRow.getByLabel('Role of bob')).toHaveValue('editor');
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('shared-thread')).toBeVisible();

    // A shared turn: bob finds the session, prompts; it runs on his agent
    // with the earlier turns as context, e2e sees it with bob's name.
    await openApp(pageB, serveB);
    await pickTestAgent(pageB);
    const row = pageB.locator(`button.open[data-id="${session.id}"]`);
    await expect(row).toBeVisible({ timeout: 20_000 });
    await row.click();
    await expect(pageB.getByTestId('shared-thread')).toBeVisible();
    await sharedSend(pageB, 'what did you find?');
    const onA = page.getByTestId('shared-prompt').filter({ hasText: 'what did you find?' });
    await expect(onA.getByTestId('shared-actor')).toHaveText('bob', { timeout: 30_000 });
    await expect(page.getByTestId('shared-answer').filter({ hasText: 'echo: what did you find?' })).toBeVisible();
    await expect(pageB.getByTestId('shared-prompt').filter({ hasText: 'what did you find?' }).getByTestId('shared-actor')).toHaveText('bob (you)');
    await waitTurnEnd(pageB);

    // What members also see is the actor's choice: e2e ticks thoughts (not
    // tool summaries) and runs a turn that thinks and edits a note. bob
    // reads the thought, and of the tool call its title, kind and status;
    // e2e sees her own turn in full (the tool card with its diff).
    const show = page.getByTestId('shared-show');
    await expect(show).toHaveAttribute('title', /never leave this machine/);
    await expect(show.getByTestId('shared-show-tools')).not.toBeChecked();
    await show.getByTestId('shared-show-thoughts').check();
    const planPath = path.join(serve.workspace, 'plan.md');
    await sharedSend(
      page,
      JSON.stringify([
        { thought: 'weighing the plan 7c1' },
        {
          toolCall: {
            toolCallId: 'w1',
            title: 'Edit plan.md',
            kind: 'edit',
            status: 'completed',
            locations: [{ path: planPath }],
            rawInput: { path: planPath },
            content: [{ type: 'diff', path: planPath, oldText: 'old line\n', newText: 'the new line 3f9\n' }],
          },
        },
        { message: 'e2e edited the plan' },
      ]),
    );
    const ownTurn = page.getByTestId('shared-own-turn').filter({ hasText: 'e2e edited the plan' });
    await expect(ownTurn.getByTestId('tool-card')).toContainText('the new line 3f9', { timeout: 30_000 });
    await expect(ownTurn.getByTestId('thought')).toBeVisible();
    await waitTurnEnd(page);
    const bobTool = pageB.getByTestId('shared-tool').filter({ hasText: 'Edit plan.md' });
    await expect(bobTool).toContainText('Edit', { timeout: 30_000 });
    await expect(bobTool).toContainText('Done');
    await expect(bobTool.getByTestId('shared-tool-summary')).toHaveCount(0);
    await expect(bobTool).not.toContainText('the new line 3f9');
    await expect(pageB.getByTestId('shared-thread').getByTestId('tool-card')).toHaveCount(0);
    const bobThought = pageB.getByTestId('shared-thought');
    await bobThought.locator('summary').click();
    await expect(bobThought).toContainText('weighing the plan 7c1');
    await expect(pageB.getByTestId('shared-answer').filter({ hasText: 'e2e edited the plan' })).toBeVisible();

    // A queued prompt: bob's turn takes a while; e2e's prompt meanwhile
    // waits (visibly, in the queue), then runs.
    await sharedSend(pageB, JSON.stringify([{ sleepMs: 6000 }, { message: 'bob is done' }]));
    await expect(page.getByTestId('shared-running')).toContainText('bob', { timeout: 20_000 });
    await sharedSend(page, 'mine after bob');
    await expect(page.getByTestId('shared-waiting')).toContainText('number 1', { timeout: 20_000 });
    await expect(pageB.getByTestId('shared-queue')).toContainText('e2e');
    await expect(page.getByTestId('shared-answer').filter({ hasText: 'bob is done' }).first()).toBeVisible({ timeout: 30_000 });
    const mine = page.getByTestId('shared-prompt').filter({ hasText: 'mine after bob' });
    await expect(mine.getByTestId('shared-actor')).toHaveText('e2e (you)', { timeout: 30_000 });
    await expect(page.getByTestId('shared-waiting')).toHaveCount(0);
    await expect(pageB.getByTestId('shared-prompt').filter({ hasText: 'mine after bob' }).getByTestId('shared-actor')).toHaveText('e2e');
    await waitTurnEnd(page);

    // Revoke: bob's view says his access ended; no prompt box.
    await sessionMenu(page, 'Share…');
    await expect(bobRow).toBeVisible();
    await bobRow.getByRole('button', { name: 'Remove' }).click();
    await expect(members.getByTestId('shared-member')).toHaveCount(1);
    await expect(pageB.getByTestId('shared-revoked')).toContainText('access to this session ended', { timeout: 20_000 });
    await expect(composer(pageB)).toHaveCount(0);
  } finally {
    await ctxB.close();
    await serveB.stop();
    await cp.stop();
    fs.rmSync(path.dirname(hb.home), { recursive: true, force: true });
  }
});
