// Agents (runtimes): status, checks, the one picked for new sessions, and
// custom agents.

import { ApiError, type Client } from '../api';
import type { Agent, AgentCheck, AgentStatusEvent, CustomAgentInput } from '../api/types';
import { SvelteMap } from 'svelte/reactivity';

const SELECTED_KEY = 'mnote.agent';

function load(key: string): string {
  try {
    return localStorage.getItem(key) ?? '';
  } catch {
    return '';
  }
}
function save(key: string, v: string): void {
  try {
    localStorage.setItem(key, v);
  } catch {
    /* private mode */
  }
}

export type CheckState = { state: 'checking' } | { state: 'ok'; check: AgentCheck } | { state: 'error'; error: ApiError };

export class AgentsStore {
  items: Agent[] = $state.raw([]);
  loading = $state(false);
  loaded = $state(false);
  error: ApiError | null = $state.raw(null);
  /** The agent new sessions start with. */
  selected = $state(load(SELECTED_KEY));
  checks = new SvelteMap<string, CheckState>();

  constructor(private readonly client: Client) {}

  byName(name: string | null | undefined): Agent | undefined {
    return name ? this.items.find((a) => a.name === name) : undefined;
  }

  /** The picked agent if it still exists, else the first ready one. */
  get current(): Agent | undefined {
    return this.byName(this.selected) ?? this.items.find((a) => a.status === 'ready') ?? this.items[0];
  }

  select(name: string): void {
    this.selected = name;
    save(SELECTED_KEY, name);
  }

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      this.items = await this.client.agents.list();
      this.error = null;
      this.loaded = true;
    } catch (e) {
      this.error = ApiError.from(e);
    } finally {
      this.loading = false;
    }
  }

  applyStatus(ev: AgentStatusEvent): void {
    if (!ev?.name) return;
    let found = false;
    this.items = this.items.map((a) => {
      if (a.name !== ev.name) return a;
      found = true;
      return { ...a, status: ev.status, error: ev.error ?? (ev.status === 'failed' ? a.error : undefined) };
    });
    if (!found) void this.refresh();
  }

  async check(name: string): Promise<void> {
    this.checks.set(name, { state: 'checking' });
    try {
      const check = await this.client.agents.check(name);
      this.checks.set(name, { state: 'ok', check });
    } catch (e) {
      this.checks.set(name, { state: 'error', error: ApiError.from(e) });
    }
    void this.refresh();
  }

  /** Saves a custom agent; throws ApiError for the form to show. */
  async saveCustom(input: CustomAgentInput): Promise<void> {
    this.items = await this.client.agents.saveCustom(input);
  }

  async removeCustom(name: string): Promise<void> {
    this.items = await this.client.agents.removeCustom(name);
    if (this.selected === name) this.select('');
  }
}
