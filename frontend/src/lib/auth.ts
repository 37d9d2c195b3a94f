// Agents' login methods as the page shows them: read back from a needs_auth
// error's details (app/agents.go needsAuthError), merged with agents.check's.

import type { Agent, AuthMethod } from '../api/types';

// Markers in Go's needs_auth details (app/agents.go), parsed here, never shown.
const TERMINAL = 'run in a terminal:'; // i18n-ignore: a marker Go writes
const KEY = 'or give its key:'; // i18n-ignore: a marker Go writes

/**
 * Parses a needs_auth error's details, one method a line with its extras
 * indented below:
 *
 *     id: name — description
 *       run in a terminal: <command>
 *       or give its key: VAR_A, VAR_B
 *
 * Lines it does not understand are skipped.
 */
export function parseAuthDetails(details: string | undefined): AuthMethod[] {
  const out: AuthMethod[] = [];
  for (const raw of (details ?? '').split('\n')) {
    if (!raw.trim()) continue;
    const indented = /^\s/.test(raw);
    const line = raw.trim();
    const last = out[out.length - 1];
    if (indented && last) {
      if (line.startsWith(TERMINAL)) last.command = line.slice(TERMINAL.length).trim() || undefined;
      else if (line.startsWith(KEY)) {
        last.envVars = line
          .slice(KEY.length)
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
      }
      continue;
    }
    const colon = line.indexOf(': ');
    if (colon <= 0) continue;
    const id = line.slice(0, colon).trim();
    const rest = line.slice(colon + 2);
    const dash = rest.indexOf(' — ');
    const m: AuthMethod = { id, name: (dash < 0 ? rest : rest.slice(0, dash)).trim() || id };
    if (dash >= 0 && rest.slice(dash + 3).trim()) m.description = rest.slice(dash + 3).trim();
    out.push(m);
  }
  return out;
}

/** The methods of two sources by id, the first's fields winning where set. */
export function mergeMethods(a: AuthMethod[], b: AuthMethod[]): AuthMethod[] {
  const out = a.map((m) => ({ ...m }));
  for (const m of b) {
    const have = out.find((x) => x.id === m.id);
    if (!have) out.push({ ...m });
    else {
      have.description ||= m.description;
      have.command ||= m.command;
      if (!have.envVars?.length && m.envVars?.length) have.envVars = m.envVars;
    }
  }
  return out;
}

/** The variables that can carry an agent's key: its own (keyEnv), then the key methods', then those kept. */
export function keyVariables(agent: Agent | undefined, methods: AuthMethod[]): string[] {
  const seen = new Set<string>();
  for (const v of [...(agent?.keyEnv ?? []), ...methods.flatMap((m) => m.envVars ?? []), ...(agent?.keys ?? [])]) {
    if (v) seen.add(v);
  }
  return [...seen];
}

/** A portable environment variable name (what agents.setKey accepts). */
export function validVarName(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s);
}
