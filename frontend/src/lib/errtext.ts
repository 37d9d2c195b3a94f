// How an error or notice from the Go side is worded in the interface's
// language. Go sends a code (and, where it has them, a reason and
// parameters); the words live in messages/errors. The Go message is the
// fallback for a code this version does not know (an older or newer Go
// side), so nothing is ever shown as a raw key.
import type { ApiErrorShape, NoticePayload } from '../api/types';

/** The sentence shown for a failed call. */
export function errorText(e: ApiErrorShape): string {
  return e.message || e.code;
}

/** The sentence shown for a notice event. */
export function noticeText(n: NoticePayload): string {
  return n.message;
}
