// The open session's thread (session.svelte.ts owns one): its entries by
// id, in order, and the agent's terminals, kept in a plain model that
// events change at once. What components read is updated from it at most
// once per animation frame (FrameBatcher), and then only for the entries
// that changed: each entry lives in its own EntryCell, so a streaming
// message re-renders alone.

import type { Entry, Terminal, TerminalPayload } from '../api/types';
import { FrameBatcher, type Scheduler } from '../lib/frame';
import { prependEntries } from './earlier';
import { EntryCell, keepTail } from './entrycell.svelte';

export class ThreadModel {
  // ---- what components read -----------------------------------------------
  /** Entry ids in thread order. */
  order: string[] = $state.raw([]);
  /** The agent's terminals by id (replaced, never mutated, on change). */
  terminals: ReadonlyMap<string, Terminal> = $state.raw(new Map());

  // ---- the model, updated at once -----------------------------------------
  private model = new Map<string, Entry>();
  private modelOrder: string[] = [];
  private cells = new Map<string, EntryCell>();
  private dirty = new Set<string>();
  /** Entries whose `streaming` is set (normally at most one). */
  private streamingIds = new Set<string>();
  private orderDirty = false;
  private termModel = new Map<string, Terminal>();
  private termDirty = false;
  private readonly batcher: FrameBatcher;

  constructor(schedule?: Scheduler) {
    this.batcher = new FrameBatcher(() => this.flushNow(), schedule);
  }

  // ---- reading -------------------------------------------------------------

  /** The reactive cell of an entry (undefined for an unknown id). Cells
   * are made when first asked for: a long session opens without making
   * one per entry (only what the list shows needs one). */
  cell(id: string): EntryCell | undefined {
    let c = this.cells.get(id);
    if (!c) {
      const e = this.model.get(id);
      if (!e) return undefined;
      c = new EntryCell({ ...e });
      this.cells.set(id, c);
    }
    return c;
  }

  /** The entry as the model holds it now (may be ahead of the cells). */
  entry(id: string): Entry | undefined {
    return this.model.get(id);
  }

  /** The id of the i-th entry, read without tracking (the virtual list
   * asks for every entry; the model's order is `order` once flushed:
   * entries append, and earlier ones go in front with `order` at once). */
  idAt(i: number): string | undefined {
    return this.modelOrder[i];
  }

  /** The i-th entry of the model, read without tracking. */
  entryAt(i: number): Entry | undefined {
    const id = this.modelOrder[i];
    return id === undefined ? undefined : this.model.get(id);
  }

  /** The entries in order, from the model. */
  entries(): Entry[] {
    return this.modelOrder.map((id) => this.model.get(id)!);
  }

  // ---- replacing -------------------------------------------------------------

  /** Forgets every entry and terminal (a change not yet flushed too). */
  clear(): void {
    this.batcher.cancel();
    this.model = new Map();
    this.modelOrder = [];
    this.cells = new Map();
    this.dirty.clear();
    this.streamingIds.clear();
    this.orderDirty = false;
    this.termModel = new Map();
    this.termDirty = false;
    this.terminals = new Map();
    this.order = [];
  }

  /** Replaces the thread with a snapshot's entries and terminals. Returns
   * the turn of the last plan entry (0 without one). */
  load(entries: readonly (Entry | null | undefined)[], terminals: readonly (Terminal | null | undefined)[]): number {
    this.batcher.cancel();
    const model = new Map<string, Entry>();
    const order: string[] = [];
    let planTurn = 0;
    this.streamingIds.clear();
    // The snapshot's entries are ours (freshly parsed): the model keeps
    // them as they are; cells are made when the list shows an entry.
    for (const e of entries) {
      if (!e || typeof e.id !== 'string') continue;
      if (!model.has(e.id)) order.push(e.id);
      model.set(e.id, e);
      if (e.streaming) this.streamingIds.add(e.id);
      if (e.kind === 'plan') planTurn = e.turn;
    }
    this.model = model;
    this.cells = new Map();
    this.modelOrder = order;
    this.dirty.clear();
    this.orderDirty = false;
    this.order = order.slice();
    this.termModel = new Map();
    for (const term of terminals) {
      if (term && typeof term.terminalId === 'string') this.termModel.set(term.terminalId, { ...term, output: term.output ?? '' });
    }
    this.termDirty = false;
    this.terminals = new Map(this.termModel);
    return planTurn;
  }

  /** Puts a slice of earlier entries in front (stores/earlier.ts), with
   * `order` at once; `onNew` sees each entry added to the model. Returns
   * whether the thread grew. */
  prepend(slice: readonly (Entry | null | undefined)[], onNew?: (e: Entry) => void): boolean {
    const order = prependEntries(this.model, this.modelOrder, slice, (e) => {
      if (e.streaming) this.streamingIds.add(e.id);
      onNew?.(e);
    });
    const grew = order.length > this.modelOrder.length;
    this.modelOrder = order;
    this.orderDirty = false;
    this.order = order.slice();
    return grew;
  }

  // ---- changing --------------------------------------------------------------

  /** Adds an entry or replaces the one with its id. */
  upsert(e: Entry): void {
    if (!e || typeof e.id !== 'string') return;
    const had = this.model.has(e.id);
    this.model.set(e.id, { ...e });
    if (!had) {
      // A new entry ends the streaming of the one before it (API.md: the
      // thread closes it without an event of its own).
      this.endStreaming(e.id);
      this.modelOrder.push(e.id);
      this.orderDirty = true;
    }
    if (e.streaming) this.streamingIds.add(e.id);
    else this.streamingIds.delete(e.id);
    this.markDirty(e.id);
  }

  /** Appends text to an entry (nothing for an unknown one). */
  append(entryId: string, delta: string | undefined): void {
    const e = this.model.get(entryId);
    if (!e) return;
    e.text = (e.text ?? '') + (delta ?? '');
    this.markDirty(e.id);
  }

  /** Clears `streaming` on every entry but `except`. */
  endStreaming(except?: string): void {
    for (const id of this.streamingIds) {
      if (id === except) continue;
      const m = this.model.get(id);
      if (m) {
        m.streaming = false;
        this.markDirty(id);
      }
      this.streamingIds.delete(id);
    }
  }

  /** A terminal's new state; the state event carries no output, so what
   * came before is kept. */
  setTerminal(p: TerminalPayload): void {
    const old = this.termModel.get(p.terminalId);
    this.termModel.set(p.terminalId, { ...p, output: old?.output ?? '' });
    this.markTerminals();
  }

  /** Output of a terminal (one not known yet is made, in `turn`). */
  terminalOutput(terminalId: string, data: string, turn: number): void {
    const old = this.termModel.get(terminalId) ?? { terminalId, turn, command: '', output: '' };
    this.termModel.set(terminalId, { ...old, output: keepTail(old.output + data) });
    this.markTerminals();
  }

  private markTerminals(): void {
    this.termDirty = true;
    this.batcher.request();
  }

  private markDirty(id: string): void {
    this.dirty.add(id);
    this.batcher.request();
  }

  /** Pushes the model's changes to the cells now (normally once a frame). */
  flush(): void {
    this.batcher.flush();
  }

  private flushNow(): void {
    for (const id of this.dirty) {
      const e = this.model.get(id);
      if (!e) continue;
      // Entries without a cell get one when shown.
      const cell = this.cells.get(id);
      if (cell) cell.v = { ...e };
    }
    this.dirty.clear();
    if (this.orderDirty) {
      this.orderDirty = false;
      this.order = this.modelOrder.slice();
    }
    if (this.termDirty) {
      this.termDirty = false;
      this.terminals = new Map(this.termModel);
    }
  }
}
