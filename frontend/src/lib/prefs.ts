// Small preferences kept in localStorage (absent in private mode: the
// defaults apply and nothing is kept).

export function readPref(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writePref(key: string, v: string): void {
  try {
    localStorage.setItem(key, v);
  } catch {
    /* private mode */
  }
}

export function readBool(key: string, dflt: boolean): boolean {
  const v = readPref(key);
  return v === null ? dflt : v === '1';
}

export function writeBool(key: string, v: boolean): void {
  writePref(key, v ? '1' : '0');
}

export function readNumber(key: string, dflt: number): number {
  const v = Number(readPref(key));
  return readPref(key) !== null && Number.isFinite(v) ? v : dflt;
}

export function removePref(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    /* private mode */
  }
}

// Unsent prompts, per session ("" = a new session not created yet), so a
// draft survives a reload or a restart of the app. Kept for the last
// MAX_DRAFTS sessions written to, each up to MAX_DRAFT_CHARS; cleared when
// sent. Only this origin's page reads them (the window, or mnote serve's
// loopback origin).
const DRAFT_PREFIX = 'mnote.draft.';
const DRAFT_INDEX = 'mnote.drafts';
export const MAX_DRAFTS = 50;
export const MAX_DRAFT_CHARS = 200_000;

function draftIndex(): string[] {
  try {
    const v: unknown = JSON.parse(readPref(DRAFT_INDEX) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function readDraft(sessionId: string): string {
  return readPref(DRAFT_PREFIX + sessionId) ?? '';
}

/** Keeps (or, when empty, forgets) the session's draft. */
export function writeDraft(sessionId: string, text: string): void {
  const ids = draftIndex().filter((id) => id !== sessionId);
  if (!text) {
    removePref(DRAFT_PREFIX + sessionId);
    writePref(DRAFT_INDEX, JSON.stringify(ids));
    return;
  }
  ids.push(sessionId);
  while (ids.length > MAX_DRAFTS) removePref(DRAFT_PREFIX + ids.shift());
  writePref(DRAFT_PREFIX + sessionId, text.slice(0, MAX_DRAFT_CHARS));
  writePref(DRAFT_INDEX, JSON.stringify(ids));
}

// Prompts queued while a turn runs (and the last prompt sent, for Retry),
// per session, kept beside the drafts and on the same terms: JSON the
// session store reads back (and checks), for the last MAX_DRAFTS sessions
// written to; forgotten when there is nothing left to keep.
const QUEUE_PREFIX = 'mnote.queue.';
const QUEUE_INDEX = 'mnote.queues';

function queueIndex(): string[] {
  try {
    const v: unknown = JSON.parse(readPref(QUEUE_INDEX) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The session's kept queue record (unchecked), or null. */
export function readQueue(sessionId: string): unknown {
  try {
    return JSON.parse(readPref(QUEUE_PREFIX + sessionId) ?? 'null');
  } catch {
    return null;
  }
}

/** Keeps (or, with null, forgets) the session's queue record. */
export function writeQueue(sessionId: string, v: unknown): void {
  const ids = queueIndex().filter((id) => id !== sessionId);
  if (v === null || v === undefined) {
    removePref(QUEUE_PREFIX + sessionId);
    writePref(QUEUE_INDEX, JSON.stringify(ids));
    return;
  }
  ids.push(sessionId);
  while (ids.length > MAX_DRAFTS) removePref(QUEUE_PREFIX + ids.shift());
  writePref(QUEUE_PREFIX + sessionId, JSON.stringify(v));
  writePref(QUEUE_INDEX, JSON.stringify(ids));
}

// The notes opened last in each folder (Quick Open lists them first when
// nothing is typed), most recent first: up to MAX_RECENT_NOTES paths, kept
// as JSON under the folder's own key (KEY@folder, as the daily note's
// settings are), for the last MAX_RECENT_FOLDERS folders written to (an
// index as the drafts have; the oldest folder's list goes first).
const RECENT_PREFIX = 'mnote.recentNotes@';
const RECENT_INDEX = 'mnote.recentNotes';
export const MAX_RECENT_NOTES = 50;
export const MAX_RECENT_FOLDERS = 20;

function stringList(key: string): string[] {
  try {
    const v: unknown = JSON.parse(readPref(key) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  } catch {
    return [];
  }
}

/** The notes opened last in folder dir, most recent first. */
export function readRecentNotes(dir: string): string[] {
  return dir ? stringList(RECENT_PREFIX + dir) : [];
}

/** Puts path first among folder dir's recent notes (the folder becomes the most recent one). */
export function pushRecentNote(dir: string, path: string): void {
  if (!dir || !path) return;
  const paths = [path, ...readRecentNotes(dir).filter((p) => p !== path)].slice(0, MAX_RECENT_NOTES);
  const dirs = stringList(RECENT_INDEX).filter((d) => d !== dir);
  dirs.push(dir);
  while (dirs.length > MAX_RECENT_FOLDERS) removePref(RECENT_PREFIX + dirs.shift());
  writePref(RECENT_PREFIX + dir, JSON.stringify(paths));
  writePref(RECENT_INDEX, JSON.stringify(dirs));
}

// What members of a shared session also see of this machine's turns
// (the actor's choice, per session; sent with each prompt): the agent's
// thoughts, a summary of each tool call. Off unless chosen. Kept as one
// JSON record for the last MAX_SHARE_CHOICES sessions chosen for.
const SHARE_KEY = 'mnote.sharedShow';
export const MAX_SHARE_CHOICES = 200;

export interface ShareChoice {
  thoughts: boolean;
  toolSummaries: boolean;
}

function shareChoices(): [string, ShareChoice][] {
  try {
    const v: unknown = JSON.parse(readPref(SHARE_KEY) ?? '[]');
    if (!Array.isArray(v)) return [];
    return v.flatMap((x): [string, ShareChoice][] => {
      if (!Array.isArray(x) || typeof x[0] !== 'string' || !x[1] || typeof x[1] !== 'object') return [];
      const c = x[1] as Record<string, unknown>;
      return [[x[0], { thoughts: c.thoughts === true, toolSummaries: c.toolSummaries === true }]];
    });
  } catch {
    return [];
  }
}

/** What members also see of this machine's turns in the session (nothing by default). */
export function readShareChoice(sessionId: string): ShareChoice {
  const c = shareChoices().find(([id]) => id === sessionId)?.[1];
  return c ?? { thoughts: false, toolSummaries: false };
}

/** Keeps the session's choice (nothing chosen: forgotten). */
export function writeShareChoice(sessionId: string, c: ShareChoice): void {
  const all = shareChoices().filter(([id]) => id !== sessionId);
  if (c.thoughts || c.toolSummaries) all.push([sessionId, { thoughts: c.thoughts, toolSummaries: c.toolSummaries }]);
  writePref(SHARE_KEY, JSON.stringify(all.slice(-MAX_SHARE_CHOICES)));
}
