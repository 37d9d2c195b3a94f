// @-mentions in the composer: finding the "@query" being typed, putting a
// picked path in its place, and listing the picked paths the text still
// mentions when it is sent. Paths with spaces are written @"like this".

import type { PromptContext, PromptExtras } from '../api/types';

export interface MentionQuery {
  /** Index of the "@". */
  start: number;
  /** What follows it up to the caret. */
  query: string;
}

/** The "@query" just before the caret, when the "@" starts a word. */
export function mentionQuery(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const m = /(^|[\s([{,;])@([^\s@"]*)$/.exec(before);
  if (!m) return null;
  return { start: before.length - m[2].length - 1, query: m[2] };
}

/** How a path is written after "@". */
export function mentionToken(path: string): string {
  return /[\s"]/.test(path) ? `@"${path.replace(/"/g, '')}"` : `@${path}`;
}

/** Replaces the "@query" at q with the path's token and a space; returns the text and the caret after it. */
export function insertMention(text: string, q: MentionQuery, caret: number, path: string): { text: string; caret: number } {
  const token = mentionToken(path) + ' ';
  const rest = text.slice(caret).replace(/^[^\s@"]*/, ''); // the rest of the word being typed goes too
  const head = text.slice(0, q.start) + token;
  return { text: head + rest.replace(/^ /, ''), caret: head.length };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The picked paths the text still mentions (in the order picked, once each). */
export function mentionsIn(text: string, picked: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of picked) {
    if (out.includes(p)) continue;
    const tok = escapeRe(mentionToken(p));
    if (new RegExp(`(^|[\\s([{,;])${tok}(?=$|[\\s)\\]},;:.!?])`).test(text)) out.push(p);
  }
  return out;
}

/** The extra fields of sessions.prompt: the offered context and the mentions (empty ones left out). */
export function promptExtras(context: PromptContext | null | undefined, mentions: readonly string[]): PromptExtras {
  const x: PromptExtras = {};
  if (context?.path) {
    x.context = context.selection?.text ? { path: context.path, selection: { ...context.selection } } : { path: context.path };
  }
  if (mentions.length) x.mentions = [...mentions];
  return x;
}
