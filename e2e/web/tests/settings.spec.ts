// Settings, exports, shares and agent keys against `mnote serve`: an export
// downloads a redacted file; sync to a real control plane (pending goes to
// 0), a share published, read in the browser, revoked (404); a key kept for
// a custom agent from the selector without its value ever in the page.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT, expect, openApp, pickTestAgent, sendSteps, test, TESTAGENT, thread, waitTurnEnd, type Page } from './fixtures';
import { agentRow, ControlPlane, inputValues, openSettings, sessionMenu } from './settings-helpers';

/** A session whose answer holds `answer` and a path inside the workspace. */
async function answered(page: Page, answer: string, secretPath: string): Promise<void> {
  await pickTestAgent(page);
  await sendSteps(page, [{ message: `${answer} (notes at ${secretPath})` }]);
  await expect(thread(page).getByTestId('assistant-message')).toContainText(answer);
  await waitTurnEnd(page);
}

test('export: Markdown from the chat header downloads the answer, with the workspace path redacted', async ({ page, serve }) => {
  await openApp(page, serve);
  const secretPath = path.join(serve.workspace, 'private', 'plan.md');
  await answered(page, 'The answer is forty-two', secretPath);

  await sessionMenu(page, 'Markdown…');
  const dialog = page.getByRole('dialog', { name: 'Export the session' });
  await expect(dialog.getByRole('checkbox', { name: /Redact/ })).toBeChecked();
  await expect(dialog.getByRole('radio', { name: 'Markdown' })).toBeChecked();
  const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
  // Named from the session's title, redacted like the export.
  expect(download.suggestedFilename()).toMatch(/^message-The-answer-is-forty-two-[\w-]+\.md$/);
  const text = fs.readFileSync((await download.path())!, 'utf8');
  expect(text).toContain('The answer is forty-two');
  expect(text).not.toContain(serve.workspace);
  expect(text).not.toContain(secretPath);
  await expect(dialog).toBeHidden();
  await expect(page.locator('.toast', { hasText: `Downloaded ${download.suggestedFilename()}` })).toBeVisible();
});

test('sync and share: a real control plane gets the records, a share shows the answer, a revoked one is 404', async ({ page, serve }) => {
  const cp = await ControlPlane.start(path.join(serve.home, 'controlplane'));
  try {
    await openApp(page, serve);
    const answer = 'Shared answer: the garden needs three beds';
    await answered(page, answer, path.join(serve.workspace, 'garden.md'));
    const [session] = await serve.call<{ id: string }[]>('sessions.list');

    // Off by default, and it says what it would send.
    let settings = await openSettings(page);
    await expect(settings).toContainText('mnote sends nothing anywhere until you turn this on');
    const sw = settings.getByRole('switch', { name: 'Sync' });
    await expect(sw).toHaveAttribute('aria-checked', 'false');
    await expect(sw).toBeDisabled();
    await expect(settings.getByTestId('shares-settings')).toContainText('Turn sync on');

    // Set it up: URL and token (write-only), then on.
    await settings.getByLabel('Control plane URL').fill(cp.url);
    const tokenField = settings.locator('#sync-token');
    await expect(tokenField).toHaveAttribute('type', 'password');
    await tokenField.fill(cp.token);
    await settings.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(settings.getByTestId('token-saved')).toHaveText('saved');
    await expect(tokenField).toHaveValue('');
    expect(await page.content()).not.toContain(cp.token);
    expect(await inputValues(page)).not.toContain(cp.token);

    await sw.click();
    await expect(sw).toHaveAttribute('aria-checked', 'true');
    await expect(settings.getByTestId('sync-state')).toHaveText('On');
    await expect(settings.getByTestId('sync-pending')).toHaveText('0', { timeout: 20_000 });
    await expect(settings.getByTestId('sync-last')).not.toHaveText('never');
    await expect(settings.getByTestId('sync-error')).toHaveCount(0);

    // The control plane has the session's record, and none of its text.
    const rec = await cp.get(`/v1/sessions/${session.id}`);
    expect(rec.status).toBe(200);
    expect(rec.body).toContain(session.id);
    expect(rec.body).not.toContain('garden needs three beds');
    expect(rec.body).not.toContain(serve.workspace);

    await page.keyboard.press('Escape');
    await expect(settings).toBeHidden();

    // Publish a share of the session.
    await sessionMenu(page, 'Share…');
    const share = page.getByRole('dialog', { name: 'Share the session' });
    await expect(share).toContainText('always redacted');
    await share.getByLabel('Expires').selectOption({ label: 'In 7 days' });
    await share.getByRole('button', { name: 'Publish' }).click();
    const urlField = share.locator('#share-url');
    await expect(urlField).toBeVisible();
    const url = await urlField.inputValue();
    expect(url.startsWith(`${cp.url}/s/`)).toBe(true);
    await expect(share).toContainText('Expires');

    // Anyone with the link reads the answer (redacted) in a browser.
    const viewer = await page.context().newPage();
    const res = await viewer.goto(url);
    expect(res?.status()).toBe(200);
    await expect(viewer.locator('body')).toContainText(answer);
    expect(await viewer.content()).not.toContain(serve.workspace);

    await share.getByRole('button', { name: 'Done' }).click();
    await expect(share).toBeHidden();

    // Settings lists it; Revoke (after a question) ends it.
    settings = await openSettings(page);
    const row = settings.getByTestId('share-row').filter({ hasText: url });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('Expires');
    await row.getByRole('button', { name: 'Revoke' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke this share?' });
    await expect(confirm).toBeVisible();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect(settings.getByTestId('share-row')).toHaveCount(0);
    const gone = await viewer.goto(url);
    expect(gone?.status()).toBe(404);
    await viewer.close();
  } finally {
    await cp.stop();
  }
});

test('sharing with sync off says so and offers the settings', async ({ page, serve }) => {
  await openApp(page, serve);
  await answered(page, 'Not shared yet', path.join(serve.workspace, 'a.md'));
  await sessionMenu(page, 'Share…');
  const share = page.getByRole('dialog', { name: 'Share the session' });
  await expect(share).toContainText('Sync is off.');
  await share.getByRole('button', { name: 'Publish' }).click();
  const err = share.getByTestId('share-error');
  await expect(err).toContainText('Sharing needs sync: set it up and turn it on in Settings.');
  await expect(err).toContainText(/sync is (off|not set up)/i);
  await err.getByRole('button', { name: 'Open Settings' }).click();
  await expect(share).toBeHidden();
  await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
});

test('agent keys: a key saved in the selector is kept, and its value is nowhere in the page', async ({ page, serve }) => {
  const secret = 'kv-e2e-secret-5d1c7a90';
  const title = 'Keyed Agent';
  // The test agent, offering a terminal login and a key method with its variable.
  const scenario = JSON.stringify({
    authMethods: [
      { id: 'login', name: 'Log in', description: 'in a terminal', type: 'terminal', args: ['--login'] },
      { id: 'key', name: 'API key', description: 'paste it', type: 'env_var', vars: [{ name: 'KEYED_AGENT_KEY' }] },
    ],
  });
  await openApp(page, serve);
  await page.locator('.sidebar button.agent').click();
  await page.getByTestId('sidebar-agent-picker').getByRole('button', { name: 'Manage agents…' }).click();
  const agents = page.getByRole('dialog', { name: 'Agents' });
  await expect(agentRow(page, AGENT)).toHaveCount(1);

  // Save the custom agent from the form.
  await agents.getByRole('button', { name: 'Add a custom agent' }).click();
  await agents.getByLabel('Name').fill(title);
  await agents.getByLabel('Command', { exact: true }).fill(TESTAGENT);
  await agents.getByLabel(/Arguments/).fill(`--scenario-json\n${scenario}`);
  await agents.getByRole('button', { name: 'Save', exact: true }).click();
  const row = agentRow(page, title);
  await expect(row).toHaveCount(1);

  // Check asks the agent for its methods; the panel shows them.
  await row.getByRole('button', { name: 'Check' }).click();
  await expect(row.locator('.check')).toContainText('sign-in: Log in, API key');
  await row.getByRole('button', { name: 'Sign-in & keys' }).click();
  const method = row.getByTestId('auth-method').filter({ hasText: 'Log in' });
  await expect(method.locator('code')).toHaveText(`${TESTAGENT} --login`);
  const keyRow = row.locator('[data-testid="key-row"][data-var="KEYED_AGENT_KEY"]');
  await expect(keyRow).toBeVisible();

  // Save a key.
  await keyRow.locator('input[type="password"]').fill(secret);
  await keyRow.getByRole('button', { name: 'Save' }).click();
  await expect(keyRow.getByTestId('key-kept')).toHaveText('kept');
  await expect(row.locator('.badge', { hasText: '1 key' })).toBeVisible();
  await expect(keyRow.locator('input[type="password"]')).toHaveValue('');

  // Kept by Go (0600), never in the page nor in agents.list.
  const secrets = path.join(serve.home, 'secrets.json');
  expect(fs.readFileSync(secrets, 'utf8')).toContain(secret);
  expect(fs.statSync(secrets).mode & 0o777).toBe(0o600);
  expect(await page.content()).not.toContain(secret);
  expect(await inputValues(page)).not.toContain(secret);
  expect(JSON.stringify(await serve.call('agents.list'))).not.toContain(secret);

  // Open terminal: with no display here, the error names the command to run by hand.
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    await method.getByRole('button', { name: 'Open terminal' }).click();
    const err = method.getByTestId('terminal-error');
    await expect(err).toContainText('no display');
    await expect(err.locator('code')).toHaveText(`${TESTAGENT} --login`);
  }

  // Remove (after a question) forgets it.
  await keyRow.getByRole('button', { name: 'Remove' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Remove KEYED_AGENT_KEY?' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(keyRow.getByTestId('key-kept')).toHaveCount(0);
  expect(fs.readFileSync(secrets, 'utf8')).not.toContain(secret);
});
