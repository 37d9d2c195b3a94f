// The remembered "always" permission decisions (Settings): listed from Go
// and revoked one by one; a revoked kind asks again.

import { ApiError, type Client } from '../api';
import type { PermissionRule } from '../api/types';
import { m } from '../lib/i18n.svelte';
import type { ToastStore } from './toasts.svelte';

export class RulesStore {
  rules: PermissionRule[] = $state.raw([]);
  loaded = $state(false);
  loading = $state(false);
  error: ApiError | null = $state.raw(null);

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
  ) {}

  async load(): Promise<void> {
    this.loading = true;
    try {
      this.rules = await this.client.permissions.rules();
      this.error = null;
      this.loaded = true;
    } catch (e) {
      this.error = ApiError.from(e);
    } finally {
      this.loading = false;
    }
  }

  async revoke(r: PermissionRule): Promise<boolean> {
    try {
      await this.client.permissions.revoke(r);
    } catch (e) {
      this.toasts.error(ApiError.from(e).message);
      return false;
    }
    this.rules = this.rules.filter((x) => !(x.agent === r.agent && x.workspace === r.workspace && x.toolKind === r.toolKind));
    this.toasts.show({ message: () => m.app_rule_revoked({ kind: r.toolKind }) });
    return true;
  }
}
