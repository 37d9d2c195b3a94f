// Sessions (app/API.md "Sessions"): summaries, snapshots, forks, prompts
// and the session search.

import type { Location, ThreadSnapshot, ToolCallContent } from './thread';

export type SessionStatus = 'new' | 'running' | 'ready' | 'exited' | 'failed' | 'needs_auth';

export interface SessionSummary {
  id: string;
  /** The user's title, else the agent's own, else the first prompt's first line. */
  title: string;
  workspace: string;
  agent: string;
  createdMs: number;
  /** Last activity (the last record of a turn, else the creation): what the history sorts by. */
  updatedMs: number;
  status: SessionStatus;
  turns: number;
  lastStopReason: string;
  live: boolean;
  /** The session and turn this one was forked from (an edited prompt); title and how not in sessions.list. */
  forkedFrom?: ForkOrigin;
  /** The sessions forked from this one, oldest first (not in sessions.list). */
  forks?: ForkLink[] | null;
  /** Its running agent takes images in prompts; absent while no agent runs (then the prompt's start checks). */
  images?: boolean;
}

/** How a fork's agent got the earlier turns: its own session/fork, or sent as context. */
export type ForkHow = 'fork' | 'context';

/** Where a fork came from (SessionSummary.forkedFrom). */
export interface ForkOrigin {
  sessionId: string;
  turn: number;
  /** The original's title. */
  title?: string;
  how?: ForkHow;
}

/** One fork of a session (SessionSummary.forks). */
export interface ForkLink {
  sessionId: string;
  title: string;
  /** The original's turn it was forked at. */
  turn: number;
}

/** The result of sessions.fork. */
export interface ForkResult {
  session: SessionSummary;
  /** The edited prompt's turn in the new session. */
  turn: number;
  how: ForkHow;
}

/** A deleted session (sessions.trash): restore it, or delete it for good. */
export interface TrashedSession {
  id: string;
  title: string;
  workspace: string;
  agent: string;
  createdMs: number;
  /** Last activity: where it goes back in the list when restored. */
  updatedMs: number;
  /** When it was moved to the trash. */
  deletedMs: number;
  turns: number;
}

export interface PermissionOption {
  optionId: string;
  name: string;
  /** allow_once | allow_always | reject_once | reject_always (or unknown). */
  kind: string;
}

export interface PermissionRequest {
  requestId: string;
  toolCallId: string;
  title: string;
  kind: string;
  options: PermissionOption[];
  /** The raw ACP toolCall: content (diffs), locations, rawInput (always sent; null when the agent sent none). */
  toolCall: RawToolCall | null;
  /** What its diffs do to the notes as the person has them now, where that is not the agent's claim. */
  effects?: WriteEffect[];
}

/** What allowing one diff of a permission request does to the note as the person has it now. */
export interface WriteEffect {
  /** The diff's path, as the agent gave it. */
  agentPath: string;
  /** Workspace-relative. */
  path: string;
  /** The note now (with unsaved edits when `unsaved`). */
  current: string;
  unsaved?: boolean;
  /** The note after Allow (a conflict: `current`; the agent's text is offered beside it). */
  result: string;
  conflict?: boolean;
  /** Lines of the person's the write removes that the agent's own diff does not show. */
  lost?: string[];
  /** The agent's old text is not the note as it is now. */
  differs?: boolean;
}

/** A remembered always-choice (permissions.rules). */
export interface PermissionRule {
  /** The runtime's name. */
  agent: string;
  workspace: string;
  /** The tool kind it answers: read, edit, execute, ... */
  toolKind: string;
  /** allow_always | reject_always */
  optionKind: string;
  /** allow | reject */
  decision: string;
  createdMs: number;
}

/** The ACP toolCall of a permission request, as the agent sent it. */
export interface RawToolCall {
  toolCallId?: string;
  title?: string;
  kind?: string;
  status?: string;
  content?: ToolCallContent[] | null;
  locations?: Location[] | null;
  rawInput?: unknown;
  rawOutput?: unknown;
  [key: string]: unknown;
}

export interface Snapshot {
  session: SessionSummary;
  /** Events with seq > this follow. */
  seq: number;
  thread: ThreadSnapshot;
  pending: PermissionRequest[] | null;
  /** The agent's questions (elicitations) waiting for the user. */
  questions?: ElicitationRequest[] | null;
  running: boolean;
  /** Entries before thread.entries (sessions.open with limit or before). */
  earlier?: number;
}

/** An agent's question (ACP elicitation/create, form mode). */
export interface ElicitationRequest {
  requestId: string;
  message: string;
  toolCallId?: string;
  /** The agent's restricted JSON Schema: an object of primitive
   * properties, in the agent's order (lib/elicitation.ts builds the form). */
  schema: unknown;
}

/** A question no longer waiting, and how it was answered. */
export interface ElicitationResolved {
  requestId: string;
  /** accept | decline | cancel (cancelled turn, closed session, or the agent withdrew it) */
  action: string;
}

/** elicitations.answer: accept sends content (checked against the schema first). */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/** One of an agent's own sessions (session/list). */
export interface AgentSession {
  agentSessionId: string;
  cwd: string;
  title: string;
  updatedAt: string;
}

/** agents.listSessions' answer. */
export interface AgentSessions {
  agent: string;
  cwd: string;
  /** false: the agent lists sessions but cannot load them. */
  canImport: boolean;
  sessions: AgentSession[] | null;
}

export interface Hit {
  sessionId: string;
  title: string;
  turn: number;
  role: string;
  /** The entry id the hit is in. */
  entry: string;
  entries: string[];
  /** Text with the matches between « and ». */
  snippet: string;
  /** The session the hit's session was forked from (its id and title). */
  forkedFrom?: ForkOrigin;
}
