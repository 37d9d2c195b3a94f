// What a rename typed in the tree (or a tab) makes of a file's name: the
// extension stays unless the person clearly typed another one. A note
// renamed to "缓存实验" (Ctrl+A and a new name, the extension gone with the
// selection) stays "缓存实验.md", so it never drops out of the tree, its
// backlinks and the link update; "a.txt" typed for a note is asked about.

import { isMarkdown } from './tree';

/** What to do with the name typed for a rename. */
export type RenamePlan =
  /** Rename to name (maybe the typed one with the old extension put back). */
  | { kind: 'rename'; name: string }
  /** The person typed another kind of file: ask. keep keeps the old kind (e.g. "a.md"), other is as typed ("a.txt"). */
  | { kind: 'ask'; keep: string; other: string; keepExt: string; otherExt: string }
  /** Nothing to do (empty, or the same name). */
  | { kind: 'none' };

/**
 * Extensions a person types on purpose: file kinds (documents, pictures,
 * sounds, code). Anything else after a dot is part of the name ("v1.2",
 * "Dr. Who", "notes.v2").
 */
const KNOWN = new Set(
  // i18n-ignore: file extensions
  `md markdown txt text org rst adoc tex html htm xml json jsonl yaml yml toml ini csv tsv log
   png jpg jpeg gif bmp svg webp avif ico tif tiff heic
   mp3 wav m4a ogg flac aac opus mp4 webm ogv mov mkv avi
   pdf zip epub doc docx xls xlsx ppt pptx odt ods odp canvas excalidraw
   js ts py go rs java c h cpp sh sql css`
    .split(/\s+/)
    .filter(Boolean)
    .map((e) => '.' + e),
);

/** A file name's extension as typed (".md"), "" when none: the last dot's part, never a name's leading dot. */
export function extOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i) : '';
}

/** Whether ext (".txt") is a kind of file a person types on purpose. */
export function isKnownExt(ext: string): boolean {
  return KNOWN.has(ext.toLowerCase());
}

/**
 * The plan for renaming the file oldName (a folder: dir) to what was
 * typed. The typed text is trimmed, trailing dots dropped.
 */
export function planRename(oldName: string, typed: string, dir = false): RenamePlan {
  const name = typed.trim();
  if (!name || name === oldName) return { kind: 'none' };
  if (dir) return { kind: 'rename', name };
  const oldExt = extOf(oldName);
  const bare = name.replace(/\.+$/, '');
  if (!bare) return { kind: 'none' };
  if (!oldExt) return { kind: 'rename', name: bare };
  const ext = extOf(bare);
  const same = ext.toLowerCase() === oldExt.toLowerCase() || (isMarkdown(oldName) && isMarkdown(bare));
  if (same) return bare === oldName ? { kind: 'none' } : { kind: 'rename', name: bare };
  if (!ext || !isKnownExt(ext)) {
    // No extension (it went with a select-all), or a dot that is part of the name.
    const kept = bare + oldExt;
    return kept === oldName ? { kind: 'none' } : { kind: 'rename', name: kept };
  }
  const keep = bare.slice(0, -ext.length) + oldExt;
  return { kind: 'ask', keep, other: bare, keepExt: oldExt, otherExt: ext };
}

/** The part of a file name a rename field selects first: the name without its extension (a folder's whole name). */
export function nameSelection(name: string, dir = false): [number, number] {
  const ext = dir ? '' : extOf(name);
  return [0, name.length - ext.length];
}
