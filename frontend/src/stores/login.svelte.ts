// Logging in to agents from the page: keys mnote keeps for an agent
// (agents.setKey; the value goes to Go once and is never shown again),
// terminals opened on a login command (agents.openTerminal; the agent is
// checked again when the window gets the focus back) and ACP authenticate
// with the method the user picks (agents.authenticate, then a new check).

import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import { ApiError, type Client } from '../api';
import { validVarName } from '../lib/auth';
import { m } from '../lib/i18n.svelte';
import type { AgentsStore } from './agents.svelte';
import type { ConfirmStore } from './confirm.svelte';
import type { ToastStore } from './toasts.svelte';

export type TerminalState =
  | { state: 'opening' }
  | { state: 'opened'; terminal: string; command: string }
  /** No display or no terminal program: `command` is what to run by hand. */
  | { state: 'error'; message: string; command?: string };

function k(agent: string, item: string): string {
  return `${agent}\u0000${item}`;
}

export type SignInState = { state: 'signing' } | { state: 'done' } | { state: 'error'; message: string };

export class AgentLoginStore {
  /** The last "Sign in" of each agent + method. */
  private signins = new SvelteMap<string, SignInState>();

  /** Keys being saved or removed (agent + variable). */
  private saving = new SvelteSet<string>();
  /** The last "Open terminal" of each agent + method ("" = the login hint's command). */
  private terms = new SvelteMap<string, TerminalState>();
  /** Why the last save of a key failed (agent + variable). */
  private errors = new SvelteMap<string, string>();

  constructor(
    private readonly client: Client,
    private readonly agents: AgentsStore,
    private readonly toasts: ToastStore,
    private readonly confirm: ConfirmStore,
  ) {}

  isSaving(agent: string, variable: string): boolean {
    return this.saving.has(k(agent, variable));
  }

  keyError(agent: string, variable: string): string {
    return this.errors.get(k(agent, variable)) ?? '';
  }

  terminal(agent: string, method: string): TerminalState | undefined {
    return this.terms.get(k(agent, method));
  }

  /** Keeps a key for the agent; it gets it the next time it starts. Resolves true when saved. */
  async setKey(agent: string, variable: string, value: string): Promise<boolean> {
    const name = variable.trim();
    const id = k(agent, name);
    if (!validVarName(name)) {
      this.errors.set(id, m.agents_key_bad_name({ name }));
      return false;
    }
    if (!value.trim()) {
      this.errors.set(id, m.agents_key_paste_first());
      return false;
    }
    return this.write(agent, name, value.trim(), 'saved');
  }

  /** Asks first, then forgets a kept key. */
  async removeKey(agent: string, variable: string): Promise<boolean> {
    const title = this.agents.byName(agent)?.title || agent;
    const answer = await this.confirm.ask({
      title: m.agents_key_remove_title({ variable }),
      message: m.agents_key_remove_message({ agent: title }),
      buttons: [
        { label: m.common_cancel(), value: 'cancel', kind: 'plain' },
        { label: m.common_remove(), value: 'remove', kind: 'danger' },
      ],
    });
    if (answer !== 'remove') return false;
    return this.write(agent, variable, '', 'removed');
  }

  private async write(agent: string, variable: string, value: string, done: 'saved' | 'removed'): Promise<boolean> {
    const id = k(agent, variable);
    if (this.saving.has(id)) return false;
    this.saving.add(id);
    this.errors.delete(id);
    try {
      this.agents.items = await this.client.agents.setKey(agent, variable, value);
      const title = this.agents.byName(agent)?.title || agent;
      this.toasts.show({
        message:
          done === 'saved'
            ? m.agents_key_saved_toast({ variable, agent: title })
            : m.agents_key_removed_toast({ variable, agent: title }),
      });
      return true;
    } catch (e) {
      const msg = ApiError.from(e).message;
      this.errors.set(id, msg);
      if (done === 'removed') this.toasts.error(m.agents_key_remove_failed({ variable, error: msg }));
      return false;
    } finally {
      this.saving.delete(id);
    }
  }

  signIn(agent: string, method: string): SignInState | undefined {
    return this.signins.get(k(agent, method));
  }

  /** Runs ACP authenticate with the method; the agent is checked again after it. */
  async authenticate(agent: string, method: string): Promise<boolean> {
    const id = k(agent, method);
    if (this.signins.get(id)?.state === 'signing') return false;
    this.signins.set(id, { state: 'signing' });
    try {
      await this.agents.authenticate(agent, method);
      this.signins.set(id, { state: 'done' });
      const title = this.agents.byName(agent)?.title || agent;
      this.toasts.show({ message: m.agents_signed_in_to({ agent: title }) });
      return true;
    } catch (e) {
      this.signins.set(id, { state: 'error', message: ApiError.from(e).message });
      return false;
    }
  }

  /** After a login in a terminal: check the agent again when the user comes back to the window. */
  private recheckOnFocus(agent: string): void {
    if (typeof window === 'undefined') return;
    window.addEventListener('focus', () => void this.agents.check(agent), { once: true });
  }

  /** Opens a terminal on the method's login command (Go starts it; with no display it answers the command to run by hand). */
  async openTerminal(agent: string, method: string): Promise<TerminalState> {
    const id = k(agent, method);
    this.terms.set(id, { state: 'opening' });
    let st: TerminalState;
    try {
      const r = await this.client.agents.openTerminal(agent, method);
      st = { state: 'opened', terminal: r.terminal, command: r.command };
      this.recheckOnFocus(agent);
    } catch (e) {
      const err = ApiError.from(e);
      st = { state: 'error', message: err.message, command: err.details };
    }
    this.terms.set(id, st);
    return st;
  }
}
