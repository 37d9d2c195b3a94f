// Sync settings (issue 7): the status Go reports, the control plane URL and
// token, turning sync on and off, titles, "Sync now", "Remove my data", and
// the shares published from this account.
//
// Sync is off until the user turns it on. With it off the page asks Go for
// nothing that connects anywhere: sync.status reads local state only, and
// shares are listed only while sync is on.

import { ApiError, type Client } from '../api';
import type { RemovedData, Share, SyncConfigInput, SyncStatus } from '../api/types';
import { m } from '../lib/i18n.svelte';
import type { ConfirmStore } from './confirm.svelte';
import type { ToastStore } from './toasts.svelte';

export type SyncAction = 'configure' | 'enable' | 'disable' | 'titles' | 'now' | 'remove';

export interface SyncOptions {
  /** How often the status is refreshed while the settings are shown (ms). */
  pollMs?: number;
}

/** A failure that means "turn sync on (or set it up) first". */
export function isSyncOffError(e: unknown): boolean {
  const err = ApiError.from(e);
  return /sync is (off|not set up)/i.test(err.message);
}

export class SyncStore {
  status: SyncStatus | null = $state.raw(null);
  /** sync.status failed: sync is unavailable on the Go side (the message says why). */
  error: ApiError | null = $state.raw(null);
  /** The action running now (its button waits). */
  busy: SyncAction | null = $state(null);
  /** Why the last action failed (shown beside the form). */
  actionError: ApiError | null = $state.raw(null);
  shares: Share[] = $state.raw([]);
  sharesLoaded = $state(false);
  sharesLoading = $state(false);
  sharesError: ApiError | null = $state.raw(null);
  /** The settings dialog is open. */
  settingsOpen = $state(false);

  private readonly pollMs: number;
  private watchers = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
    private readonly confirm: ConfirmStore,
    opts: SyncOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 2000;
  }

  get enabled(): boolean {
    return !!this.status?.enabled;
  }

  get configured(): boolean {
    return !!this.status?.configured;
  }

  openSettings(): void {
    this.settingsOpen = true;
  }

  closeSettings(): void {
    this.settingsOpen = false;
  }

  /** Reads the status (local state only: no connection is made). */
  async refresh(): Promise<SyncStatus | null> {
    try {
      const st = await this.client.sync.status();
      this.apply(st);
      this.error = null;
      return st;
    } catch (e) {
      this.error = ApiError.from(e);
      return null;
    }
  }

  private apply(st: SyncStatus): void {
    this.status = st;
    if (!st.enabled) {
      // Off: nothing is listed (listing would contact the control plane).
      this.shares = [];
      this.sharesLoaded = false;
      this.sharesError = null;
    } else if (this.watchers > 0 && !this.sharesLoaded) {
      // On, and the settings are shown: list the shares once.
      void this.loadShares();
    }
  }

  /** Runs one action: busy while it runs, its failure in actionError. */
  private async act<T>(what: SyncAction, fn: () => Promise<T>): Promise<T | null> {
    if (this.busy) return null;
    this.busy = what;
    this.actionError = null;
    try {
      return await fn();
    } catch (e) {
      this.actionError = ApiError.from(e);
      return null;
    } finally {
      this.busy = null;
    }
  }

  /** Saves the URL, the token (omitted: keep the saved one) and the titles choice. */
  async configure(input: SyncConfigInput): Promise<boolean> {
    const url = input.url.trim();
    if (!url) {
      this.actionError = new ApiError('bad_request', m.share_sync_url_needed());
      return false;
    }
    const token = input.token?.trim();
    if (!token && !this.configured) {
      this.actionError = new ApiError('bad_request', m.share_sync_token_needed());
      return false;
    }
    const st = await this.act('configure', () =>
      this.client.sync.configure({ url, allowTitles: input.allowTitles, ...(token ? { token } : {}) }),
    );
    if (!st) return false;
    this.apply(st);
    this.toasts.show({ message: token ? m.share_sync_saved_token() : m.share_sync_saved() });
    return true;
  }

  async setEnabled(on: boolean): Promise<boolean> {
    const st = await this.act(on ? 'enable' : 'disable', () => this.client.sync.enable(on));
    if (!st) return false;
    this.apply(st);
    return true;
  }

  async setAllowTitles(allow: boolean): Promise<boolean> {
    const st = await this.act('titles', () => this.client.sync.allowTitles(allow));
    if (!st) return false;
    this.apply(st);
    return true;
  }

  async syncNow(): Promise<boolean> {
    const st = await this.act('now', () => this.client.sync.now());
    if (!st) {
      void this.refresh(); // the failure is recorded in the status too
      return false;
    }
    this.apply(st);
    return true;
  }

  /** Asks first, then deletes this account's records and shares on the control plane (sync goes off). */
  async removeMyData(): Promise<RemovedData | null> {
    const answer = await this.confirm.ask({
      title: m.share_remove_data_title(),
      message: m.share_remove_data_message(),
      buttons: [
        { label: m.common_cancel(), value: 'cancel', kind: 'plain' },
        { label: m.share_remove_data_button(), value: 'remove', kind: 'danger' },
      ],
    });
    if (answer !== 'remove') return null;
    const r = await this.act('remove', () => this.client.sync.removeMyData());
    await this.refresh();
    if (!r) return null;
    this.toasts.show({
      message: m.share_removed_data({ sessions: r.sessions, shares: r.shares }),
      timeoutMs: 8000,
    });
    return r;
  }

  /** Lists this account's shares (only while sync is on). */
  async loadShares(): Promise<void> {
    if (!this.enabled || this.sharesLoading) return;
    this.sharesLoading = true;
    try {
      this.shares = await this.client.shares.list();
      this.sharesError = null;
      this.sharesLoaded = true;
    } catch (e) {
      this.sharesError = ApiError.from(e);
    } finally {
      this.sharesLoading = false;
    }
  }

  /** Asks first, then revokes a share: its link stops working at once. */
  async revoke(share: Share): Promise<boolean> {
    const answer = await this.confirm.ask({
      title: m.share_revoke_title(),
      message: m.share_revoke_message({ url: share.url ?? share.id }),
      buttons: [
        { label: m.common_cancel(), value: 'cancel', kind: 'plain' },
        { label: m.share_revoke_button(), value: 'revoke', kind: 'danger' },
      ],
    });
    if (answer !== 'revoke') return false;
    try {
      await this.client.shares.revoke(share.id);
    } catch (e) {
      this.toasts.error(m.share_revoke_failed({ error: ApiError.from(e).message }));
      return false;
    }
    this.shares = this.shares.filter((s) => s.id !== share.id);
    this.toasts.show({ message: m.share_revoked() });
    return true;
  }

  /** Records a share just published (the list shows it without a refetch). */
  added(share: Share): void {
    if (this.sharesLoaded && !this.shares.some((s) => s.id === share.id)) this.shares = [share, ...this.shares];
  }

  /** Refreshes the status every pollMs while at least one watcher (the settings dialog) is
   * there, and lists the shares while sync is on. */
  watch(): () => void {
    if (this.enabled && !this.sharesLoaded) void this.loadShares();
    if (this.watchers++ === 0) {
      this.timer = setInterval(() => {
        if (this.enabled && !this.busy) void this.refresh();
      }, this.pollMs);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.watchers === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }
}
