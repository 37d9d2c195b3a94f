// The leaves of the open session's store (session.svelte.ts): one entry's
// reactive cell, how much of a terminal's output is kept, and the kept
// images of the user's messages.

import type { Client } from '../api';
import type { Entry } from '../api/types';

/** One entry, reactive on its own. `v` is replaced (never mutated) on change. */
export class EntryCell {
  v: Entry;
  constructor(e: Entry) {
    this.v = $state.raw(e);
  }
}

/** How much terminal output the page keeps: the end, like Go's thread. */
export const TERMINAL_KEEP = 1 << 20;

/** The last TERMINAL_KEEP characters of s, not starting inside a surrogate pair. */
export function keepTail(s: string): string {
  if (s.length <= TERMINAL_KEEP) return s;
  let start = s.length - TERMINAL_KEEP;
  const c = s.charCodeAt(start);
  if (c >= 0xdc00 && c <= 0xdfff) start++;
  return s.slice(start);
}

/** The images of sessions' user messages (named by hash), as data: URLs;
 * the last 200 asked for are kept. */
export class SessionImages {
  private readonly cache = new Map<string, Promise<string>>();
  constructor(private readonly client: Client) {}

  /** The image, or '' when it cannot be read (asked again next time). */
  get(id: string, hash: string): Promise<string> {
    const key = `${id}/${hash}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.client.sessions.image(id, hash).then(
        (d) => (/^image\/(png|jpeg|gif|webp)$/.test(d.mimeType) ? `data:${d.mimeType};base64,${d.data}` : ''),
        () => {
          this.cache.delete(key);
          return '';
        },
      );
      this.cache.set(key, p);
      if (this.cache.size > 200) this.cache.delete(this.cache.keys().next().value as string);
    }
    return p;
  }
}
