// Labels and helpers shared by tool cards and the permission dialog.
import type { ContentBlock, Location } from '../api/types';
import { m } from '../lib/i18n.svelte';

// Labels are message functions (called while rendering, so they follow the
// interface language at once); the tables below are read through getters.
const STATUS_MSG: Record<string, () => string> = {
  pending: m.chat_tool_status_pending,
  awaiting_permission: m.chat_tool_status_awaiting_permission,
  in_progress: m.chat_running,
  completed: m.common_done,
  failed: m.common_failed,
  rejected: m.chat_tool_status_rejected,
  cancelled: m.chat_cancelled,
};

export const STATUS_TONE: Record<string, string> = {
  pending: '',
  awaiting_permission: 'warn',
  in_progress: 'accent',
  completed: 'ok',
  failed: 'err',
  rejected: 'err',
  cancelled: '',
};

const KIND_MSG: Record<string, () => string> = {
  read: m.chat_kind_read,
  edit: m.common_edit,
  delete: m.common_delete,
  move: m.chat_kind_move,
  search: m.common_search,
  execute: m.chat_kind_execute,
  think: m.chat_kind_think,
  fetch: m.chat_kind_fetch,
  switch_mode: m.chat_kind_switch_mode,
  other: m.chat_kind_other,
};

const DECISION_MSG: Record<string, () => string> = {
  allow_once: m.chat_decision_allow_once,
  allow_always: m.chat_decision_allow_always,
  reject_once: m.chat_tool_status_rejected,
  reject_always: m.chat_decision_reject_always,
  cancelled: m.chat_cancelled,
};

/** A table whose values are read through getters (each read calls the
 * message in the current locale): `T[key] ?? fallback` keeps working. */
function live(msgs: Record<string, () => string>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, f] of Object.entries(msgs)) Object.defineProperty(out, k, { get: f, enumerable: true });
  return out;
}

function pick(msgs: Record<string, () => string>, key: string | undefined): string | undefined {
  return key !== undefined && Object.prototype.hasOwnProperty.call(msgs, key) ? msgs[key]() : undefined;
}

/** A tool call's status, in the interface language (the raw status when unknown). */
export function statusLabel(status: string): string {
  return pick(STATUS_MSG, status) ?? status;
}

/** What kind of tool a call is ("Read", "Run command"); '' when unknown. */
export function kindLabel(kind: string | undefined): string {
  return pick(KIND_MSG, kind) ?? '';
}

/** A permission decision ("Allowed once"), the raw value when unknown. */
export function decisionLabel(decision: string): string {
  return pick(DECISION_MSG, decision) ?? decision;
}

/** The labels as tables (read while rendering). Prefer statusLabel,
 * kindLabel and decisionLabel. */
export const STATUS_LABEL = live(STATUS_MSG);
export const KIND_LABEL = live(KIND_MSG);
export const DECISION_LABEL = live(DECISION_MSG);

/** The command line of an execute call's rawInput ({command} or {cmd}, string or argv). */
export function commandOf(raw: unknown): string {
  if (!raw || typeof raw !== 'object') return '';
  const r = raw as Record<string, unknown>;
  const c = r.command ?? r.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(String).join(' ');
  return '';
}

export function locationLabel(l: Location): string {
  const base = l.path.split(/[\\/]/).pop() || l.path;
  return typeof l.line === 'number' ? `${base}:${l.line}` : base;
}

/** Text of a content block, or a short description of a non-text one. */
export function blockText(b: ContentBlock | null | undefined): { text: string; plain: boolean } {
  if (!b) return { text: '', plain: true };
  if (b.type === 'text') return { text: b.text ?? '', plain: true };
  if (b.type === 'resource_link') return { text: `${b.name || b.uri || m.chat_block_resource()}`, plain: false };
  if (b.type === 'resource') {
    const r = b.resource as { uri?: string; text?: string } | undefined;
    if (r?.text) return { text: r.text, plain: true };
    return { text: r?.uri ?? m.chat_block_resource(), plain: false };
  }
  return { text: b.type, plain: false };
}

const RASTER = /^image\/(png|jpeg|gif|webp|avif)$/;

/** A data: URL for an inline raster image block, or ''. */
export function imageSrc(b: { mimeType?: string; data?: string } | null | undefined): string {
  if (!b || !b.data || !b.mimeType || !RASTER.test(b.mimeType)) return '';
  if (!/^[A-Za-z0-9+/=\s]+$/.test(b.data)) return '';
  return `data:${b.mimeType};base64,${b.data}`;
}
