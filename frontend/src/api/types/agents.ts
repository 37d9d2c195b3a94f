// Agents (app/API.md "Agents"): the ACP agents mnote knows, their
// status and login, and the ones the user adds.

export type AgentStatus = 'ready' | 'missing' | 'needs_login' | 'failed';

export interface Agent {
  name: string;
  title: string;
  command: string;
  args: string[];
  builtin: boolean;
  status: AgentStatus;
  path?: string;
  /** How to install it (missing) or the exact command to log in (needs_login). */
  hint?: string;
  /** More on installing it (missing), in English; installNoteKey names it
   * in the catalogue (lib/i18n goMessage words it). */
  installNote?: string;
  installNoteKey?: string;
  /** The pinned npm package agents.install puts into mnote's own folder
   * ("" / absent: show `hint`, a command for the user to copy). */
  npmPackage?: string;
  error?: string;
  /** The failure's reason and params (API.md "Errors"), for the page to
   * word (lib/errtext.ts agentErrorText); `error` is the English fallback. */
  errorReason?: string;
  errorParams?: Record<string, string>;
  stderrTail?: string;
  /** Not in API.md (yet): custom agents' env, when Go sends it back. */
  env?: Record<string, string>;
  /** How to log in or give the agent a key, in English; loginHintKey
   * names it in the catalogue (a preset's; lib/i18n goMessage words it). */
  loginHint?: string;
  loginHintKey?: string;
  /** Environment variables that can carry the agent's key, most useful first. */
  keyEnv?: string[];
  /** The names (never the values) of the keys mnote keeps for it. */
  keys?: string[];
  /** It gets mnote's notes tools over MCP in its sessions (agents.setNotesTools). */
  notesTools: boolean;
  /** The lifecycle methods it advertised when mnote last started it; absent until it has run. */
  capabilities?: AgentCaps;
  /** Installed from the ACP Registry (agents.registryInstall): that agent and version. */
  registry?: RegistrySource;
}

/** ACP methods that free what mnote no longer needs (session/close,
 * session/delete, logout), as the agent advertised them. */
export interface AgentCaps {
  close: boolean;
  delete: boolean;
  logout: boolean;
}

export interface RegistrySource {
  id: string;
  version: string;
}

/** agents.registry: the ACP Registry's agents (the kept copy, or fetched now). */
export interface RegistryListing {
  /** False: never fetched (no agents); the page offers to fetch it. */
  cached: boolean;
  url?: string;
  /** When the kept copy was fetched, Unix ms. */
  fetchedAt?: number;
  /** The fetch failed: this is the kept copy; fetchError says why. */
  offline?: boolean;
  fetchError?: string;
  agents: RegistryAgent[];
  /** Entries of the registry that could not be used. */
  skipped?: number;
}

/** One agent of the ACP Registry with what this computer has of it. */
export interface RegistryAgent {
  id: string;
  name: string;
  version: string;
  description: string;
  license?: string;
  repository?: string;
  /** agents.registryIcon has its icon. */
  icon: boolean;
  /** How it would install here; absent when it cannot (unavailable says why). */
  kind?: 'binary' | 'npx' | 'uvx';
  unavailable?: string;
  /** The program to install first ("npm", "uv"), when that is why. */
  needTool?: string;
  /** The agent installed from it, and its version. */
  runtime?: string;
  installed?: string;
  /** The registry lists a newer version than the installed one. */
  update?: boolean;
}

export interface AuthMethod {
  id: string;
  name: string;
  description?: string;
  /** A terminal method's exact command (agents.openTerminal runs it). */
  command?: string;
  /** A key method's variables (give them with agents.setKey). */
  envVars?: string[];
}

export interface AgentCheck {
  name: string;
  agentName: string;
  agentVersion: string;
  protocol: number;
  loadSession: boolean;
  authMethods: AuthMethod[];
  startMs: number;
}

export interface CustomAgentInput {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}
