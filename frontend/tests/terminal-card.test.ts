import { flushSync, mount, tick, unmount } from 'svelte';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Terminal, ThreadEvent } from '../src/api/types';
import TerminalCard from '../src/components/TerminalCard.svelte';
import ToolCard from '../src/components/ToolCard.svelte';
import { commandLine, terminalState } from '../src/lib/terminal';
import { SessionStore, TERMINAL_KEEP, keepTail } from '../src/stores/session.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';
import { terminalProps } from './terminal-props.svelte';

// xterm.js needs a real canvas and layout; the card's contract with it is
// what it writes, so a fake records that.
const xterm = vi.hoisted(() => ({ writes: [] as string[], resets: 0, opened: 0, disposed: 0 }));
vi.mock('@xterm/xterm', () => ({
  Terminal: class {
    open() {
      xterm.opened++;
    }
    write(d: string) {
      xterm.writes.push(d);
    }
    reset() {
      xterm.resets++;
    }
    dispose() {
      xterm.disposed++;
    }
  },
}));
// The files of a worker share their modules (vite.config.ts: isolate: false):
// a later file's terminal gets the real xterm.js again.
afterAll(() => vi.doUnmock('@xterm/xterm'));

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;

beforeEach(() => {
  target = document.createElement('div');
  document.body.appendChild(target);
  xterm.writes = [];
  xterm.resets = xterm.opened = xterm.disposed = 0;
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  target.remove();
});

const running: Terminal = {
  terminalId: 'term-1',
  turn: 1,
  command: 'printf',
  args: ['\\033[31mred\\033[0m %s\\n', 'two words'],
  cwd: '/home/me/notes',
  output: '\x1b[31mred',
};

/** Waits until the lazily loaded (fake) xterm is open. */
async function opened() {
  for (let i = 0; i < 20 && xterm.opened === 0; i++) await tick();
  flushSync();
}

describe('TerminalCard', () => {
  it('shows the command, folder and output, writes only what is new, and stops', async () => {
    const onstop = vi.fn();
    const props = terminalProps({ terminalId: 'term-1', terminal: running, onstop });
    comp = mount(TerminalCard, { target, props });
    await opened();
    const card = target.querySelector('[data-testid="terminal-card"]')!;
    expect(card.querySelector('.cmdline')?.textContent).toBe("printf '\\033[31mred\\033[0m %s\\n' 'two words'");
    expect(card.querySelector('.cwd')?.textContent).toBe('/home/me/notes');
    expect(card.querySelector('[data-testid="terminal-status"]')?.textContent?.trim()).toBe('Running');
    expect(xterm.writes).toEqual(['\x1b[31mred']);

    props.terminal = { ...running, output: '\x1b[31mred\x1b[0m two words\r\n' };
    flushSync();
    expect(xterm.writes).toEqual(['\x1b[31mred', '\x1b[0m two words\r\n']);

    (card.querySelector('[data-testid="terminal-stop"]') as HTMLButtonElement).click();
    flushSync();
    expect(onstop).toHaveBeenCalledTimes(1);
    expect((card.querySelector('[data-testid="terminal-stop"]') as HTMLButtonElement).disabled).toBe(true);

    // Killed: no Stop any more, the signal is said.
    props.terminal = { ...running, output: props.terminal.output, exited: true, signal: 'SIGKILL' };
    flushSync();
    expect(card.querySelector('[data-testid="terminal-stop"]')).toBeNull();
    expect(card.querySelector('[data-testid="terminal-status"]')?.textContent?.trim()).toBe('Killed (SIGKILL)');
  });

  it('starts over when the output was cut at the front or the terminal changed', async () => {
    const props = terminalProps({ terminalId: 'term-1', terminal: { ...running, output: 'abcdef' } });
    comp = mount(TerminalCard, { target, props });
    await opened();
    props.terminal = { ...running, output: 'ef', truncated: true };
    flushSync();
    expect(xterm.resets).toBe(1);
    expect(xterm.writes).toEqual(['abcdef', 'ef']);
    expect(target.querySelector('.cut')).not.toBeNull();
    props.terminalId = 'term-2';
    props.terminal = { ...running, terminalId: 'term-2', output: 'other' };
    flushSync();
    expect(xterm.resets).toBe(2);
    expect(xterm.writes.at(-1)).toBe('other');
  });

  it('says how a command ended and shows no Stop without a handler', async () => {
    const props = terminalProps({ terminalId: 'term-1', terminal: { ...running, exited: true, exitCode: 3 } });
    comp = mount(TerminalCard, { target, props });
    await opened();
    const status = target.querySelector('[data-testid="terminal-status"]')!;
    expect(status.textContent?.trim()).toBe('Exit 3');
    expect(status.classList.contains('err')).toBe(true);
    props.terminal = { ...running, exitCode: 0, exited: true };
    flushSync();
    expect(status.textContent?.trim()).toBe('Exit 0');
    props.terminal = { ...running };
    props.live = false; // its turn ended without a word of its exit
    flushSync();
    expect(status.textContent?.trim()).toBe('Not finished');
    expect(target.querySelector('[data-testid="terminal-stop"]')).toBeNull();
    props.terminal = undefined;
    flushSync();
    expect(status.textContent?.trim()).toBe('No output recorded');
    expect(target.querySelector('.cmdline')?.textContent).toBe('term-1');
  });

  it('disposes of xterm when it goes', async () => {
    comp = mount(TerminalCard, { target, props: terminalProps({ terminalId: 'term-1', terminal: running }) });
    await opened();
    unmount(comp);
    comp = null;
    expect(xterm.disposed).toBe(1);
  });
});

describe('ToolCard with terminal content', () => {
  it('shows the terminal of its content, open, and stops it by id', async () => {
    const onstopterminal = vi.fn();
    comp = mount(ToolCard, {
      target,
      props: {
        tool: { id: 'e2', toolCallId: 'run-1', title: 'printf', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term-1' }] },
        terminals: new Map([['term-1', running]]),
        onstopterminal,
      },
    });
    await opened();
    expect(target.querySelector('[data-testid="terminal-card"]')?.getAttribute('data-terminal-id')).toBe('term-1');
    (target.querySelector('[data-testid="terminal-stop"]') as HTMLButtonElement).click();
    expect(onstopterminal).toHaveBeenCalledWith('term-1');
  });
});

describe('terminal helpers', () => {
  it('quotes arguments like a shell', () => {
    expect(commandLine({ command: 'sh', args: ['-c', "echo 'hi' there"] })).toBe(`sh -c 'echo '\\''hi'\\'' there'`);
    expect(commandLine({ command: 'ls', args: [''] })).toBe("ls ''");
  });
  it('states', () => {
    expect(terminalState({ ...running, released: true }).label).toBe('Ended');
    expect(terminalState(running).running).toBe(true);
  });
  it('keeps the tail without splitting a surrogate pair', () => {
    const s = 'x' + '😀'.repeat(TERMINAL_KEEP / 2);
    const kept = keepTail(s);
    expect(kept.length).toBeLessThanOrEqual(TERMINAL_KEEP);
    expect(kept.codePointAt(0)).toBe(0x1f600);
  });
});

describe('SessionStore terminals', () => {
  const S = 'sess-1';
  const ev = (seq: number, type: ThreadEvent['type'], payload: unknown) => ({ sessionId: S, seq, type, payload }) as ThreadEvent;

  it('takes terminals from the snapshot and follows terminal events', async () => {
    const { client, call } = fakeClient({
      'sessions.open': () => snapshot(S, 1, [], { thread: { entries: [], usage: { used: 0, size: 0 }, turn: 1, terminals: [{ ...running, output: 'old ' }] } }),
      'sessions.killTerminal': () => ({}),
    });
    const frames = manualFrames();
    const store = new SessionStore(client, frames.schedule);
    await store.open(S);
    expect(store.terminals.get('term-1')?.output).toBe('old ');
    store.handleEvent(ev(2, 'terminal_output', { terminalId: 'term-1', data: 'new' }));
    store.handleEvent(ev(3, 'terminal', { terminalId: 'term-1', turn: 1, command: 'printf', exited: true, exitCode: 3 }));
    store.handleEvent(ev(4, 'terminal', { terminalId: 'term-2', turn: 1, command: 'sleep', args: ['100'] }));
    store.handleEvent(ev(5, 'terminal_output', { terminalId: 'term-2', data: 'zz' }));
    expect(store.terminals.get('term-1')?.output).toBe('old '); // shown once a frame
    frames.run();
    const t1 = store.terminals.get('term-1')!;
    expect(t1.output).toBe('old new');
    expect(t1.exitCode).toBe(3);
    expect(store.terminals.get('term-2')).toMatchObject({ command: 'sleep', output: 'zz' });
    await store.killTerminal('term-2');
    expect(call).toHaveBeenCalledWith('sessions.killTerminal', { id: S, terminalId: 'term-2' });
  });
});
