// Sync, shares and exports (issue 7); also what agents.openTerminal answers.

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
