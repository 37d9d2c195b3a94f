// A long session opens with its last entries (sessions.open with a
// limit); the earlier ones come after, a slice at a time, each slice
// parsed and put in front in tasks of their own so that no task of the
// open is long (issue 24: 20,000 entries, no main-thread task over 50 ms).

import type { Entry } from '../api/types';

/** Entries asked for first: the screen's worth and well more. */
export const OPEN_TAIL = 200;
/** Entries asked for in each slice after that (about 0.8 MB of JSON in
 * a 20,000-entry session: a few ms to parse). */
export const EARLIER_SLICE = 2000;

/**
 * Puts a slice of earlier entries in front of the model's. The model gets
 * the slice's entries it lacks; one it already has (an event about it came
 * while the slice was on its way) keeps the model's newer copy but moves to
 * its place in the slice. Returns the new order; `onNew` sees each entry
 * added to the model.
 */
export function prependEntries(
  model: Map<string, Entry>,
  order: readonly string[],
  slice: readonly (Entry | null | undefined)[],
  onNew?: (e: Entry) => void,
): string[] {
  const front: string[] = [];
  const seen = new Set<string>();
  let moved: Set<string> | null = null;
  for (const e of slice) {
    if (!e || typeof e.id !== 'string' || seen.has(e.id)) continue;
    seen.add(e.id);
    front.push(e.id);
    if (model.has(e.id)) (moved ??= new Set()).add(e.id);
    else {
      model.set(e.id, e);
      onNew?.(e);
    }
  }
  if (front.length === 0) return order.slice();
  const rest = moved ? order.filter((id) => !moved.has(id)) : order;
  return front.concat(rest);
}

/** Resolves in a task of its own (after what is queued now, rendering
 * included when a frame is due). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
