// Shared sessions in the window: a shared session's log with each entry's
// actor, who runs now and who waits, who is viewing, this account's role;
// the members (Share dialog) and this account's devices and pairing
// (Settings → Devices). Go sends codes; components word them.

import { SvelteMap } from 'svelte/reactivity';
import { ApiError, type Client } from '../api';
import type {
  LeaseInfo,
  PairStep,
  QueuedRun,
  SharedDevices,
  SharedEntry,
  SharedEvent,
  SharedMembers,
  SharedRole,
  SharedState,
} from '../api/shared';

/** One shared session as its tab shows it. */
export class SharedView {
  state: SharedState = $state.raw({ shared: false, members: [], entries: [] });
  entries: SharedEntry[] = $state.raw([]);
  lease: LeaseInfo | null = $state.raw(null);
  queue: QueuedRun[] = $state.raw([]);
  viewers: string[] = $state.raw([]);
  /** This machine's prompt waits at this position (0: not waiting). */
  waiting = $state(0);
  revoked = $state(false);
  error: ApiError | null = $state.raw(null);
  /** This machine's turns by run id (their full entries are in the local thread). */
  runs: Record<string, number> = $state.raw({});

  get role(): SharedRole | '' {
    return this.state.role ?? '';
  }
  get canRun(): boolean {
    return !this.revoked && (this.role === 'owner' || this.role === 'editor');
  }
  get canComment(): boolean {
    return !this.revoked && this.role === 'commenter';
  }
  /** Members whose devices changed (sending waits until accepted). */
  get keysChanged(): string[] {
    return this.state.members.filter((m) => m.keysChanged && m.account !== this.state.account).map((m) => m.account);
  }

  apply(ev: SharedEvent): void {
    switch (ev.type) {
      case 'entry': {
        const e = ev.entry;
        const last = this.entries[this.entries.length - 1];
        if (e && (!last || e.seq > last.seq)) this.entries = [...this.entries, e];
        else if (e && !e.unreadable) {
          // Opened once its epoch's key came: in the place of the one
          // that could not be opened.
          const i = this.entries.findIndex((x) => x.seq === e.seq);
          if (i >= 0 && this.entries[i].unreadable) this.entries = this.entries.map((x, j) => (j === i ? e : x));
        }
        break;
      }
      case 'run':
        if (ev.run?.runId && ev.run.turn > 0) this.runs = { ...this.runs, [ev.run.runId]: ev.run.turn };
        break;
      case 'lease':
        this.lease = ev.lease ?? null;
        this.queue = ev.queue ?? [];
        break;
      case 'presence':
        this.viewers = [...new Set((ev.viewers ?? []).map((v) => v.account))];
        break;
      case 'queued':
        this.waiting = ev.position ?? 0;
        break;
      case 'granted':
        this.waiting = 0;
        break;
      case 'revoked':
        // Nothing live any more: who runs, waits or views is not ours to see.
        this.revoked = true;
        this.lease = null;
        this.queue = [];
        this.viewers = [];
        this.waiting = 0;
        break;
    }
  }
}

/** Turns of a shared log: each prompt with what followed it. */
export interface SharedTurn {
  key: string;
  actor: string;
  prompt: SharedEntry | null;
  entries: SharedEntry[];
}

/** Groups a shared log into turns (by run; comments and unreadable entries stand alone). */
export function sharedTurns(entries: readonly SharedEntry[]): SharedTurn[] {
  const out: SharedTurn[] = [];
  const byRun = new Map<string, SharedTurn>();
  for (const e of entries) {
    if (e.unreadable || !e.runId || e.kind === 'comment') {
      out.push({ key: `s${e.seq}`, actor: e.actor, prompt: null, entries: [e] });
      continue;
    }
    let t = byRun.get(e.runId);
    if (!t) {
      t = { key: e.runId, actor: e.actor, prompt: null, entries: [] };
      byRun.set(e.runId, t);
      out.push(t);
    }
    if (e.kind === 'prompt') t.prompt = e;
    else t.entries.push(e);
  }
  return out;
}

/** The items of a turn as shown: answer appends joined, each tool call's latest state. */
export function turnItems(entries: readonly SharedEntry[]): SharedEntry[] {
  const out: SharedEntry[] = [];
  const tools = new Map<string, number>();
  for (const e of entries) {
    const prev = out[out.length - 1];
    if ((e.kind === 'answer' || e.kind === 'thought') && prev && prev.kind === e.kind && !prev.unreadable && !e.unreadable) {
      out[out.length - 1] = { ...prev, Entry: { ...prev.Entry, text: (prev.Entry.text ?? '') + (e.Entry.text ?? '') } };
      continue;
    }
    const id = e.kind === 'tool' ? e.Entry.tool?.toolCallId : undefined;
    if (id && tools.has(id)) {
      out[tools.get(id)!] = e;
      continue;
    }
    if (id) tools.set(id, out.length);
    out.push(e);
  }
  return out;
}

export class SharedStore {
  readonly views = new SvelteMap<string, SharedView>();
  /** The Share dialog's members (null: not shared, or not read yet). */
  members: SharedMembers | null = $state.raw(null);
  membersFor = $state('');
  membersError: ApiError | null = $state.raw(null);
  membersBusy = $state(false);
  devices: SharedDevices | null = $state.raw(null);
  devicesError: ApiError | null = $state.raw(null);
  /** The pairing or joining under way, step by step. */
  pair: PairStep | null = $state.raw(null);
  pairError: ApiError | null = $state.raw(null);
  /** A safety number shown, by account. */
  safety = new SvelteMap<string, string>();

  constructor(private readonly client: Client) {
    // (Test doubles of the client may have no events.)
    if (typeof client.on === 'function') client.on('shared:event', (ev) => this.apply(ev));
  }

  view(id: string): SharedView | undefined {
    return this.views.get(id);
  }

  apply(ev: SharedEvent | null | undefined): void {
    if (!ev) return;
    if (ev.type === 'pair') {
      if (ev.pair) this.pair = ev.pair;
      return;
    }
    const id = ev.sessionId ?? '';
    const v = this.views.get(id);
    if (v) v.apply(ev);
    if (ev.type === 'members' && v) void this.open(id);
    if (ev.type === 'revoked' && this.membersFor === id) this.members = null;
  }

  /** Reads a session's shared state (and starts following it on the Go side). */
  async open(id: string): Promise<SharedView | undefined> {
    let v = this.views.get(id);
    try {
      const st = await this.client.shared.state(id);
      if (!st.shared) {
        this.views.delete(id);
        return undefined;
      }
      if (!v) {
        v = new SharedView();
        this.views.set(id, v);
      }
      v.state = st;
      v.revoked = !!st.revoked;
      v.runs = { ...v.runs, ...st.runs };
      // The transcript's entries, and live ones that came meanwhile.
      const bySeq = new Map<number, SharedEntry>();
      for (const e of [...st.entries, ...v.entries]) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
      v.entries = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
      v.error = null;
      return v;
    } catch (e) {
      if (v) v.error = ApiError.from(e);
      return v;
    }
  }

  /** Stops following a session (its tab closed). */
  async close(id: string): Promise<void> {
    this.views.delete(id);
    try {
      await this.client.shared.close(id);
    } catch {
      // nothing to follow any more
    }
  }

  /** Makes the sessions shared with this account appear in the list (each
   * is recorded here; followed only once its tab opens). */
  async discover(): Promise<void> {
    let list;
    try {
      list = await this.client.shared.sessions();
    } catch {
      return; // sync off: nothing shared
    }
    for (const s of list) {
      if (this.views.has(s.session.id)) continue;
      try {
        await this.client.shared.state(s.session.id, true);
      } catch {
        // offline or refused: the next look tries again
      }
    }
  }

  async comment(id: string, text: string): Promise<boolean> {
    try {
      await this.client.shared.comment(id, text);
      return true;
    } catch (e) {
      const v = this.views.get(id);
      if (v) v.error = ApiError.from(e);
      return false;
    }
  }

  // ---- members (the Share dialog) -------------------------------------------

  async loadMembers(id: string): Promise<void> {
    this.membersFor = id;
    this.members = null;
    this.membersError = null;
    try {
      const st = await this.client.shared.state(id);
      if (this.membersFor !== id) return;
      if (st.shared && !st.revoked) {
        this.members = { account: st.account ?? '', owner: st.owner ?? '', role: st.role ?? '', members: st.members };
      }
    } catch (e) {
      if (this.membersFor === id) this.membersError = ApiError.from(e);
    }
  }

  private async membersOp(id: string, op: () => Promise<SharedMembers>): Promise<boolean> {
    this.membersBusy = true;
    this.membersError = null;
    try {
      const ms = await op();
      if (this.membersFor === id) this.members = ms;
      void this.open(id);
      return true;
    } catch (e) {
      if (this.membersFor === id) this.membersError = ApiError.from(e);
      return false;
    } finally {
      this.membersBusy = false;
    }
  }

  share(id: string): Promise<boolean> {
    return this.membersOp(id, () => this.client.shared.share(id));
  }
  add(id: string, account: string, role: SharedRole): Promise<boolean> {
    return this.membersOp(id, () => this.client.shared.add(id, account.trim(), role));
  }
  setRole(id: string, account: string, role: SharedRole): Promise<boolean> {
    return this.membersOp(id, () => this.client.shared.setRole(id, account, role));
  }
  remove(id: string, account: string): Promise<boolean> {
    return this.membersOp(id, () => this.client.shared.remove(id, account));
  }

  // ---- keys ------------------------------------------------------------------

  async safetyNumber(account: string): Promise<string> {
    try {
      const r = await this.client.shared.safetyNumber(account);
      this.safety.set(account, r.number);
      return r.number;
    } catch (e) {
      this.devicesError = ApiError.from(e);
      return '';
    }
  }

  async acceptKeys(id: string, account: string): Promise<boolean> {
    try {
      await this.client.shared.acceptKeys(account);
      await this.open(id);
      return true;
    } catch (e) {
      const v = this.views.get(id);
      if (v) v.error = ApiError.from(e);
      return false;
    }
  }

  // ---- devices (Settings → Devices) ------------------------------------------

  async loadDevices(): Promise<void> {
    this.devicesError = null;
    try {
      this.devices = await this.client.shared.devices();
    } catch (e) {
      this.devices = null;
      this.devicesError = ApiError.from(e);
    }
  }

  async startPair(): Promise<void> {
    this.pairError = null;
    this.pair = null;
    try {
      this.pair = await this.client.shared.pair();
    } catch (e) {
      this.pairError = ApiError.from(e);
    }
  }

  async join(code: string): Promise<void> {
    this.pairError = null;
    this.pair = { state: 'code', role: 'join', code: code.trim() };
    try {
      await this.client.shared.join(code.trim());
    } catch (e) {
      this.pair = null;
      this.pairError = ApiError.from(e);
    }
  }

  async confirmPair(same: boolean): Promise<void> {
    try {
      await this.client.shared.pairConfirm(same);
    } catch (e) {
      this.pairError = ApiError.from(e);
    }
    if (!same) this.pair = null;
  }

  endPair(): void {
    if (this.pair && this.pair.state !== 'done' && this.pair.state !== 'failed') void this.client.shared.pairConfirm(false).catch(() => {});
    this.pair = null;
    void this.loadDevices();
  }

  async removeDevice(id: string): Promise<void> {
    try {
      this.devices = await this.client.shared.removeDevice(id);
    } catch (e) {
      this.devicesError = ApiError.from(e);
    }
  }
}
