// The stores of the settings (sync, remembered permissions), export/share
// and agent-login features, beside the app's own: one set per AppState,
// made on first use.

import { getApp, type AppState } from './app.svelte';
import { ExportStore, type Downloader } from './exports.svelte';
import { AgentLoginStore } from './login.svelte';
import { RulesStore } from './rules.svelte';
import { ShareStore } from './share.svelte';
import { SharedStore } from './shared.svelte';
import { SyncStore, type SyncOptions } from './sync.svelte';

export interface FeatureOptions extends SyncOptions {
  /** Saves an export's content from the page (tests pass a fake). */
  download?: Downloader;
}

export class Features {
  readonly sync: SyncStore;
  readonly share: ShareStore;
  readonly exports: ExportStore;
  readonly login: AgentLoginStore;
  readonly rules: RulesStore;
  readonly shared: SharedStore;

  constructor(app: AppState, opts: FeatureOptions = {}) {
    this.sync = new SyncStore(app.client, app.toasts, app.confirm, opts);
    this.share = new ShareStore(app.client, this.sync, app.toasts);
    this.exports = new ExportStore(app.client, app.toasts, opts.download);
    this.login = new AgentLoginStore(app.client, app.agents, app.toasts, app.confirm);
    this.rules = new RulesStore(app.client, app.toasts);
    this.shared = new SharedStore(app.client);
  }
}

const made = new WeakMap<AppState, Features>();

/** The features' stores of an app (the app's own by default), made on first use. */
export function getFeatures(app: AppState = getApp()): Features {
  let f = made.get(app);
  if (!f) made.set(app, (f = new Features(app)));
  return f;
}

/** Installs the features' stores of an app (tests: a fake downloader, a short poll). */
export function setFeatures(app: AppState, f: Features): void {
  made.set(app, f);
}
