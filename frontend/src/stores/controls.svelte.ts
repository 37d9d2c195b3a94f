// What the open session's agent offers to set (session.svelte.ts owns an
// AgentControls): its modes, models, config options and slash commands,
// from the snapshot and meta events, and the switches, shown at once and
// undone when Go refuses them.

import type { Client } from '../api';
import type { Command, ConfigOption, MetaPayload, Mode, Model, ThreadSnapshot } from '../api/types';
import { m } from '../lib/i18n.svelte';

/** What the controls need of their session. */
export interface ControlsHost {
  /** The open session's id (null when none is). */
  id(): string | null;
  /** Tells a failure (an error notice worded by `what`). */
  fail(e: unknown, what: (p: { error: string }) => string): void;
}

export class AgentControls {
  modes: Mode[] = $state.raw([]);
  currentModeId = $state('');
  models: Model[] = $state.raw([]);
  currentModelId = $state('');
  configOptions: ConfigOption[] = $state.raw([]);
  commands: Command[] = $state.raw([]);

  constructor(
    private readonly client: Client,
    private readonly host: ControlsHost,
  ) {}

  clear(): void {
    this.modes = [];
    this.currentModeId = '';
    this.models = [];
    this.currentModelId = '';
    this.configOptions = [];
    this.commands = [];
  }

  /** All of them from a snapshot's thread. */
  load(t: ThreadSnapshot): void {
    this.modes = t.modes ?? [];
    this.currentModeId = t.currentModeId ?? '';
    this.models = t.models ?? [];
    this.currentModelId = t.currentModelId ?? '';
    this.configOptions = Array.isArray(t.configOptions) ? t.configOptions : [];
    this.commands = t.commands ?? [];
  }

  /** Those a meta event names. */
  meta(p: MetaPayload): void {
    if (p.modes !== undefined) this.modes = p.modes ?? [];
    if (p.currentModeId !== undefined) this.currentModeId = p.currentModeId ?? '';
    if (p.models !== undefined) this.models = p.models ?? [];
    if (p.currentModelId !== undefined) this.currentModelId = p.currentModelId ?? '';
    if (p.configOptions !== undefined) this.configOptions = Array.isArray(p.configOptions) ? p.configOptions : [];
    if (p.commands !== undefined) this.commands = p.commands ?? [];
  }

  /** Shows a change at once (show returns its undo) and asks Go for it;
   * the change is undone and the failure told if Go refuses. */
  private async optimistic(show: () => () => void, call: (id: string) => Promise<unknown>, what: (p: { error: string }) => string): Promise<void> {
    const id = this.host.id();
    if (!id) return;
    const undo = show();
    try {
      await call(id);
    } catch (e) {
      if (this.host.id() !== id) return;
      undo();
      this.host.fail(e, what);
    }
  }

  setMode(modeId: string): Promise<void> {
    const prev = this.currentModeId;
    return this.optimistic(
      () => ((this.currentModeId = modeId), () => (this.currentModeId = prev)),
      (id) => this.client.sessions.setMode(id, modeId),
      m.chat_fail_mode,
    );
  }

  /** Switches the model, whichever way the agent offers models: Go sends
   * session/set_config_option for a config option of category "model",
   * else the legacy session/set_model. Both are shown switched at once. */
  setModel(modelId: string): Promise<void> {
    const prev = this.currentModelId;
    const prevOptions = this.configOptions;
    let first = true; // the first select option of category model is the one Go sets
    const shown = prevOptions.map((o) => {
      if (!first || o?.category !== 'model' || o.type !== 'select') return o;
      first = false;
      return { ...o, currentValue: modelId };
    });
    return this.optimistic(
      () => {
        this.currentModelId = modelId;
        this.configOptions = shown;
        return () => {
          this.currentModelId = prev;
          this.configOptions = prevOptions;
        };
      },
      (id) => this.client.sessions.setModel(id, modelId),
      m.chat_fail_model,
    );
  }

  setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const prev = this.configOptions;
    return this.optimistic(
      () => ((this.configOptions = prev.map((o) => (o.id === configId ? { ...o, currentValue: value } : o))), () => (this.configOptions = prev)),
      (id) => this.client.sessions.setConfigOption(id, configId, value),
      m.chat_fail_setting,
    );
  }
}
