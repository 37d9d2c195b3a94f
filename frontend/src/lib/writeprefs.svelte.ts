// The writing preferences (Settings → Notes), kept in localStorage:
// strict Markdown line breaks, and where pasted or dropped files go.

import { readBool, readPref, writeBool, writePref } from './prefs';

const STRICT_KEY = 'mnote.strictBreaks';
const ATTACH_KEY = 'mnote.attachments';
const ATTACH_DIR_KEY = 'mnote.attachmentsDir';

/** Where a pasted or dropped file is saved: the attachments folder at the workspace's root, or beside the note. */
export type AttachPlace = 'folder' | 'beside';

export const DEFAULT_ATTACH_DIR = 'attachments';

class WritePrefs {
  /** Strict Markdown line breaks: a single line break inside a paragraph joins the lines (see markdown.ts). */
  strictBreaks = $state(readBool(STRICT_KEY, false));
  attachPlace: AttachPlace = $state(readPref(ATTACH_KEY) === 'beside' ? 'beside' : 'folder');
  /** The attachments folder, relative to the workspace's root. */
  attachDir = $state(cleanDir(readPref(ATTACH_DIR_KEY) ?? DEFAULT_ATTACH_DIR));

  setStrictBreaks(on: boolean): void {
    this.strictBreaks = on;
    writeBool(STRICT_KEY, on);
  }

  setAttachPlace(p: AttachPlace): void {
    this.attachPlace = p;
    writePref(ATTACH_KEY, p);
  }

  setAttachDir(dir: string): void {
    this.attachDir = cleanDir(dir);
    writePref(ATTACH_DIR_KEY, this.attachDir);
  }
}

/** A folder as typed, made workspace-relative: slashes trimmed, backslashes as slashes, no "." or ".." parts ("" for none given: the default). */
export function cleanDir(dir: string): string {
  const parts = dir
    .replace(/\\/g, '/')
    .split('/')
    .map((p) => p.trim())
    .filter((p) => p && p !== '.' && p !== '..');
  return parts.length ? parts.join('/') : DEFAULT_ATTACH_DIR;
}

export const writePrefs = new WritePrefs();
