// What a terminal card says about its command: the command line, and how
// it stands (running, exited with a code, killed by a signal).

import type { Terminal } from '../api/types';
import { m } from './i18n.svelte';

export interface TerminalState {
  /** Still running: the Stop button shows. */
  running: boolean;
  label: string;
  /** Badge tone: '' (neutral), ok, err. */
  tone: '' | 'ok' | 'err';
}

/** How the terminal stands (its label in the interface language: call it
 * while rendering). `live` is false once its turn ended without a
 * word of its exit (the agent never waited for it): it is then not said to
 * be running. */
export function terminalState(t: Terminal | undefined, live = true): TerminalState {
  if (!t) return { running: false, label: m.chat_term_no_output(), tone: '' };
  if (t.signal) return { running: false, label: m.chat_term_killed({ signal: t.signal }), tone: 'err' };
  if (typeof t.exitCode === 'number') {
    return t.exitCode === 0
      ? { running: false, label: m.chat_term_exit({ code: 0 }), tone: 'ok' }
      : { running: false, label: m.chat_term_exit({ code: t.exitCode }), tone: 'err' };
  }
  if (t.exited || t.released) return { running: false, label: m.chat_term_ended(), tone: '' };
  if (!live) return { running: false, label: m.chat_not_finished(), tone: '' };
  return { running: true, label: m.chat_running(), tone: '' };
}

/** The command line as a shell would show it: arguments with spaces or
 * quotes are single-quoted. */
export function commandLine(t: Pick<Terminal, 'command' | 'args'>): string {
  const quote = (a: string) => (a === '' ? "''" : /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  return [t.command, ...(t.args ?? []).map(quote)].join(' ');
}
