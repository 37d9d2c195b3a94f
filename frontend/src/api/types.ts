// Types of the app API (app/API.md) and of Go's thread package
// (thread/thread.go) as the UI receives them. JSON, camelCase. Fields Go
// tags `omitempty` are optional here.

// ---- Agents ----------------------------------------------------------------

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

// ---- Sessions --------------------------------------------------------------

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

// ---- thread (Go package thread) ---------------------------------------------

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

// ---- Workspace (the folder of notes) ------------------------------------------
// Paths are workspace-relative with "/" separators ("" is the root).

export interface WorkspaceInfo {
  /** Absolute folder. */
  dir: string;
  name: string;
  /** Absolute folders, newest first. */
  recent: string[];
  /** A native folder dialog exists (the window; not mnote serve). */
  canPick: boolean;
  /** A note to open (relative to dir), named on the command line or by a
   * second launch; given once. */
  select?: string;
}

/** A file or folder of workspace.tree. */
export interface TreeNode {
  name: string;
  path: string;
  dir?: boolean;
  /** A symbolic link (inside the workspace). */
  link?: boolean;
  children?: TreeNode[] | null;
}

/** A workspace.find match, best first. */
export interface FindHit {
  path: string;
  name: string;
  dir?: boolean;
  score: number;
}

/** An open file as Go holds it (its content includes unsaved edits). */
export interface BufferState {
  path: string;
  content: string;
  /** Content has edits not saved to disk. */
  dirty: boolean;
  /** The file changed on disk while the buffer was dirty. */
  conflict?: boolean;
  /** The file is gone from disk (saving creates it again). */
  deleted?: boolean;
  /** Increases with every change to the buffer. */
  version: number;
}

/** A deleted file or folder in the trash: opaque, passed back to files.restore. */
export type Trashed = Record<string, unknown>;

export type FileOp = 'created' | 'changed' | 'removed';

/** A file a turn changed (checkpoints.list). */
export interface TurnFile {
  path: string;
  op: FileOp | string;
  /** Why its content before the turn was not kept (not text, too big): it cannot be reverted. */
  notKept?: string;
}

/** A turn of a session that changed files. */
export interface TurnChanges {
  turn: number;
  files: TurnFile[];
  /** When the turn's changes were reverted. */
  reverted?: string;
  ended: string;
}

/** A file's unified diff (checkpoints.changes). */
export interface FileDiff {
  path: string;
  op: FileOp | string;
  diff: string;
  notKept?: string;
}

export interface RevertResult {
  restored: string[];
  deleted: string[];
  skipped?: { path: string; notKept: string }[] | null;
}

/** One change of a turn's file: `before` (as the turn found it) became `after`, which starts at line `start` (1-based) of the file now. */
export interface Hunk {
  start: number;
  before: string;
  after: string;
}

export type HunkAction = 'kept' | 'rejected' | 'restored';

/** A review of one hunk; for a rejected one `start` is where `before` now stands. */
export interface HunkReview {
  action: HunkAction | string;
  at: string;
  start: number;
  before: string;
  after: string;
}

/** checkpoints.hunks / checkpoints.review. */
export interface FileHunks {
  path: string;
  hunks: Hunk[];
  reviews?: HunkReview[] | null;
}

/** The open file (and selection) offered to the agent with a prompt. */
export interface PromptContext {
  path: string;
  selection?: { text: string; fromLine: number; toLine: number };
}

/** What sessions.prompt carries besides the text. */
export interface PromptExtras {
  context?: PromptContext;
  /** @-mentioned workspace paths. */
  mentions?: string[];
  /** Attached images (at most 10, 5 MB each, PNG/JPEG/GIF/WebP). */
  images?: ImageArg[];
  /** In a shared session: what members also see of this turn (thoughts,
   * tool summaries); tool input and output never leave the machine. */
  share?: { thoughts?: boolean; toolSummaries?: boolean };
}

/** An image attached to a prompt: its type and its bytes in base64. */
export interface ImageArg {
  mimeType: string;
  data: string;
}

/** sessions.image: one of a session's kept images. */
/** Where files.attach saved a pasted or dropped file (workspace-relative). */
export interface Attached {
  path: string;
}

export interface ImageData {
  mimeType: string;
  /** base64 */
  data: string;
}

export type ChangeOp = 'created' | 'changed' | 'removed' | 'renamed';

/** A path that changed on disk. */
export interface WorkspaceChange {
  path: string;
  op: ChangeOp | string;
  /** The old path of a rename. */
  from?: string;
  dir?: boolean;
  /** Who wrote it when mnote did (empty: another program, e.g. an agent writing to disk itself). */
  origin?: 'app' | 'agent' | string;
  /** The agent turn running when the change was seen. */
  turn?: string;
}

export type BufferEventKind = 'reloaded' | 'conflict' | 'deleted' | 'restored' | 'written' | 'merged' | 'moved';

export interface BufferEvent {
  kind: BufferEventKind | string;
  buffer: BufferState;
  /** The old path (moved). */
  from?: string;
  /** An agent's write (written, merged) removed these lines the person had typed and not saved. */
  dropped?: string[];
  /** With dropped: the editor's text and the disk's before the write. */
  previous?: string;
  previousDisk?: string;
}

/** workspace:changed */
/** Event fs:refused: an agent's fs/* request was refused (outside: the path is not in the session's folder at all). */
export interface FSRefusedPayload {
  sessionId: string;
  path: string;
  reason: string;
  outside?: boolean;
  /** A write refused because the user chose a read-only mode: that mode's id ("plan"), or an option and its value ("tool_approval: read-only"). */
  readOnlyMode?: string;
}

export interface WorkspaceChanged {
  changes?: WorkspaceChange[] | null;
  buffers?: BufferEvent[] | null;
  /** The watcher lost events: fetch the tree again. */
  rescan?: boolean;
  warning?: string;
}

/** notes.status, and the notes:index event: the open folder's notes index. */
export interface NotesIndexStatus {
  /** Absolute folder. */
  dir: string;
  ready: boolean;
  /** Notes read so far of total, while it builds. */
  done: number;
  total: number;
  notes: number;
  /** Files left out: too big, not text. */
  tooBig: number;
  notText: number;
  error?: string;
}

/** notes.search: one matching line of a note. */
export interface NoteHit {
  path: string;
  /** 1-based line of the first match. */
  line: number;
  /** That line, the matched terms between « and ». */
  snippet: string;
  /** bm25: lower is better. */
  rank: number;
  /** With `lines` asked: how many lines of the note match … */
  count?: number;
  /** … and the first of them, in order. */
  lines?: NoteHitLine[];
}

/** One matching line of a note (notes.search with lines). */
export interface NoteHitLine {
  /** 1-based. */
  line: number;
  /** The line, the matched terms between « and ». */
  snippet: string;
}

/** notes.tags: a tag and how many notes carry it. */
export interface TagCount {
  tag: string;
  notes: number;
}

/** notes.titles: a note and its title (front matter title:, else its first heading). */
export interface NoteTitle {
  path: string;
  title?: string;
}

/** notes.headings / notes.outline. */
export interface NoteHeading {
  path: string;
  level: number;
  text: string;
  /** 1-based. */
  line: number;
}

/** notes.links / notes.backlinks. */
export interface NoteLink {
  /** The linking note; line (1-based) and context: the linking line. */
  from: string;
  line: number;
  context: string;
  /** A note name or path (wikilink), a workspace path (Markdown link). */
  target: string;
  heading?: string;
  alias?: string;
  wiki: boolean;
  /** The note it points at; absent when none does. */
  resolved?: string;
}

/** The opaque handle of a link update, for notes.undoUpdateLinks. */
export interface LinksUndo {
  id: string;
}

/** notes.updateLinks: the notes whose links to a renamed note were (dry run: would be) rewritten. */
export interface LinksUpdated {
  changed: string[];
  links: number;
  /** Left alone: unsaved edits in an editor, or changed meanwhile. */
  skipped?: string[];
  undo?: LinksUndo;
}

// ---- Events ----------------------------------------------------------------

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
  'shared:event': import('./shared').SharedEvent;
}

export type EventName = keyof EventMap;

// ---- Sync, shares and exports (issue 7) -------------------------------------
// Sync is off until the user turns it on; while off, nothing connects anywhere.

export interface SyncStatus {
  /** Sync is on (and set up). */
  enabled: boolean;
  /** A control plane URL and a token are saved. */
  configured: boolean;
  url?: string;
  allowTitles: boolean;
  /** When a record was last acknowledged (RFC 3339). */
  lastSync?: string;
  /** Records waiting to be sent. */
  pending: number;
  /** Records the control plane refused for good (they wait until their session changes again, or the URL or token does). */
  parked: number;
  /** The newest parked records, each with the refusal. */
  parkedRecords?: ParkedRecord[];
  lastError?: string;
  /** When the worker tries again after failures or a rate limit (RFC 3339). */
  nextAttempt?: string;
}

/** A record the control plane refused for good. */
export interface ParkedRecord {
  sessionId: string;
  /** put | delete */
  op: string;
  error: string;
  /** RFC 3339. */
  parkedAt: string;
}

export interface SyncConfigInput {
  url: string;
  /** Omitted: keep the saved one. Never sent back by Go. */
  token?: string;
  allowTitles: boolean;
}

/** A published, read-only, redacted share of a session. */
export interface Share {
  id: string;
  /** Only in the answer to shares.publish: the control plane keeps its hash alone. */
  token?: string;
  /** The link: from shares.publish, and in shares.list for the shares published
   * on this machine (mnote keeps their links); absent for one published elsewhere. */
  url?: string;
  sessionId: string;
  createdAt: string;
  /** Absent: until revoked. */
  expiresAt?: string;
}

export interface PublishOptions {
  /** 0: until revoked. */
  expiresInDays?: number;
  includeThoughts?: boolean;
  includeToolIO?: boolean;
  /** The page joins a paragraph's single line breaks (Settings → strict Markdown line breaks). */
  strictBreaks?: boolean;
}

/** What sync.removeMyData deleted on the control plane. */
export interface RemovedData {
  sessions: number;
  shares: number;
}

export type ExportFormat = 'md' | 'html' | 'jsonl';

export interface ExportOptions {
  format: ExportFormat;
  /** Default: on for md and html, off for jsonl. */
  redact?: boolean;
  includeThoughts?: boolean;
  includeToolIO?: boolean;
  /** The language of the Markdown and HTML exports' own words (labels,
   * dates): the interface's. Default "en". */
  locale?: 'en' | 'zh-CN';
  /** md, html: the images of the user's messages (HTML embeds them, Markdown names their files). Default off. */
  images?: boolean;
  /** html: a paragraph's single line breaks join its lines (Settings → strict Markdown line breaks). */
  strictBreaks?: boolean;
}

/** sessions.export: in the window a save dialog wrote the file (`path`);
 * in mnote serve the page downloads `content`; neither: cancelled. */
export interface Exported {
  filename: string;
  mime: string;
  content: string;
  path?: string;
}

/** agents.openTerminal: the terminal program started and the command it runs. */
export interface TerminalOpened {
  terminal: string;
  command: string;
}

// ---- Errors ----------------------------------------------------------------

export type ErrorCode =
  | 'bad_request'
  | 'not_found'
  | 'agent_missing'
  | 'agent_failed'
  | 'needs_auth'
  | 'busy'
  | 'write_failed'
  | 'conflict'
  | 'internal'
  // sync.* / shares.*: the control plane is unreachable, failing or asks
  // to wait; it refused the sync token.
  | 'unavailable'
  | 'sync_auth'
  // Client-side codes (not sent by Go): the transport failed or the server
  // refused the token.
  | 'network'
  | 'unauthorized';

export interface ApiErrorShape {
  code: string;
  /** The specific case (app/reasons.go); worded by lib/errtext.ts. */
  reason?: string;
  /** English; the fallback for a reason or code this version does not know. */
  message: string;
  details?: string;
  /** The values the reason is worded with (agent, path, count…). */
  params?: Record<string, string>;
}
