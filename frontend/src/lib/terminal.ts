// What a terminal card says about its command: the command line, and how
// it stands (running, exited with a code, killed by a signal).

import type { Terminal } from '../api/types';

export interface TerminalState {
  /** Still running: the Stop button shows. */
  running: boolean;
  label: string;
  /** Badge tone: '' (neutral), ok, err. */
  tone: '' | 'ok' | 'err';
}

/** How the terminal stands. `live` is false once its turn ended without a
 * word of its exit (the agent never waited for it): it is then not said to
 * be running. */
export function terminalState(t: Terminal | undefined, live = true): TerminalState {
  if (!t) return { running: false, label: 'No output recorded', tone: '' };
  if (t.signal) return { running: false, label: `Killed (${t.signal})`, tone: 'err' };
  if (typeof t.exitCode === 'number') {
    return t.exitCode === 0
      ? { running: false, label: 'Exit 0', tone: 'ok' }
      : { running: false, label: `Exit ${t.exitCode}`, tone: 'err' };
  }
  if (t.exited || t.released) return { running: false, label: 'Ended', tone: '' };
  if (!live) return { running: false, label: 'Not finished', tone: '' };
  return { running: true, label: 'Running', tone: '' };
}

/** The command line as a shell would show it: arguments with spaces or
 * quotes are single-quoted. */
export function commandLine(t: Pick<Terminal, 'command' | 'args'>): string {
  const quote = (a: string) => (a === '' ? "''" : /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  return [t.command, ...(t.args ?? []).map(quote)].join(' ');
}
