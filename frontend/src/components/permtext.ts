// What the permission dialog and the tool cards say about a request and
// its decision: the option Enter picks, what each option is called, a
// readable title, file labels relative to the notes folder, and a card's
// status that agrees with the decision and with the turn.
import type { PermissionOption, RawToolCall, ToolCall } from '../api/types';
import { LOCALES, m } from '../lib/i18n.svelte';
import { STATUS_TONE, commandOf, decisionLabel, kindLabel, statusLabel } from './tooltext';

/** A one-time option: what Enter may pick (never an always-choice). */
export function isOnce(o: PermissionOption): boolean {
  return o.kind === 'allow_once' || o.kind === 'reject_once';
}

/**
 * The option the dialog focuses and Enter picks: the agent's first
 * allow_once, else its first reject_once; -1 when it offers neither (then
 * every choice needs a click or arrow + Enter on it).
 */
export function defaultOption(options: readonly PermissionOption[]): number {
  const allow = options.findIndex((o) => o.kind === 'allow_once');
  return allow >= 0 ? allow : options.findIndex((o) => o.kind === 'reject_once');
}

/** The wording of each ACP option kind, in a given locale. */
const OPTION_MSG: Record<string, (locale?: (typeof LOCALES)[number]) => string> = {
  allow_once: (locale) => m.chat_perm_opt_allow_once({}, locale ? { locale } : {}),
  allow_always: (locale) => m.chat_perm_opt_allow_always({}, locale ? { locale } : {}),
  reject_once: (locale) => m.chat_perm_opt_reject_once({}, locale ? { locale } : {}),
  reject_always: (locale) => m.chat_perm_opt_reject_always({}, locale ? { locale } : {}),
};

/** Names an agent may give a kind that say just what it does (besides
 * the catalogue's wordings): no need to show them beside it. They are
 * matched against the agent's names, never shown (i18n-ignore below). */
const OPTION_ALIASES: Record<string, readonly string[]> = {
  allow_once: ['allow', 'allow once', 'yes'], // i18n-ignore: matched, not shown
  allow_always: ['always allow', 'allow always'], // i18n-ignore: matched, not shown
  reject_once: ['reject', 'reject once', 'deny', 'no'], // i18n-ignore: matched, not shown
  reject_always: ['always reject', 'reject always', 'always deny'], // i18n-ignore: matched, not shown
};

export interface OptionLabel {
  /** What the button says: the kind's wording, never the agent's name. */
  label: string;
  /** The agent's own name for it, quoted, when it says something else ('' when not). */
  detail: string;
  /** A sentence for the tooltip ('' when there is nothing to add). */
  hint: string;
  /** A kind ACP defines (else the dialog knows nothing of what it does). */
  known: boolean;
}

/**
 * How an option is shown: worded by its kind, as the kind is what mnote
 * and the agent act on (an allow_always named "Allow once" is remembered
 * for good), with the agent's name beside it when it differs. A kind ACP
 * does not define reads as "Other choice" with the agent's name, and is
 * never taken for a one-time or an always-choice.
 */
export function optionLabel(o: PermissionOption): OptionLabel {
  const name = (o.name ?? '').trim();
  const word = Object.prototype.hasOwnProperty.call(OPTION_MSG, o.kind) ? OPTION_MSG[o.kind] : undefined;
  if (!word) {
    const shown = name || o.optionId;
    return {
      label: m.chat_perm_opt_other(),
      detail: m.chat_perm_opt_quote({ name: shown }),
      hint: m.chat_perm_opt_unknown({ name: shown, kind: o.kind }),
      known: false,
    };
  }
  const label = word();
  const same = (s: string) => s.toLowerCase() === name.toLowerCase();
  if (!name || OPTION_ALIASES[o.kind].some(same) || LOCALES.some((l) => same(word(l)))) {
    return { label, detail: '', hint: '', known: true };
  }
  return { label, detail: m.chat_perm_opt_quote({ name }), hint: m.chat_perm_opt_named({ name }), known: true };
}

/** Text that is a JSON object or array (some agents put raw input in the title). */
export function looksLikeJSON(s: string): boolean {
  const v = s.trim();
  if (!(v.startsWith('{') && v.endsWith('}')) && !(v.startsWith('[') && v.endsWith(']'))) return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}

function norm(p: string): { abs: boolean; parts: string[] } {
  const s = p.replace(/\\/g, '/');
  const abs = s.startsWith('/') || /^[A-Za-z]:\//.test(s);
  const parts: string[] = [];
  for (const seg of s.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length && parts[parts.length - 1] !== '..') parts.pop();
      else parts.push('..');
    } else parts.push(seg);
  }
  return { abs, parts };
}

/**
 * How a path is shown: relative to the notes folder (root) when inside it,
 * else the full path with outside set. A relative path is taken as under
 * the root; one that climbs out of it ("../x") is outside.
 */
export function pathLabel(path: string, root: string | undefined): { label: string; outside: boolean } {
  if (!path) return { label: '', outside: false };
  const p = norm(path);
  if (!p.abs) {
    const outside = p.parts[0] === '..';
    if (outside && root) return pathLabel(root.replace(/[\\/]+$/, '') + '/' + path, root);
    return { label: p.parts.join('/') || '.', outside };
  }
  if (!root) return { label: path, outside: false };
  const r = norm(root);
  const inside = r.parts.length <= p.parts.length && r.parts.every((seg, i) => seg === p.parts[i]);
  // Outside: the full path, resolved (no "notes/../" that reads as inside).
  if (!inside) return { label: (p.parts[0]?.endsWith(':') ? '' : '/') + p.parts.join('/'), outside: true };
  return { label: p.parts.slice(r.parts.length).join('/') || '.', outside: false };
}

/** The files a request touches: its locations, else its diffs' paths. */
export function requestPaths(tc: RawToolCall): string[] {
  const out: string[] = [];
  for (const l of tc.locations ?? []) if (l?.path && !out.includes(l.path)) out.push(l.path);
  if (out.length === 0) for (const c of tc.content ?? []) if (c?.type === 'diff' && c.path && !out.includes(c.path)) out.push(c.path);
  return out;
}

/**
 * The dialog's title: the tool call's title, unless it is empty or raw
 * JSON; then a summary from the kind and the first file (or the command).
 */
export function permissionTitle(title: string | undefined, kind: string, tc: RawToolCall, root: string | undefined): string {
  const own = (title ?? '').trim();
  if (own && !looksLikeJSON(own)) return own.length > 200 ? own.slice(0, 200) + '…' : own;
  const what = kindLabel(kind) || kindLabel('other');
  const path = requestPaths(tc)[0];
  if (path) return m.chat_perm_title_path({ kind: what, path: pathLabel(path, root).label });
  const cmd = commandOf(tc.rawInput);
  if (cmd) return m.chat_perm_title_command({ kind: what, command: cmd.length > 120 ? cmd.slice(0, 120) + '…' : cmd });
  return what || m.chat_tool_call();
}

export interface CardStatus {
  /** The badge's text. */
  label: string;
  tone: string;
  spinner: boolean;
  /** The decision beside it, '' when the badge already says it. */
  decision: string;
}

/**
 * A tool card's status. live: the call's turn is still running (false once
 * it ended, was stopped, or the session is not running): a call the agent
 * never finished then reads "Not finished", never "Running". The decision
 * is named once: a rejected call's badge says how it was rejected.
 */
export function cardStatus(tool: Pick<ToolCall, 'status' | 'decision' | 'endedMs'>, live: boolean): CardStatus {
  const status = String(tool.status || 'pending');
  const decision = tool.decision ?? '';
  const open = status === 'in_progress' || status === 'pending';
  if (open && (!live || tool.endedMs)) {
    return { label: m.chat_not_finished(), tone: '', spinner: false, decision: decision ? decisionLabel(decision) : '' };
  }
  const label = statusLabel(status);
  const tone = STATUS_TONE[status] ?? '';
  if (!decision || status === 'awaiting_permission') return { label, tone, spinner: status === 'in_progress', decision: '' };
  const named = decisionLabel(decision);
  if ((status === 'rejected' && decision.startsWith('reject')) || (status === 'cancelled' && decision === 'cancelled')) {
    return { label: named, tone, spinner: false, decision: '' };
  }
  return { label, tone, spinner: status === 'in_progress', decision: named === label ? '' : named };
}
