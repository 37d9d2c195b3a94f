// How an error or notice from the Go side is worded in the interface's
// language. Go sends a code, and where it has them a reason (app/reasons.go)
// and parameters; the words live in messages/errors. A reason this version
// does not know (a newer Go side) is worded by its code; a code it does not
// know either gets the Go message (English), so nothing is ever shown as a
// raw key. The API client's own errors (`network`, `unauthorized` from
// src/api/transport.ts) are codes like Go's.
import type { ApiErrorShape, NoticePayload } from '../api/types';
import { bytes, num } from './format';
import { m } from './i18n.svelte';

type Params = Readonly<Record<string, string>>;

/** One wording of a reason: the params it needs, and the words. */
type Variant = readonly [needs: readonly string[], word: (p: Params) => string];

/** The value of a param a variant needs (present: checked before). */
function v(p: Params, key: string): string {
  return p[key] ?? '';
}

/** A number param formatted for the locale (as it came when not a number). */
function n(p: Params, key: string): string {
  const raw = v(p, key);
  const x = Number(raw);
  return raw !== '' && Number.isFinite(x) ? num(x) : raw;
}

const one = (word: () => string): Variant[] => [[[], word]];

/** The variables mnote held back from an agent that asks to sign in
 * (agent_needs_auth's heldBack, comma-separated), and how to give one. */
function heldBack(p: Params): { vars: string; name: string; first: string } {
  const names = v(p, 'heldBack')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { vars: names.join(', '), name: v(p, 'agentName'), first: names.length === 1 ? names[0] : 'NAME' };
}

/** The wordings of each reason, the most specific variant first. */
const REASONS: Record<string, readonly Variant[]> = {
  // Agents.
  agent_unknown: [[['agent'], (p) => m.errors_agent_unknown({ agent: v(p, 'agent') })]],
  agent_required: one(() => m.errors_agent_required()),
  agent_not_installed: [
    [['agent'], (p) => m.errors_agent_not_installed_named({ agent: v(p, 'agent') })],
    [[], () => m.errors_agent_not_installed()],
  ],
  agent_no_command: [
    [['agent'], (p) => m.errors_agent_no_command_named({ agent: v(p, 'agent') })],
    [[], () => m.errors_agent_no_command()],
  ],
  agent_start_failed: [
    [['agent'], (p) => m.errors_agent_start_failed_named({ agent: v(p, 'agent') })],
    [[], () => m.errors_agent_start_failed()],
  ],
  agent_start_cancelled: [[['agent'], (p) => m.errors_agent_start_cancelled({ agent: v(p, 'agent') })]],
  agent_exited: [
    [['agent', 'signal'], (p) => m.errors_agent_exited_signal_named({ agent: v(p, 'agent'), signal: v(p, 'signal') })],
    [['signal'], (p) => m.errors_agent_exited_signal({ signal: v(p, 'signal') })],
    [['agent', 'code'], (p) => m.errors_agent_exited_code_named({ agent: v(p, 'agent'), code: v(p, 'code') })],
    [['code'], (p) => m.errors_agent_exited_code({ code: v(p, 'code') })],
    [[], () => m.errors_agent_stopped()],
  ],
  agent_stopped: one(() => m.errors_agent_stopped()),
  agent_killed: one(() => m.errors_agent_killed()),
  agent_timeout: [
    [['agent'], (p) => m.errors_agent_timeout_named({ agent: v(p, 'agent') })],
    [[], () => m.errors_agent_timeout()],
  ],
  agent_needs_auth: [
    [['agent', 'heldBack', 'agentName'], (p) => m.errors_agent_needs_auth_held_back_named({ agent: v(p, 'agent'), ...heldBack(p) })],
    [['heldBack', 'agentName'], (p) => m.errors_agent_needs_auth_held_back(heldBack(p))],
    [['agent'], (p) => m.errors_agent_needs_auth_named({ agent: v(p, 'agent') })],
    [[], () => m.errors_agent_needs_auth()],
  ],
  agent_refused: [
    [['message'], (p) => m.errors_agent_refused({ message: v(p, 'message') })],
    [[], () => m.errors_agent_refused_plain()],
  ],
  agent_not_running: one(() => m.errors_agent_not_running()),
  agent_bad_output: one(() => m.errors_agent_bad_output()),
  agent_cannot_load_sessions: [[['agent'], (p) => m.errors_agent_cannot_load_sessions({ agent: v(p, 'agent') })]],
  agent_cannot_list_sessions: [[['agent'], (p) => m.errors_agent_cannot_list_sessions({ agent: v(p, 'agent') })]],
  agent_cannot_delete_sessions: [[['agent'], (p) => m.errors_agent_cannot_delete_sessions({ agent: v(p, 'agent') })]],
  no_agent_copy: one(() => m.errors_no_agent_copy()),
  agent_cannot_logout: [[['agent'], (p) => m.errors_agent_cannot_logout({ agent: v(p, 'agent') })]],
  agent_session_not_loaded: [[['agent'], (p) => m.errors_agent_session_not_loaded({ agent: v(p, 'agent') })]],
  agent_cannot_continue: [
    [['message'], (p) => m.errors_agent_cannot_continue({ message: v(p, 'message') })],
    [[], () => m.errors_agent_cannot_continue_plain()],
  ],
  session_not_continued: one(() => m.errors_session_not_continued()),
  agent_name_required: one(() => m.errors_agent_name_required()),
  agent_command_required: [[['agent'], (p) => m.errors_agent_command_required({ agent: v(p, 'agent') })]],
  secret_variable: [[['variable'], (p) => m.errors_secret_variable({ variable: v(p, 'variable') })]],
  key_not_saved: one(() => m.errors_key_not_saved()),
  config_invalid: one(() => m.errors_config_invalid()),
  config_write_failed: one(() => m.errors_config_write_failed()),
  auth_method_unknown: [
    [['agent', 'method'], (p) => m.errors_auth_method_unknown({ agent: v(p, 'agent'), method: v(p, 'method') })],
  ],
  auth_failed: [[['agent'], (p) => m.errors_auth_failed({ agent: v(p, 'agent') })]],
  no_display: one(() => m.errors_no_display()),
  no_terminal_program: one(() => m.errors_no_terminal_program()),
  terminal_not_started: [[['terminal'], (p) => m.errors_terminal_not_started({ terminal: v(p, 'terminal') })]],
  no_installer: [[['agent'], (p) => m.errors_no_installer({ agent: v(p, 'agent') })]],
  install_failed: [[['agent'], (p) => m.errors_install_failed({ agent: v(p, 'agent') })]],
  install_npm_failed: [
    [['agent', 'code'], (p) => m.errors_install_npm_failed_code({ agent: v(p, 'agent'), code: v(p, 'code') })],
    [['agent'], (p) => m.errors_install_npm_failed({ agent: v(p, 'agent') })],
  ],
  install_not_found: [[['agent'], (p) => m.errors_install_not_found({ agent: v(p, 'agent') })]],
  install_running: [[['agent'], (p) => m.errors_install_running({ agent: v(p, 'agent') })]],
  install_not_running: [[['agent'], (p) => m.errors_install_not_running({ agent: v(p, 'agent') })]],
  registry_unavailable: one(() => m.errors_registry_unavailable()),
  registry_unknown: [[['agent'], (p) => m.errors_registry_unknown({ agent: v(p, 'agent') })]],
  registry_needs_tool: [[['agent', 'tool'], (p) => m.errors_registry_needs_tool({ agent: v(p, 'agent'), tool: v(p, 'tool') })]],
  registry_install_failed: [[['agent'], (p) => m.errors_registry_install_failed({ agent: v(p, 'agent') })]],
  too_many_agents: [[['count'], (p) => m.errors_too_many_agents({ count: Number(v(p, 'count')), n: n(p, 'count') })]],
  no_agent: one(() => m.errors_no_agent()),

  // Sessions and turns.
  session_not_found: one(() => m.errors_session_not_found()),
  session_not_running: one(() => m.errors_session_not_running()),
  session_busy: one(() => m.errors_session_busy()),
  session_closing: one(() => m.errors_session_closing()),
  session_backed_up: one(() => m.errors_session_backed_up()),
  session_not_in_trash: one(() => m.errors_session_not_in_trash()),
  session_not_trashed: one(() => m.errors_session_not_trashed()),
  turn_running: one(() => m.errors_turn_running()),
  turn_failed: [
    [['error'], (p) => m.errors_turn_failed_with({ error: v(p, 'error') })],
    [[], () => m.errors_turn_failed()],
  ],
  prompt_empty: one(() => m.errors_prompt_empty()),
  title_empty: one(() => m.errors_title_empty()),
  too_many_files: [[['max', 'count'], (p) => m.errors_too_many_files({ max: n(p, 'max'), count: n(p, 'count') })]],
  too_many_images: [[['max', 'count'], (p) => m.errors_too_many_images({ max: n(p, 'max'), count: n(p, 'count') })]],
  image_too_big: [[['max'], (p) => m.errors_image_too_big({ max: bytes(Number(v(p, 'max'))) })]],
  image_type: one(() => m.errors_image_type()),
  images_unsupported: [
    [['agent'], (p) => m.errors_images_unsupported_named({ agent: v(p, 'agent') })],
    [[], () => m.errors_images_unsupported()],
  ],
  transcript_write_failed: one(() => m.errors_transcript_write_failed()),
  terminal_not_found: one(() => m.errors_terminal_not_found()),
  permission_not_waiting: one(() => m.errors_permission_not_waiting()),
  permission_option_unknown: one(() => m.errors_permission_option_unknown()),
  permission_cancelled: one(() => m.errors_permission_cancelled()),
  permission_not_remembered: one(() => m.errors_permission_not_remembered()),
  permissions_unreadable: one(() => m.errors_permissions_unreadable()),
  permission_not_revoked: one(() => m.errors_permission_not_revoked()),
  question_not_waiting: one(() => m.errors_question_not_waiting()),
  answer_invalid: one(() => m.errors_answer_invalid()),

  // Folders and files.
  folder_required: one(() => m.errors_folder_required()),
  folder_not_absolute: [[['path'], (p) => m.errors_folder_not_absolute({ path: v(p, 'path') })]],
  folder_not_found: [[['path'], (p) => m.errors_folder_not_found({ path: v(p, 'path') })]],
  not_a_folder: [[['path'], (p) => m.errors_not_a_folder({ path: v(p, 'path') })]],
  no_folder_open: one(() => m.errors_no_folder_open()),
  no_folder_dialog: one(() => m.errors_no_folder_dialog()),
  folder_not_open: one(() => m.errors_folder_not_open()),
  folder_replaced: one(() => m.errors_folder_replaced()),
  outside_folder: [[['path'], (p) => m.errors_outside_folder({ path: v(p, 'path') })]],
  mnote_data: [[['path'], (p) => m.errors_mnote_data({ path: v(p, 'path') })]],
  not_regular_file: [
    [['path'], (p) => m.errors_not_regular_file_path({ path: v(p, 'path') })],
    [[], () => m.errors_not_regular_file()],
  ],
  hard_link: [[['path'], (p) => m.errors_hard_link({ path: v(p, 'path') })]],
  too_large: [
    [['path'], (p) => m.errors_too_large_path({ path: v(p, 'path') })],
    [[], () => m.errors_too_large()],
  ],
  not_utf8: [
    [['path'], (p) => m.errors_not_utf8_path({ path: v(p, 'path') })],
    [[], () => m.errors_not_utf8()],
  ],
  not_openable: [
    [['path'], (p) => m.errors_not_openable_path({ path: v(p, 'path') })],
    [[], () => m.errors_not_openable()],
  ],
  no_opener: [
    [['path'], (p) => m.errors_no_opener_path({ path: v(p, 'path') })],
    [[], () => m.errors_no_opener()],
  ],
  file_changed_on_disk: [
    [['path'], (p) => m.errors_file_changed_on_disk_path({ path: v(p, 'path') })],
    [[], () => m.errors_file_changed_on_disk()],
  ],
  file_exists: [
    [['path'], (p) => m.errors_file_exists_path({ path: v(p, 'path') })],
    [[], () => m.errors_file_exists()],
  ],
  file_not_found: [
    [['path'], (p) => m.errors_file_not_found_path({ path: v(p, 'path') })],
    [[], () => m.errors_file_not_found()],
  ],
  notes_not_indexed: one(() => m.errors_notes_not_indexed()),
  link_undo_expired: one(() => m.errors_link_undo_expired()),
  links_changed: [[['files'], (p) => m.errors_links_changed({ files: v(p, 'files') })]],

  // Checkpoints.
  checkpoints_scanning: one(() => m.errors_checkpoints_scanning()),
  checkpoints_unavailable: one(() => m.errors_checkpoints_unavailable()),
  checkpoints_too_big: one(() => m.errors_checkpoints_too_big()),
  checkpoint_not_found: [[['turn'], (p) => m.errors_checkpoint_not_found({ turn: n(p, 'turn') })]],
  file_not_in_turn: [[['turn', 'path'], (p) => m.errors_file_not_in_turn({ turn: n(p, 'turn'), path: v(p, 'path') })]],
  revert_conflict: [[['turn', 'files'], (p) => m.errors_revert_conflict({ turn: n(p, 'turn'), files: v(p, 'files') })]],
  not_reverted: [[['turn'], (p) => m.errors_not_reverted({ turn: n(p, 'turn') })]],

  // Sync, shares and exports.
  sync_unavailable: one(() => m.errors_sync_unavailable()),
  sync_disabled: one(() => m.errors_sync_disabled()),
  sync_not_configured: one(() => m.errors_sync_not_configured()),
  sync_bad_url: one(() => m.errors_sync_bad_url()),
  sync_unreachable: one(() => m.errors_sync_unreachable()),
  sync_rate_limited: one(() => m.errors_sync_rate_limited()),
  sync_server_failed: [[['status'], (p) => m.errors_sync_server_failed({ status: v(p, 'status') })]],
  sync_token_refused: one(() => m.errors_sync_token_refused()),
  sync_not_found: one(() => m.errors_sync_not_found()),
  sync_refused: [[['status'], (p) => m.errors_sync_refused({ status: v(p, 'status') })]],
  shared_role_refused: [
    [['role'], (p) => m.errors_shared_role_refused_role({ role: v(p, 'role') })],
    [[], () => m.errors_shared_role_refused()],
  ],
  shared_not_owner: one(() => m.errors_shared_not_owner()),
  shared_not_paired: one(() => m.errors_shared_not_paired()),
  shared_key_changed: [[['account'], (p) => m.errors_shared_key_changed({ account: v(p, 'account') })]],
  shared_unverified: [[['message'], (p) => m.errors_shared_unverified({ message: v(p, 'message') })]],
  shared_revoked: one(() => m.errors_shared_revoked()),
  shared_sas_rejected: one(() => m.errors_shared_sas_rejected()),
  shared_pair_cancelled: one(() => m.errors_shared_pair_cancelled()),
  shared_not_shared: one(() => m.errors_shared_not_shared()),
  shared_bad_role: [[['role'], (p) => m.errors_shared_bad_role({ role: v(p, 'role') })]],
  shared_no_pairing: one(() => m.errors_shared_no_pairing()),
  shared_no_key: one(() => m.errors_shared_no_key()),
  redaction_rules_invalid: one(() => m.errors_redaction_rules_invalid()),
  export_not_saved: [[['path'], (p) => m.errors_export_not_saved({ path: v(p, 'path') })]],

  // The app.
  invalid_arguments: one(() => m.errors_invalid_arguments()),
  unknown_method: [[['method'], (p) => m.errors_unknown_method({ method: v(p, 'method') })]],
  database_busy: one(() => m.errors_database_busy()),
  shutting_down: one(() => m.errors_shutting_down()),
  services_stopped: one(() => m.errors_services_stopped()),
  cancelled: one(() => m.errors_cancelled()),
  timed_out: one(() => m.errors_timed_out()),
  unexpected: one(() => m.errors_unexpected()),
  token_required: one(() => m.errors_token_required()),
  code_refused: one(() => m.errors_code_refused()),
};

/** The wording of each code (Go's, and the client's network/unauthorized). */
const CODES: Record<string, () => string> = {
  bad_request: () => m.errors_code_bad_request(),
  not_found: () => m.errors_code_not_found(),
  agent_missing: () => m.errors_code_agent_missing(),
  agent_failed: () => m.errors_code_agent_failed(),
  needs_auth: () => m.errors_code_needs_auth(),
  busy: () => m.errors_code_busy(),
  write_failed: () => m.errors_code_write_failed(),
  internal: () => m.errors_code_internal(),
  conflict: () => m.errors_code_conflict(),
  unauthorized: () => m.errors_code_unauthorized(),
  unavailable: () => m.errors_code_unavailable(),
  sync_auth: () => m.errors_code_sync_auth(),
  forbidden: () => m.errors_code_forbidden(),
  network: () => m.errors_code_network(),
};

/** The reasons this version words (tests compare them with app/reasons.go). */
export const KNOWN_REASONS: readonly string[] = Object.keys(REASONS);

/** The codes this version words. */
export const KNOWN_CODES: readonly string[] = Object.keys(CODES);

function has(p: Params, key: string): boolean {
  return typeof p[key] === 'string' && p[key] !== '';
}

/** The reason worded with its params, or undefined (unknown, or a param
 * every variant needs is missing). */
function reasonText(reason: string | undefined, params: Params | undefined): string | undefined {
  if (!reason || !Object.hasOwn(REASONS, reason)) return undefined;
  const p: Params = params && typeof params === 'object' ? params : {};
  for (const [needs, word] of REASONS[reason]) {
    if (needs.every((k) => has(p, k))) return word(p);
  }
  return undefined;
}

function codeText(code: string | undefined): string | undefined {
  return code && Object.hasOwn(CODES, code) ? CODES[code]() : undefined;
}

/** The wording of a reason Go sent (with its params) in the interface
 * language, or undefined when there is no reason this version knows. */
export function reasonWording(reason: string | undefined, params: Record<string, string> | undefined): string | undefined {
  return reasonText(reason, params);
}

/** What carries an agent's failure: an agent of agents.list and the
 * agent:status, agent:start and agent:install events. */
export interface AgentErrorShape {
  error?: string;
  errorReason?: string;
  errorParams?: Record<string, string>;
}

/** The sentence shown for an agent's failure (an agent, or an agent event):
 * its reason worded in the interface language, else Go's English `error`;
 * undefined when it carries no failure. */
export function agentErrorText(x: AgentErrorShape | null | undefined): string | undefined {
  if (!x) return undefined;
  return reasonText(x.errorReason, x.errorParams) ?? (x.error || undefined);
}

/** The sentence shown for a failed call. */
export function errorText(e: ApiErrorShape): string {
  return reasonText(e.reason, e.params) ?? codeText(e.code) ?? (e.message || m.errors_code_internal());
}

/** The sentence shown for a notice event. */
export function noticeText(n: NoticePayload): string {
  return reasonText(n.reason, n.params) ?? codeText(n.code) ?? n.message;
}
