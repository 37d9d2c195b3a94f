// The open session's notices (session.svelte.ts owns a NoticeList): the
// banners above the chat, from Go's notice events, failed turns and the
// store's own failed calls, worded in the interface language when read.

import type { ApiError } from '../api';
import type { NoticePayload } from '../api/types';

export interface Notice {
  id: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  details?: string;
  action?: string;
  /** The API error code when the notice came from a failed call. */
  code?: string;
}

let noticeIds = 0;

/** A notice whose message is a getter: the text is made when it is read
 * (while rendering), so switching the language rewords it at once. */
export function withMessage(n: Omit<Notice, 'id' | 'message'>, message: () => string): Omit<Notice, 'id'> {
  return Object.defineProperty(n, 'message', { get: message, enumerable: true, configurable: true }) as Omit<Notice, 'id'>;
}

/** The error notice of a failed call: `what` words it around the error's
 * own message (m.chat_fail_*), in the interface language whenever it is read. */
export function failNotice(err: ApiError, what: (p: { error: string }) => string): Omit<Notice, 'id'> {
  const error = err.message;
  return withMessage(
    {
      level: 'error',
      details: err.details,
      code: err.code,
      action: err.code === 'needs_auth' ? 'login' : err.code === 'agent_failed' ? 'restart' : undefined,
    },
    () => what({ error }),
  );
}

/** The last few notices, oldest first. */
export class NoticeList {
  items: Notice[] = $state.raw([]);

  push(n: Omit<Notice, 'id'> | NoticePayload): void {
    // Copied with its property descriptors: a message that is a getter
    // (withMessage) stays one, so it follows the interface language.
    const notice = Object.defineProperties({ id: ++noticeIds }, Object.getOwnPropertyDescriptors(n)) as Notice;
    // The same message twice in a row stays one banner.
    const last = this.items[this.items.length - 1];
    if (last && last.message === notice.message && last.level === notice.level) return;
    this.items = [...this.items.slice(-4), notice];
  }

  dismiss(id: number): void {
    this.items = this.items.filter((n) => n.id !== id);
  }

  /** Drops the warnings and errors (a new turn began). */
  keepInfo(): void {
    this.items = this.items.filter((n) => n.level === 'info');
  }

  clear(): void {
    this.items = [];
  }
}
