// The share dialog's state: publishing a read-only, redacted snapshot of a
// session to the control plane (sync must be on), and the link it gives.

import { ApiError, type Client } from '../api';
import type { Share } from '../api/types';
import { m } from '../lib/i18n.svelte';
import { isSyncOffError, type SyncStore } from './sync.svelte';
import type { ToastStore } from './toasts.svelte';
import { writePrefs } from '../lib/writeprefs.svelte';

/** The choices of "Expires". */
export const EXPIRY_DAYS = [0, 1, 7, 30] as const;

export class ShareStore {
  /** The session the dialog is open for (null: closed). */
  sessionId: string | null = $state(null);
  /** 0: until revoked. */
  expiresInDays = $state(7);
  includeThoughts = $state(false);
  includeToolIO = $state(false);
  publishing = $state(false);
  result: Share | null = $state.raw(null);
  error: ApiError | null = $state.raw(null);
  /** The last publish failed because sync is off or not set up. */
  needsSync = $state(false);

  constructor(
    private readonly client: Client,
    private readonly sync: SyncStore,
    private readonly toasts: ToastStore,
  ) {}

  /** Sync is known to be off (the dialog says so before publishing). */
  get syncOff(): boolean {
    return !!this.sync.status && !this.sync.status.enabled;
  }

  open(sessionId: string): void {
    this.sessionId = sessionId;
    this.result = null;
    this.error = null;
    this.needsSync = false;
    this.publishing = false;
    void this.sync.refresh();
  }

  close(): void {
    this.sessionId = null;
  }

  async publish(): Promise<Share | null> {
    const id = this.sessionId;
    if (!id || this.publishing) return null;
    this.publishing = true;
    this.error = null;
    this.needsSync = false;
    try {
      const share = await this.client.shares.publish(id, {
        expiresInDays: this.expiresInDays,
        includeThoughts: this.includeThoughts,
        includeToolIO: this.includeToolIO,
        ...(writePrefs.strictBreaks ? { strictBreaks: true } : {}),
      });
      if (this.sessionId === id) this.result = share;
      this.sync.added(share);
      return share;
    } catch (e) {
      const err = ApiError.from(e);
      if (this.sessionId === id) {
        this.error = err;
        const st = await this.sync.refresh();
        this.needsSync = isSyncOffError(err) || (!!st && !st.enabled);
      } else {
        this.toasts.error(m.share_publish_failed({ error: err.message }));
      }
      return null;
    } finally {
      this.publishing = false;
    }
  }
}
