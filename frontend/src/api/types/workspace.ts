// The workspace (the folder of notes): files, buffers, turn changes and
// hunks, what goes with a prompt (context, images), notes, tags and links.

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

/** A note's text as an embed shows it (notes.read). */
export interface NoteText {
  path: string;
  text: string;
  /** The note has no heading of that name. */
  noHeading?: boolean;
  /** Only the start of a long note. */
  truncated?: boolean;
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
