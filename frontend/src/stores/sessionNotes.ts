// An answer of the chat into the notes: saved as a note of its own, or
// inserted at the cursor of the open note.

import { ApiError } from '../api';
import { m } from '../lib/i18n.svelte';
import type { AppState } from './app.svelte';

/** Characters a note's file name cannot hold (any system's). */
const BAD_NAME = /[\\/:*?"<>|#^[\]\u0000-\u001f]/g;

/**
 * The title of a note made from an answer: its first heading, else its
 * first line that has text, without Markdown marks, at most 60 characters;
 * "" when the answer has no text.
 */
export function answerTitle(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  let fence = false;
  let first = '';
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h && h[1].trim()) return clean(h[1]);
    if (!first && line.trim()) first = line;
  }
  return first ? clean(first) : '';
}

function clean(text: string): string {
  const plain = text
    .replace(/^\s*(>\s*)+/, '')
    .replace(/^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?/, '')
    .replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/!?\[\[([^\]]*)\]\]/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__|~~|`+|\*/g, '')
    .replace(BAD_NAME, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const chars = [...plain];
  return (chars.length > 60 ? chars.slice(0, 60).join('') : plain).trim();
}

/** Saves an answer as a new note at the top of the workspace (named after
 * its title, numbered when taken) and opens it; its path, or null. */
export async function saveAnswerAsNote(app: AppState, markdown: string): Promise<string | null> {
  const base = answerTitle(markdown) || m.chat_cp_note_untitled();
  let name = base;
  for (let n = 2; app.workspace.node(name + '.md'); n++) name = `${base} ${n}`;
  const path = await app.workspace.create('', name, false);
  if (!path) return null;
  const text = markdown.endsWith('\n') ? markdown : markdown + '\n';
  try {
    await app.client.files.open(path);
    try {
      await app.client.files.save(path, text);
    } finally {
      await app.client.files.close(path).catch(() => {});
    }
  } catch (e) {
    const error = ApiError.from(e).message;
    app.toasts.error(() => m.chat_cp_note_save_failed({ name: name + '.md', error }));
    return null;
  }
  await app.editor.open(path);
  app.toasts.show({ message: () => m.chat_cp_note_saved({ name: name + '.md' }) });
  return path;
}

/** Inserts an answer at the cursor of the open note; false when no note is open. */
export function insertAnswer(app: AppState, markdown: string): boolean {
  const tab = app.editor.active;
  if (!tab) {
    app.toasts.show({ message: () => m.chat_cp_insert_no_note() });
    return false;
  }
  return app.editor.insertAtCursor(tab.path, markdown);
}
