// The API's error codes and the shape of an error as Go sends it.

export type ErrorCode =
  | 'bad_request'
  | 'not_found'
  | 'agent_missing'
  | 'agent_failed'
  | 'needs_auth'
  | 'busy'
  | 'write_failed'
  | 'conflict'
  | 'internal'
  // sync.* / shares.*: the control plane is unreachable, failing or asks
  // to wait; it refused the sync token.
  | 'unavailable'
  | 'sync_auth'
  // Client-side codes (not sent by Go): the transport failed or the server
  // refused the token.
  | 'network'
  | 'unauthorized';

export interface ApiErrorShape {
  code: string;
  /** The specific case (app/reasons.go); worded by lib/errtext.ts. */
  reason?: string;
  /** English; the fallback for a reason or code this version does not know. */
  message: string;
  details?: string;
  /** The values the reason is worded with (agent, path, count…). */
  params?: Record<string, string>;
}
