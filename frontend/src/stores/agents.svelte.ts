// Agents (runtimes): status, checks, the one picked for new sessions, and
// custom agents.

import { ApiError, type Client } from '../api';
import type {
  Agent,
  AgentCheck,
  AgentInstallEvent,
  AgentStartEvent,
  AgentStatusEvent,
  CustomAgentInput,
  InstallPhase,
  RegistryListing,
} from '../api/types';
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

/** An install mnote runs (agents.install): npm's last lines, the log file. */
export interface InstallState {
  phase: InstallPhase | 'requesting';
  lines: string[];
  log: string;
  /** A registry install's step ("download", "unpack", "npm") and bytes so far (total -1: unknown). */
  step?: string;
  done?: number;
  total?: number;
  /** Go's English sentence; errorReason/errorParams word it (agentErrorText). */
  error?: string;
  errorReason?: string;
  errorParams?: Record<string, string>;
}

/** The failure fields of an ApiError, for an InstallState. */
function failure(e: unknown): Pick<InstallState, 'error' | 'errorReason' | 'errorParams'> {
  const err = ApiError.from(e);
  return { error: err.goMessage, errorReason: err.reason, errorParams: err.params };
}

/** The install name of a registry agent (agent:install, agents.cancelInstall). */
export function registryInstallName(id: string): string {
  return `registry:${id}`;
}

/** How many of npm's lines an install keeps for the page. */
const INSTALL_LINES = 200;

/** Installed (found on disk) agents come first, in their own order. */
export function installedFirst(items: Agent[]): Agent[] {
  const rank = (a: Agent) => (a.status === 'missing' ? 1 : 0);
  return items
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i)
    .map((x) => x.a);
}

export type CheckState = { state: 'checking' } | { state: 'ok'; check: AgentCheck } | { state: 'error'; error: ApiError };

/** The agent deletes its own sessions (ACP session/delete), as it said when it last started. */
export function offersAgentCopy(a: Agent | undefined): boolean {
  return !!a?.capabilities?.delete;
}

/** The agent can be signed out (ACP logout), as it said when it last
 * started; not once it is missing or already waits for a sign-in. */
export function offersSignOut(a: Agent | undefined): boolean {
  return !!a?.capabilities?.logout && a.status !== 'missing' && a.status !== 'needs_login';
}

export class AgentsStore {
  items: Agent[] = $state.raw([]);
  loading = $state(false);
  loaded = $state(false);
  error: ApiError | null = $state.raw(null);
  /** The agent new sessions start with. */
  selected = $state(load(SELECTED_KEY));
  checks = new SvelteMap<string, CheckState>();
  /** Agents starting now, and the last start that failed (until dismissed), by name. */
  starts = new SvelteMap<string, AgentStartEvent>();
  /** Installs running or just ended, by name. */
  installs = new SvelteMap<string, InstallState>();
  /** The ACP Registry's agents (agents.registry): null until first asked. */
  registry: RegistryListing | null = $state.raw(null);
  registryLoading = $state(false);
  registryError: ApiError | null = $state.raw(null);
  /** Registry icons as data: URLs by id ("" when there is none); never loaded from the internet. */
  registryIcons = new SvelteMap<string, string>();

  constructor(private readonly client: Client) {}

  byName(name: string | null | undefined): Agent | undefined {
    return name ? this.items.find((a) => a.name === name) : undefined;
  }

  /** The picked agent if it is installed, else the first ready one, else
   * the first installed one (an agent that is not installed is never the default). */
  get current(): Agent | undefined {
    const picked = this.byName(this.selected);
    if (picked && picked.status !== 'missing') return picked;
    return this.items.find((a) => a.status === 'ready') ?? this.items.find((a) => a.status !== 'missing') ?? picked;
  }

  /** Installed agents first. */
  get sorted(): Agent[] {
    return installedFirst(this.items);
  }

  /** No agent is installed (first run): the page offers installs. */
  get noneInstalled(): boolean {
    return this.loaded && !this.items.some((a) => a.status !== 'missing');
  }

  /** agent:start: keeps the starting ones and the last failure. */
  applyStart(ev: AgentStartEvent): void {
    if (!ev?.name) return;
    if (ev.phase === 'starting' || ev.phase === 'failed') this.starts.set(ev.name, ev);
    else this.starts.delete(ev.name);
  }

  dismissStart(name: string): void {
    this.starts.delete(name);
  }

  /** Agents whose start the user cancelled (the failing call says nothing). */
  private cancelled = new Set<string>();

  /** Cancels the agent's start at once (its process is killed). */
  async cancelStart(name: string): Promise<void> {
    this.starts.delete(name);
    this.cancelled.add(name);
    await this.client.agents.cancelStart(name);
  }

  /** Whether the user cancelled the agent's start (and forgets it). */
  takeCancelled(name: string): boolean {
    return this.cancelled.delete(name);
  }

  /** agent:install: npm's lines, then how it ended (done: the list again). */
  applyInstall(ev: AgentInstallEvent): void {
    if (!ev?.name) return;
    const old = this.installs.get(ev.name);
    const lines = old ? old.lines : [];
    const next: InstallState = {
      phase: ev.phase,
      log: ev.log || old?.log || '',
      error: ev.error,
      errorReason: ev.errorReason,
      errorParams: ev.errorParams,
      lines,
    };
    if (ev.step) {
      next.step = ev.step;
      next.done = ev.done ?? 0;
      next.total = ev.total ?? -1;
    } else if (old?.step && ev.phase === 'running') {
      next.step = old.step;
      next.done = old.done;
      next.total = old.total;
    }
    if (ev.line) next.lines = [...lines, ev.line].slice(-INSTALL_LINES);
    this.installs.set(ev.name, next);
    if (ev.phase === 'done') {
      void this.refresh();
      if (ev.name.startsWith('registry:')) void this.loadRegistry(false);
    }
  }

  /** The ACP Registry's agents: the kept copy, or with refresh fetched now (the only network use). */
  async loadRegistry(refresh: boolean): Promise<void> {
    this.registryLoading = true;
    try {
      this.registry = await this.client.agents.registry(refresh);
      this.registryError = null;
    } catch (e) {
      this.registryError = ApiError.from(e);
    } finally {
      this.registryLoading = false;
    }
  }

  /** Loads a registry agent's kept icon once (as a data: URL). */
  async loadRegistryIcon(id: string): Promise<void> {
    if (this.registryIcons.has(id)) return;
    this.registryIcons.set(id, '');
    try {
      const svg = await this.client.agents.registryIcon(id);
      if (svg) this.registryIcons.set(id, `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    } catch {
      /* shown without an icon */
    }
  }

  /** Installs or updates a registry agent; progress follows as agent:install events. */
  async installFromRegistry(id: string): Promise<void> {
    const name = registryInstallName(id);
    this.installs.set(name, { phase: 'requesting', lines: [], log: '' });
    try {
      const r = await this.client.agents.registryInstall(id);
      const cur = this.installs.get(name);
      if (cur?.phase === 'requesting') this.installs.set(name, { ...cur, phase: 'running', log: r.log });
      else if (cur && !cur.log) this.installs.set(name, { ...cur, log: r.log });
    } catch (e) {
      this.installs.set(name, { phase: 'failed', lines: [], log: '', ...failure(e) });
    }
  }

  /** Installs the agent's pinned npm package; progress follows as events. */
  async install(name: string): Promise<void> {
    this.installs.set(name, { phase: 'requesting', lines: [], log: '' });
    try {
      const r = await this.client.agents.install(name);
      const cur = this.installs.get(name);
      if (cur?.phase === 'requesting') this.installs.set(name, { ...cur, phase: 'running', log: r.log });
      else if (cur && !cur.log) this.installs.set(name, { ...cur, log: r.log });
    } catch (e) {
      this.installs.set(name, { phase: 'failed', lines: [], log: '', ...failure(e) });
    }
  }

  async cancelInstall(name: string): Promise<void> {
    try {
      await this.client.agents.cancelInstall(name);
    } catch (e) {
      const cur = this.installs.get(name);
      if (cur) this.installs.set(name, { ...cur, ...failure(e) });
    }
  }

  /** ACP authenticate with the method the user picked, then a new check. Throws ApiError. */
  async authenticate(name: string, method: string): Promise<void> {
    this.items = await this.client.agents.authenticate(name, method);
    await this.check(name);
  }

  /** ACP logout (Sign out): the agent is then needs_login. Throws ApiError. */
  async logout(name: string): Promise<void> {
    this.items = await this.client.agents.logout(name);
    this.checks.delete(name);
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
      // A failure without words of its own keeps the words the agent had.
      const keep = ev.error === undefined && ev.status === 'failed';
      return {
        ...a,
        status: ev.status,
        error: keep ? a.error : ev.error,
        errorReason: keep ? a.errorReason : ev.errorReason,
        errorParams: keep ? a.errorParams : ev.errorParams,
      };
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

  /** Gives the agent mnote's notes tools over MCP, or not; throws ApiError. */
  async setNotesTools(name: string, on: boolean): Promise<void> {
    this.items = await this.client.agents.setNotesTools(name, on);
  }

  async removeCustom(name: string): Promise<void> {
    this.items = await this.client.agents.removeCustom(name);
    if (this.selected === name) this.select('');
  }
}
