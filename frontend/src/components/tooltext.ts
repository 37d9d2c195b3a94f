// Labels and helpers shared by tool cards and the permission dialog.
import type { ContentBlock, Location } from '../api/types';

export const STATUS_LABEL: Record<string, string> = {
  pending: 'Pending',
  awaiting_permission: 'Needs permission',
  in_progress: 'Running',
  completed: 'Done',
  failed: 'Failed',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
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

export const KIND_LABEL: Record<string, string> = {
  read: 'Read',
  edit: 'Edit',
  delete: 'Delete',
  move: 'Move',
  search: 'Search',
  execute: 'Run command',
  think: 'Think',
  fetch: 'Fetch',
  switch_mode: 'Switch mode',
  other: 'Tool',
};

export const DECISION_LABEL: Record<string, string> = {
  allow_once: 'Allowed once',
  allow_always: 'Always allowed',
  reject_once: 'Rejected',
  reject_always: 'Always rejected',
  cancelled: 'Cancelled',
};

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
  if (b.type === 'resource_link') return { text: `${b.name || b.uri || 'resource'}`, plain: false };
  if (b.type === 'resource') {
    const r = b.resource as { uri?: string; text?: string } | undefined;
    if (r?.text) return { text: r.text, plain: true };
    return { text: r?.uri ?? 'resource', plain: false };
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
