// The errors of agents (agents.list) and of the agent events (agent:status,
// agent:start, agent:install) are worded from their errorReason and
// errorParams in the interface language, Go's English `error` the fallback.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent, AgentStartEvent } from '../src/api/types';
import AgentInstall from '../src/components/AgentInstall.svelte';
import AgentStarting from '../src/components/AgentStarting.svelte';
import RuntimeSelector from '../src/components/RuntimeSelector.svelte';
import { agentErrorText } from '../src/lib/errtext';
import { i18n } from '../src/lib/i18n.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames } from './helpers';

const GO = 'dies did not start: the agent exited with code 2';

describe('agentErrorText', () => {
  afterEach(() => i18n.choose('en'));

  it('words the reason with its params in English and in Chinese', () => {
    const x = { error: GO, errorReason: 'agent_exited', errorParams: { agent: 'Qwen Code', code: '2' } };
    i18n.choose('en');
    expect(agentErrorText(x)).toBe('Qwen Code stopped (exit code 2).');
    i18n.choose('zh-CN');
    expect(agentErrorText(x)).toBe('Qwen Code 已停止（退出码 2）。');
    expect(agentErrorText({ error: GO, errorReason: 'install_npm_failed', errorParams: { agent: 'Qwen Code', code: '3' } })).toBe(
      'npm 未能安装 Qwen Code（退出码 3），请查看安装日志。',
    );
    expect(agentErrorText({ error: GO, errorReason: 'install_not_found', errorParams: { agent: 'Qwen Code' } })).toBe(
      'Qwen Code 已安装，但 mnote 找不到它的程序。',
    );
  });

  it('falls back to Go’s error, and says nothing when there is no failure', () => {
    i18n.choose('zh-CN');
    // A reason of a newer Go side, and a reason without the param it needs.
    expect(agentErrorText({ error: GO, errorReason: 'some_new_reason' })).toBe(GO);
    expect(agentErrorText({ error: GO, errorReason: 'install_failed' })).toBe(GO);
    expect(agentErrorText({ error: GO })).toBe(GO);
    expect(agentErrorText({ error: '' })).toBeUndefined();
    expect(agentErrorText({})).toBeUndefined();
    expect(agentErrorText(undefined)).toBeUndefined();
  });
});

describe('agent errors in the components', () => {
  let target: HTMLElement;
  let comps: Record<string, unknown>[] = [];
  let app: AppState | null = null;

  const failed: Agent = {
    name: 'dies',
    title: 'Dies',
    command: 'dies',
    args: [],
    builtin: false,
    status: 'ready',
    notesTools: true,
  };
  const qwen: Agent = {
    name: 'qwen',
    title: 'Qwen Code',
    command: 'qwen',
    args: [],
    builtin: true,
    status: 'missing',
    npmPackage: '@qwen-code/qwen-code@0.24.4',
    notesTools: true,
  };

  function setup(): AppState {
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => [failed, qwen],
      'workspace.get': () => null,
    });
    app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    setApp(app);
    return app;
  }

  beforeEach(() => {
    localStorage.clear();
    target = document.createElement('div');
    document.body.appendChild(target);
  });

  afterEach(() => {
    for (const c of comps) unmount(c);
    comps = [];
    app?.stop();
    app = null;
    target.remove();
    i18n.choose('system');
  });

  it('a failed start, a failed agent and a failed install are told in Chinese, and switch in place', async () => {
    const app = setup();
    await app.agents.refresh();
    i18n.choose('zh-CN');
    const start: AgentStartEvent = {
      name: 'dies',
      title: 'Dies',
      phase: 'failed',
      startedAt: Date.now(),
      timeoutMs: 20_000,
      error: GO,
      errorReason: 'agent_exited',
      errorParams: { agent: 'Dies', code: '2' },
      stderrTail: 'flag provided but not defined: -no-such-flag',
    };
    app.agents.applyStart(start);
    app.agents.applyStatus({ name: 'dies', status: 'failed', error: GO, errorReason: 'agent_exited', errorParams: { agent: 'Dies', code: '2' } });
    app.agents.applyInstall({
      name: 'qwen',
      phase: 'failed',
      error: 'npm install @qwen-code/qwen-code@0.24.4: exit status 3',
      errorReason: 'install_npm_failed',
      errorParams: { agent: 'Qwen Code', code: '3' },
      log: '/tmp/install-qwen.log',
    });
    comps.push(mount(AgentStarting, { target }));
    comps.push(mount(RuntimeSelector, { target }));
    flushSync();

    const msg = target.querySelector('[data-testid="agent-start-failed"] .msg')!;
    expect(msg.textContent).toBe('Dies 已停止（退出码 2）。');
    const row = [...target.querySelectorAll<HTMLElement>('.agent')].find((x) => x.textContent?.includes('Dies'))!;
    const help = row.querySelector('.help.err')!;
    expect(help.textContent).toBe('Dies 已停止（退出码 2）。');
    const install = target.querySelector('[data-testid="agent-install"][data-name="qwen"] [role="alert"]')!;
    expect(install.textContent).toBe('npm 未能安装 Qwen Code（退出码 3），请查看安装日志。');
    expect(target.textContent).not.toContain(GO);

    i18n.choose('en');
    flushSync();
    expect(msg.isConnected && help.isConnected && install.isConnected).toBe(true);
    expect(msg.textContent).toBe('Dies stopped (exit code 2).');
    expect(help.textContent).toBe('Dies stopped (exit code 2).');
    expect(install.textContent).toBe('npm could not install Qwen Code (exit code 3): see the install log.');

    // A status without words of its own keeps the agent's; a ready one clears them.
    app.agents.applyStatus({ name: 'dies', status: 'failed' });
    expect(app.agents.byName('dies')?.errorReason).toBe('agent_exited');
    app.agents.applyStatus({ name: 'dies', status: 'ready' });
    expect(app.agents.byName('dies')?.errorReason).toBeUndefined();
    expect(app.agents.byName('dies')?.errorParams).toBeUndefined();
  });

  it('an install refused by the API keeps its reason, worded in the language', async () => {
    const f = fakeClient({
      'sessions.list': () => [],
      'agents.list': () => [qwen],
      'workspace.get': () => null,
      'agents.install': () => {
        throw { code: 'busy', reason: 'install_running', message: 'Qwen Code is already being installed', params: { agent: 'Qwen Code' } };
      },
    });
    app = new AppState(f.client, { schedule: manualFrames().schedule });
    app.start();
    setApp(app);
    await app.agents.install('qwen');
    i18n.choose('zh-CN');
    comps.push(mount(AgentInstall, { target, props: { agent: qwen } }));
    flushSync();
    expect(target.querySelector('[role="alert"]')?.textContent).toBe('Qwen Code 正在安装中。');
    expect(app.agents.installs.get('qwen')?.error).toBe('Qwen Code is already being installed');
  });
});
