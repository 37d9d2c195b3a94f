// Go's thread package (thread/thread.go) as the UI receives it: entries,
// tool calls, plans, modes, models, config options, commands, terminals.

import type { PermissionOption } from './sessions';

export type EntryKind = 'user_message' | 'assistant_message' | 'thought' | 'tool_call' | 'plan' | 'runtime' | 'question';

/** A question entry: an agent's question (elicitation) and its answer. */
export interface Question {
  message: string;
  /** The form's requestedSchema as the agent sent it. */
  schema?: unknown;
  /** accept | decline | cancel; absent while it waits. */
  action?: string;
  /** The accepted values, by field name. */
  content?: Record<string, unknown> | null;
}

/** A runtime entry: the session moved to another agent, or to a new
 * conversation with the same one. */
export interface RuntimeChange {
  runtime: string;
  previous?: string;
  /** new | load | resume | new_fallback */
  how: string;
  note?: string;
}

export type ToolStatus =
  | 'pending'
  | 'awaiting_permission'
  | 'in_progress'
  | 'completed'
  | 'failed'
  | 'rejected'
  | 'cancelled';

export interface Block {
  type: string;
  /** Byte (UTF-8) offset in the entry's text where the block came. */
  offset: number;
  raw: unknown;
}

export interface Location {
  path: string;
  line?: number | null;
}

export interface ToolCallContent {
  type: 'content' | 'diff' | 'terminal' | string;
  /** type "content": an ACP content block. */
  content?: ContentBlock | null;
  /** type "diff". */
  path?: string;
  oldText?: string | null;
  newText?: string;
  /** type "terminal". */
  terminalId?: string;
}

export interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: unknown;
  [key: string]: unknown;
}

export interface ToolCall {
  id: string;
  toolCallId: string;
  title: string;
  kind?: string;
  status: ToolStatus | string;
  content?: ToolCallContent[] | null;
  locations?: Location[] | null;
  rawInput?: unknown;
  rawOutput?: unknown;
  options?: PermissionOption[] | null;
  /** The chosen option kind (allow_once, …) or "cancelled". */
  decision?: string;
  startedMs?: number;
  endedMs?: number;
}

export interface PlanEntry {
  content: string;
  priority?: string;
  status?: string;
}

export interface Entry {
  id: string;
  kind: EntryKind | string;
  turn: number;
  messageId?: string;
  text?: string;
  blocks?: Block[] | null;
  streaming?: boolean;
  createdMs?: number;
  toolCall?: ToolCall | null;
  plan?: PlanEntry[] | null;
  runtime?: RuntimeChange | null;
  question?: Question | null;
}

export interface Cost {
  amount: number;
  currency: string;
}

export interface Usage {
  used: number;
  size: number;
  /** The session's total cost as the agent last reported it. */
  cost?: Cost | null;
  /** The current (or last) turn's share of it. */
  turnCost?: Cost | null;
  lastTokens?: Record<string, number> | null;
  turnTokens?: Record<string, number> | null;
  sessionTokens?: Record<string, number> | null;
  /** Prompt-cache use, when the agent reports it (Reasonix). */
  cache?: CacheUsage | null;
}

/** Prompt-cache figures over one turn or the whole session. */
export interface CacheFigures {
  hitTokens: number;
  missTokens: number;
  /** hit / (hit + miss), 0 to 1. */
  hitRatio: number;
}

export interface CacheUsage {
  turn: CacheFigures;
  session: CacheFigures;
  /** Each turn's figures that reported some, oldest first (at most 50): the hit rate's trend. */
  turns?: TurnCache[] | null;
}

/** One turn's prompt-cache figures. */
export interface TurnCache {
  turn: number;
  hitTokens: number;
  missTokens: number;
  /** hit / (hit + miss), 0 to 1. */
  hitRatio: number;
}

/** A model the agent offers: a value of its "model" config option, else of the legacy "models" field. */
export interface Model {
  modelId: string;
  name: string;
  description?: string;
}

/** An agent process mnote runs (agents.running). */
export interface RunningAgent {
  runtime: string;
  pid: number;
  sessions: number;
  idleMs: number;
}

export interface Mode {
  id: string;
  name: string;
  description?: string;
}

export interface Command {
  name: string;
  description?: string;
  /** ACP AvailableCommandInput, e.g. {hint}. */
  input?: { hint?: string } | null;
}

/** ACP session config option (select, or the unstable boolean). */
export interface ConfigSelectValue {
  value: string;
  name: string;
  description?: string | null;
}
export interface ConfigSelectGroup {
  group: string;
  name: string;
  options: ConfigSelectValue[];
}
export interface ConfigOption {
  id: string;
  name: string;
  description?: string | null;
  /** mode | model | thought_level | _custom… */
  category?: string | null;
  type: 'select' | 'boolean' | string;
  currentValue: string | boolean;
  options?: (ConfigSelectValue | ConfigSelectGroup)[];
}

export interface ThreadSnapshot {
  entries: Entry[] | null;
  title?: string;
  updatedAt?: string;
  usage: Usage;
  currentModeId?: string;
  modes?: Mode[] | null;
  currentModelId?: string;
  models?: Model[] | null;
  configOptions?: ConfigOption[] | null;
  commands?: Command[] | null;
  plan?: PlanEntry[] | null;
  turn: number;
  stopReason?: string;
  /** The commands the agent ran in terminals (ACP terminal/*). */
  terminals?: Terminal[] | null;
}

/** A command the agent runs in a terminal; tool calls show it through
 * content {type: "terminal", terminalId}. */
export interface Terminal {
  terminalId: string;
  turn: number;
  command: string;
  args?: string[] | null;
  cwd?: string;
  /** What the command wrote, ANSI escape sequences included (the last 1 MiB). */
  output: string;
  truncated?: boolean;
  exited?: boolean;
  /** Absent while it runs, or when a signal killed it. */
  exitCode?: number | null;
  /** The signal that killed it, e.g. "SIGKILL". */
  signal?: string;
  /** The agent let go of it: nothing of it runs any more. */
  released?: boolean;
}

/** Payload of a "terminal" event: a Terminal without its output. */
export interface TerminalPayload {
  terminalId: string;
  turn: number;
  command: string;
  args?: string[] | null;
  cwd?: string;
  truncated?: boolean;
  exited?: boolean;
  exitCode?: number | null;
  signal?: string;
  released?: boolean;
}

/** Payload of a "terminal_output" event. */
export interface TerminalOutputPayload {
  terminalId: string;
  data: string;
}
