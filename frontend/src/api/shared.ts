// Shared sessions (app/API.md "Shared sessions"): members with roles, this
// account's devices and pairing, and the shared log a session's tab shows.
// Go sends codes (roles, unreadable reasons, event types); the UI words them.

export type SharedRole = 'owner' | 'editor' | 'commenter' | 'viewer';

export interface SharedMember {
  account: string;
  role: SharedRole;
  /** The member's devices changed since they were accepted. */
  keysChanged?: boolean;
}

export interface SharedMembers {
  /** This machine's account. */
  account: string;
  owner: string;
  /** This account's role ('' when not a member). */
  role: SharedRole | '';
  members: SharedMember[];
}

/** What members see of a run (collab/projection.Entry). */
export interface ProjectionEntry {
  kind: string;
  turn?: number;
  text?: string;
  mentions?: string[];
  tool?: { toolCallId: string; title: string; kind?: string; status: string; summary?: string };
  plan?: { content: string; status?: string }[];
}

/** One entry of a shared session's log. */
export interface SharedEntry {
  seq: number;
  epoch: number;
  kind: string;
  runId?: string;
  /** The account that wrote it (the run's actor). */
  actor: string;
  authorDevice?: string;
  timeMs: number;
  /** Why it could not be opened: no_key, author, tampered, role, malformed. */
  unreadable?: string;
  Entry: ProjectionEntry;
}

export interface SharedState {
  shared: boolean;
  account?: string;
  device?: string;
  owner?: string;
  role?: SharedRole;
  members: SharedMember[];
  entries: SharedEntry[];
  /** This machine's turns by the run they were sent as (run id → turn of
   * the local thread): the tab shows them from their full entries. */
  runs?: Record<string, number>;
  offline?: boolean;
  revoked?: boolean;
  error?: string;
}

export interface SharedSessionInfo {
  session: { id: string };
  owner: string;
  role: SharedRole;
  head: number;
}

export interface SharedDevice {
  id: string;
  name: string;
  fingerprint: string;
  created: string;
  this: boolean;
}

export interface SharedDevices {
  account: string;
  /** This machine's device id. */
  this: string;
  fingerprint: string;
  /** This machine is in its account's device list. */
  paired: boolean;
  devices: SharedDevice[];
}

export interface PairStep {
  state: 'code' | 'confirm' | 'done' | 'failed';
  role: 'pair' | 'join';
  code?: string;
  expires?: string;
  sas?: string;
  device?: string;
  reason?: string;
  params?: Record<string, string>;
  message?: string;
}

export interface LeaseInfo {
  runId: string;
  account: string;
  device?: string;
  grantedAt: string;
  expiresAt: string;
}

export interface QueuedRun {
  runId: string;
  account: string;
  device?: string;
  position: number;
  requestedAt: string;
}

/** The shared:event payload. */
export interface SharedEvent {
  sessionId?: string;
  type: 'entry' | 'lease' | 'presence' | 'queued' | 'granted' | 'revoked' | 'members' | 'reconnect' | 'pair' | 'run';
  entry?: SharedEntry;
  lease?: LeaseInfo;
  queue?: QueuedRun[];
  viewers?: { account: string; device?: string }[];
  running?: string;
  position?: number;
  pair?: PairStep;
  /** type "run": this machine's turn sent as the run. */
  run?: { runId: string; turn: number };
}

export interface SharedApi {
  /** quiet: record the log without following it (no live stream, no presence). */
  state(id: string, quiet?: boolean): Promise<SharedState>;
  close(id: string): Promise<void>;
  sessions(): Promise<SharedSessionInfo[]>;
  share(id: string): Promise<SharedMembers>;
  members(id: string): Promise<SharedMembers>;
  add(id: string, account: string, role: SharedRole): Promise<SharedMembers>;
  setRole(id: string, account: string, role: SharedRole): Promise<SharedMembers>;
  remove(id: string, account: string): Promise<SharedMembers>;
  comment(id: string, text: string): Promise<void>;
  devices(): Promise<SharedDevices>;
  pair(): Promise<PairStep>;
  join(code: string): Promise<void>;
  pairConfirm(same: boolean): Promise<void>;
  removeDevice(id: string): Promise<SharedDevices>;
  safetyNumber(account: string): Promise<{ account: string; number: string }>;
  acceptKeys(account: string): Promise<void>;
}

type Call = (method: string, args?: Record<string, unknown>) => Promise<unknown>;

function members(x: unknown): SharedMembers {
  const o = (x ?? {}) as SharedMembers;
  return { ...o, members: Array.isArray(o.members) ? o.members : [] };
}

export function sharedClient(call: Call): SharedApi {
  return {
    state: async (id, quiet) => {
      const s = ((await call('shared.state', quiet ? { id, quiet } : { id })) ?? {}) as SharedState;
      return {
        ...s,
        members: Array.isArray(s.members) ? s.members : [],
        entries: Array.isArray(s.entries) ? s.entries : [],
        runs: s.runs && typeof s.runs === 'object' ? s.runs : {},
      };
    },
    close: async (id) => {
      await call('shared.close', { id });
    },
    sessions: async () => {
      const x = await call('shared.sessions');
      return Array.isArray(x) ? (x as SharedSessionInfo[]) : [];
    },
    share: async (id) => members(await call('shared.share', { id })),
    members: async (id) => members(await call('shared.members', { id })),
    add: async (id, account, role) => members(await call('shared.add', { id, account, role })),
    setRole: async (id, account, role) => members(await call('shared.setRole', { id, account, role })),
    remove: async (id, account) => members(await call('shared.remove', { id, account })),
    comment: async (id, text) => {
      await call('shared.comment', { id, text });
    },
    devices: async () => {
      const d = ((await call('shared.devices')) ?? {}) as SharedDevices;
      return { ...d, devices: Array.isArray(d.devices) ? d.devices : [] };
    },
    pair: async () => (await call('shared.pair')) as PairStep,
    join: async (code) => {
      await call('shared.join', { code });
    },
    pairConfirm: async (same) => {
      await call('shared.pairConfirm', { same });
    },
    removeDevice: async (id) => (await call('shared.removeDevice', { id })) as SharedDevices,
    safetyNumber: async (account) => (await call('shared.safetyNumber', { account })) as { account: string; number: string },
    acceptKeys: async (account) => {
      await call('shared.acceptKeys', { account });
    },
  };
}
