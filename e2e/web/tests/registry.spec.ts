// Issue 26, agents from the ACP Registry in the Agents dialog: a registry
// served on loopback (its index, an icon, the test agent as a tar.gz for
// this platform) is fetched only on the person's click, listed with icon
// (a data: image: the page requests nothing but mnote), version, license
// and the list's date; Install shows the download and the agent becomes
// one mnote starts for a session.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect, openApp, OUT, sendSteps, test, TESTAGENT, thread, waitTurnEnd } from './fixtures';
import { agentRow } from './settings-helpers';

const PLATFORM = (() => {
  const arch = ({ x64: 'x86_64', arm64: 'aarch64' } as Record<string, string>)[process.arch];
  const plat = ({ linux: 'linux', darwin: 'darwin' } as Record<string, string>)[process.platform];
  return arch && plat ? `${plat}-${arch}` : '';
})();

const SHOTS = path.join(process.env.MNOTE_E2E_SHOTS || OUT, 'screens');

let server: http.Server;
let tmp = '';
let fetches = 0;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(process.env.MNOTE_E2E_TMP || os.tmpdir(), 'mnote-e2e-registry-'));
  fs.mkdirSync(path.join(tmp, 'pkg', 'bin'), { recursive: true });
  fs.copyFileSync(TESTAGENT, path.join(tmp, 'pkg', 'bin', 'testagent'));
  fs.chmodSync(path.join(tmp, 'pkg', 'bin', 'testagent'), 0o755);
  execFileSync('tar', ['czf', path.join(tmp, 'agent.tar.gz'), '-C', path.join(tmp, 'pkg'), 'bin']);
  const tgz = fs.readFileSync(path.join(tmp, 'agent.tar.gz'));
  server = http.createServer((req, res) => {
    if (req.url === '/registry.json') {
      fetches++;
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          version: '1.0.0',
          agents: [
            {
              id: 'test-agent', name: 'Registry Test Agent', version: '0.1.0', description: "mnote's scriptable test agent",
              license: 'MIT', icon: './test-agent.svg',
              distribution: { binary: { [PLATFORM]: { archive: './dl/agent-0.1.0.tar.gz', cmd: './bin/testagent' } } },
            },
          ],
          extensions: [],
        }),
      );
    } else if (req.url === '/test-agent.svg') {
      res.end('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6" fill="currentColor"/></svg>');
    } else if (req.url === '/dl/agent-0.1.0.tar.gz') {
      res.setHeader('Content-Length', String(tgz.length));
      res.end(tgz);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.env.MNOTE_REGISTRY_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/registry.json`;
});

test.afterAll(async () => {
  delete process.env.MNOTE_REGISTRY_URL;
  await new Promise((r) => server.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('install an agent from the ACP Registry and start a session with it', async ({ page, serve }) => {
  test.skip(!PLATFORM, 'the registry has no binaries for this platform');
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(serve.origin) && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  await openApp(page, serve);
  await page.locator('.sidebar button.agent').click();
  await page.getByTestId('sidebar-agent-picker').getByRole('button', { name: 'Manage agents…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Agents' });
  await expect(dialog).toBeVisible();

  const section = dialog.getByTestId('agent-registry');
  await expect(section).toContainText('From the ACP Registry');
  await section.getByRole('button', { name: 'Browse the ACP Registry' }).click();
  await expect(section).toContainText('only when you ask');
  expect(fetches).toBe(0); // opening the section reads the kept copy only

  await section.getByRole('button', { name: 'Fetch the list' }).click();
  const row = section.getByTestId('registry-agent').filter({ hasText: 'Registry Test Agent' });
  await expect(row).toBeVisible();
  expect(fetches).toBe(1);
  await expect(section.getByTestId('registry-date')).toContainText('List as of');
  await expect(row).toContainText('0.1.0');
  await expect(row).toContainText('MIT');
  await expect(row).toContainText("mnote's scriptable test agent");
  const icon = row.getByRole('img', { name: 'Registry Test Agent icon' });
  await expect(icon).toHaveAttribute('style', /url\("data:image\/svg\+xml/);

  await row.getByRole('button', { name: 'Install' }).click();
  await expect(row).toContainText('Installed as test-agent.', { timeout: 30_000 });
  await expect(row).toContainText('Installed 0.1.0');
  await expect(row.getByRole('button', { name: 'Install' })).toHaveCount(0);
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'registry.png') });

  // It is an agent of the list now, marked as the registry's, and ready.
  const agent = agentRow(page, 'Registry Test Agent');
  await expect(agent).toContainText('ACP Registry 0.1.0');
  await agent.getByRole('button', { name: 'Check' }).click();
  await expect(agent.locator('.check')).toContainText('protocol');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // A session with it.
  const picker = page.getByTestId('sidebar-agent-picker');
  await picker.locator('button.agent').click();
  await picker.locator('[role="option"][data-name="test-agent"]').click();
  await expect(picker.locator('button.agent .name')).toHaveText('Registry Test Agent');
  await sendSteps(page, [{ message: 'hello from the registry agent' }]);
  await waitTurnEnd(page);
  await expect(thread(page)).toContainText('hello from the registry agent');
  expect(foreign, 'the page requested something other than mnote').toEqual([]);
});
