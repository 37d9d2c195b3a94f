// The events Go pushes (app/API.md "Events"): thread:event and the
// others, by name (EventMap), with their payloads.

import type { AgentStatus } from './agents';
import type { ApiErrorShape, ErrorCode } from './errors';
import type { ElicitationRequest, ElicitationResolved, PermissionRequest, SessionSummary } from './sessions';
import type { Command, ConfigOption, Entry, Mode, Model, PlanEntry, TerminalOutputPayload, TerminalPayload, Usage } from './thread';
import type { FSRefusedPayload, NotesIndexStatus, WorkspaceChanged } from './workspace';

export interface AppendPayload {
  entryId: string;
  delta: string;
}

export interface MetaPayload {
  usage?: Usage | null;
  modes?: Mode[] | null;
  currentModeId?: string;
  models?: Model[] | null;
  currentModelId?: string;
  configOptions?: ConfigOption[] | null;
  commands?: Command[] | null;
  title?: string;
  plan?: PlanEntry[] | null;
}

export interface PermissionResolvedPayload {
  requestId: string;
  optionId: string;
}

export interface TurnPayload {
  state: 'running' | 'ended';
  turn: number;
  stopReason?: string;
  error?: string | ApiErrorShape;
}

export type NoticeLevel = 'info' | 'warn' | 'error';

export interface NoticePayload {
  level: NoticeLevel;
  /** The error code, when the notice tells a failure (a turn that failed). */
  code?: ErrorCode | string;
  /** The specific case (app/reasons.go); worded by lib/errtext.ts. */
  reason?: string;
  /** English; the fallback for a reason this version does not know. */
  message: string;
  details?: string;
  /** The values the reason is worded with (agent, path, count…). */
  params?: Record<string, string>;
  action?: 'restart' | 'login' | string;
}

export type ThreadEvent =
  | { sessionId: string; seq: number; type: 'entry'; payload: Entry }
  | { sessionId: string; seq: number; type: 'append'; payload: AppendPayload }
  | { sessionId: string; seq: number; type: 'meta'; payload: MetaPayload }
  | { sessionId: string; seq: number; type: 'permission'; payload: PermissionRequest }
  | { sessionId: string; seq: number; type: 'permission_resolved'; payload: PermissionResolvedPayload }
  | { sessionId: string; seq: number; type: 'elicitation'; payload: ElicitationRequest }
  | { sessionId: string; seq: number; type: 'elicitation_resolved'; payload: ElicitationResolved }
  | { sessionId: string; seq: number; type: 'turn'; payload: TurnPayload }
  | { sessionId: string; seq: number; type: 'notice'; payload: NoticePayload }
  | { sessionId: string; seq: number; type: 'terminal'; payload: TerminalPayload }
  | { sessionId: string; seq: number; type: 'terminal_output'; payload: TerminalOutputPayload };

export type ThreadEventType = ThreadEvent['type'];

export interface AgentStatusEvent {
  name: string;
  status: AgentStatus;
  error?: string;
  /** The failure's reason and params (API.md "Errors"), for the page to
   * word (lib/errtext.ts agentErrorText); `error` is the English fallback. */
  errorReason?: string;
  errorParams?: Record<string, string>;
}

export type AgentStartPhase = 'starting' | 'started' | 'failed' | 'cancelled';

/** agent:start: an agent process starting (initialize), then how it ended. */
export interface AgentStartEvent {
  name: string;
  title: string;
  phase: AgentStartPhase;
  /** Unix milliseconds. */
  startedAt: number;
  /** How long mnote waits for it. */
  timeoutMs: number;
  error?: string;
  /** The failure's reason and params (API.md "Errors"), for the page to
   * word (lib/errtext.ts agentErrorText); `error` is the English fallback. */
  errorReason?: string;
  errorParams?: Record<string, string>;
  /** The agent's last stderr lines (failed). */
  stderrTail?: string;
}

export type InstallPhase = 'running' | 'done' | 'failed' | 'cancelled';

/** agent:install: a line of npm's output while it runs, then how it ended. */
export interface AgentInstallEvent {
  name: string;
  phase: InstallPhase;
  line?: string;
  error?: string;
  /** The failure's reason and params (API.md "Errors"), for the page to
   * word (lib/errtext.ts agentErrorText); `error` is the English fallback. */
  errorReason?: string;
  errorParams?: Record<string, string>;
  /** The file that keeps the whole output. */
  log: string;
  /** A registry install's step ("download", "unpack", "npm") and bytes (total -1: unknown). */
  step?: string;
  done?: number;
  total?: number;
}

/** agents.install's answer; progress follows as agent:install events. */
export interface InstallStarted {
  name: string;
  command: string;
  log: string;
}

/** sessions:changed: summaries of sessions that changed or appeared and
 * the ids of those that went (both empty: fetch the list again). */
export interface SessionsChanged {
  changed?: SessionSummary[] | null;
  removed?: string[] | null;
}

/** Event name → payload. */
export interface EventMap {
  'thread:event': ThreadEvent;
  'sessions:changed': SessionsChanged;
  'agent:status': AgentStatusEvent;
  'agent:start': AgentStartEvent;
  'agent:install': AgentInstallEvent;
  'workspace:changed': WorkspaceChanged;
  'notes:index': NotesIndexStatus;
  'fs:refused': FSRefusedPayload;
  'shared:event': import('../shared').SharedEvent;
}

export type EventName = keyof EventMap;
