import { reasonWording } from '../lib/errtext';
import { m } from '../lib/i18n.svelte';
import type { ApiErrorShape, ErrorCode } from './types';

/**
 * The one error every API call rejects with: Go's {code, message, details}
 * shape, or a client-side `network` / `unauthorized` error.
 */
export class ApiError extends Error implements ApiErrorShape {
  readonly code: ErrorCode | string;
  readonly details?: string;
  readonly reason?: string;
  readonly params?: Record<string, string>;

  constructor(code: ErrorCode | string, message: string, details?: string, reason?: string, params?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    if (details) this.details = details;
    if (reason) this.reason = reason;
    if (params && typeof params === 'object') this.params = params;
    // An error with a reason this version words is shown in the interface
    // language (read again each time, so it follows a switch); the Go
    // message stays the fallback and is kept as goMessage.
    this.goMessage = message;
    if (reason) {
      Object.defineProperty(this, 'message', {
        get: () => reasonWording(this.reason, this.params) ?? this.goMessage,
        enumerable: false,
        configurable: true,
      });
    }
  }

  /** The English message Go wrote (logs, details). */
  readonly goMessage: string;

  /** Turns anything a transport caught into an ApiError. */
  static from(x: unknown, fallbackCode: ErrorCode = 'internal'): ApiError {
    if (x instanceof ApiError) return x;
    if (isShape(x)) return new ApiError(x.code, x.message || x.code, x.details || undefined, x.reason || undefined, x.params);
    if (typeof x === 'string') {
      const s = x.trim();
      if (s.startsWith('{')) {
        try {
          const parsed: unknown = JSON.parse(s);
          if (isShape(parsed)) return ApiError.from(parsed);
          if (parsed && typeof parsed === 'object' && isShape((parsed as { error?: unknown }).error)) {
            return ApiError.from((parsed as { error: unknown }).error);
          }
        } catch {
          /* not JSON: a plain message */
        }
      }
      return new ApiError(fallbackCode, s || m.app_unknown_error());
    }
    if (x instanceof Error) return new ApiError(fallbackCode, x.message || x.name);
    return new ApiError(fallbackCode, m.app_unknown_error(), safeString(x));
  }

  toJSON(): ApiErrorShape {
    return {
      code: this.code,
      message: this.goMessage,
      ...(this.details ? { details: this.details } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.params ? { params: this.params } : {}),
    };
  }
}

function isShape(x: unknown): x is ApiErrorShape {
  return (
    !!x &&
    typeof x === 'object' &&
    typeof (x as ApiErrorShape).code === 'string' &&
    (typeof (x as ApiErrorShape).message === 'string' || (x as ApiErrorShape).message === undefined)
  );
}

function safeString(x: unknown): string | undefined {
  try {
    return x === undefined ? undefined : JSON.stringify(x);
  } catch {
    return String(x);
  }
}

/** A sentence for a person, e.g. for a toast. */
export function errorMessage(e: unknown): string {
  return ApiError.from(e).message;
}
