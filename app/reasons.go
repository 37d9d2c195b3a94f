package app

// Reasons name the specific case of an Error or a NoticePayload (its
// "reason"); "params" carries the values the page words it with. The page
// words each reason in the interface's language (frontend/src/lib/errtext.ts);
// a reason it does not know falls back to a wording of the code, then to
// the English message. API.md, "Errors", lists them with their params;
// add a reason here, there and in messages/errors (the tests check all three).
const (
	// A.

	// ReasonAgentUnknown: there is no agent (or custom agent) by that name.
	// Params: agent.
	ReasonAgentUnknown = "agent_unknown"
	// ReasonAgentRequired: the call named no agent.
	ReasonAgentRequired = "agent_required"
	// ReasonAgentNotInstalled: the agent's program is not installed (details:
	// how to install it). Params: agent (when known).
	ReasonAgentNotInstalled = "agent_not_installed"
	// ReasonAgentNoCommand: a custom agent has no command to run. Params:
	// agent (when known).
	ReasonAgentNoCommand = "agent_no_command"
	// ReasonAgentStartFailed: the agent did not start or answer as an ACP
	// agent (details: its stderr). Params: agent (when known).
	ReasonAgentStartFailed = "agent_start_failed"
	// ReasonAgentStartCancelled: the user cancelled the agent's start. Params:
	// agent.
	ReasonAgentStartCancelled = "agent_start_cancelled"
	// ReasonAgentExited: the agent's process exited or was killed (details:
	// its stderr). Params: agent (when known), code or signal.
	ReasonAgentExited = "agent_exited"
	// ReasonAgentStopped: the agent stopped between turns (notice; the next
	// prompt starts it again).
	ReasonAgentStopped = "agent_stopped"
	// ReasonAgentKilled: the agent did not stop when asked, so mnote stopped
	// it (notice).
	ReasonAgentKilled = "agent_killed"
	// ReasonAgentTimeout: the agent did not answer in time. Params: agent
	// (when known).
	ReasonAgentTimeout = "agent_timeout"
	// ReasonAgentNeedsAuth: the agent wants the user to sign in (details: its
	// auth methods). Params: agent (when known), methods (when known), and
	// when mnote held back variables of its environment that look like keys
	// from the agent: heldBack (their names, comma-separated) and agentName
	// (its name for `mnote agents --set-key`).
	ReasonAgentNeedsAuth = "agent_needs_auth"
	// ReasonAgentRefused: the agent refused a request (a mode, a model, an
	// option). Params: message (the agent's words).
	ReasonAgentRefused = "agent_refused"
	// ReasonAgentNotRunning: no agent runs for the session (a prompt starts
	// it).
	ReasonAgentNotRunning = "agent_not_running"
	// ReasonAgentBadOutput: the agent sent something mnote could not use; it
	// is kept in the transcript (notice).
	ReasonAgentBadOutput = "agent_bad_output"
	// ReasonAgentCannotLoadSessions: the agent cannot load its sessions, so
	// none can be imported. Params: agent.
	ReasonAgentCannotLoadSessions = "agent_cannot_load_sessions"
	// ReasonAgentCannotListSessions: the agent does not list its sessions.
	// Params: agent.
	ReasonAgentCannotListSessions = "agent_cannot_list_sessions"
	// ReasonAgentCannotDeleteSessions: the agent does not delete its own
	// sessions (no sessionCapabilities.delete). Params: agent.
	ReasonAgentCannotDeleteSessions = "agent_cannot_delete_sessions"
	// ReasonNoAgentCopy: the session never had an agent session, so there
	// is no agent's copy to delete.
	ReasonNoAgentCopy = "no_agent_copy"
	// ReasonAgentCannotLogout: the agent has no sign-out (no
	// agentCapabilities.auth.logout). Params: agent.
	ReasonAgentCannotLogout = "agent_cannot_logout"
	// ReasonAgentSessionNotLoaded: the agent could not load the session to
	// import. Params: agent.
	ReasonAgentSessionNotLoaded = "agent_session_not_loaded"
	// ReasonAgentCannotContinue: the agent could not continue its earlier
	// session: the turn runs in a new agent session (notice). Params: message
	// (the agent's words).
	ReasonAgentCannotContinue = "agent_cannot_continue"
	// ReasonSessionNotContinued: the agent cannot load or resume sessions: it
	// continues in a new agent session without the earlier turns (notice).
	ReasonSessionNotContinued = "session_not_continued"
	// ReasonAgentNameRequired: a custom agent needs a name.
	ReasonAgentNameRequired = "agent_name_required"
	// ReasonAgentCommandRequired: a custom agent needs a command. Params:
	// agent.
	ReasonAgentCommandRequired = "agent_command_required"
	// ReasonSecretVariable: the variable is mnote's own secret and cannot be
	// given to an agent. Params: variable.
	ReasonSecretVariable = "secret_variable"
	// ReasonKeyNotSaved: the agent's key was not kept (a bad name or value).
	// Params: variable.
	ReasonKeyNotSaved = "key_not_saved"
	// ReasonConfigInvalid: config.json cannot be read (details: why).
	ReasonConfigInvalid = "config_invalid"
	// ReasonConfigWriteFailed: config.json could not be written.
	ReasonConfigWriteFailed = "config_write_failed"
	// ReasonAuthMethodUnknown: the agent has no such sign-in method. Params:
	// agent, method.
	ReasonAuthMethodUnknown = "auth_method_unknown"
	// ReasonAuthFailed: the sign-in did not succeed. Params: agent.
	ReasonAuthFailed = "auth_failed"
	// ReasonNoDisplay: there is no display to open a terminal on (details: the
	// command to run).
	ReasonNoDisplay = "no_display"
	// ReasonNoTerminalProgram: no terminal program was found (details: the
	// command to run).
	ReasonNoTerminalProgram = "no_terminal_program"
	// ReasonTerminalNotStarted: the terminal program did not start (details:
	// the command to run). Params: terminal.
	ReasonTerminalNotStarted = "terminal_not_started"
	// ReasonNoInstaller: mnote cannot install this agent (no pinned package,
	// or no npm; details: how to install it). Params: agent.
	ReasonNoInstaller = "no_installer"
	// ReasonInstallFailed: the install could not be started. Params: agent.
	ReasonInstallFailed = "install_failed"
	// ReasonInstallNpmFailed: npm ran but did not install the agent (the
	// install log tells why; agent:install). Params: agent, code (npm's exit
	// code, when it exited).
	ReasonInstallNpmFailed = "install_npm_failed"
	// ReasonInstallNotFound: npm installed the agent, but its program is not
	// found where it should be (agent:install). Params: agent.
	ReasonInstallNotFound = "install_not_found"
	// ReasonInstallRunning: the agent is being installed already. Params:
	// agent.
	ReasonInstallRunning = "install_running"
	// ReasonInstallNotRunning: no install of the agent is running. Params:
	// agent.
	ReasonInstallNotRunning = "install_not_running"
	// ReasonRegistryUnavailable: the ACP Registry could not be fetched and
	// no copy of it is kept (or the kept copy is unreadable).
	ReasonRegistryUnavailable = "registry_unavailable"
	// ReasonRegistryUnknown: the kept ACP Registry has no such agent (or
	// no icon of it). Params: agent (the id).
	ReasonRegistryUnknown = "registry_unknown"
	// ReasonRegistryNeedsTool: the agent is installed with a program this
	// computer does not have. Params: agent, tool (what to install).
	ReasonRegistryNeedsTool = "registry_needs_tool"
	// ReasonRegistryInstallFailed: downloading, checking or unpacking the
	// agent failed; nothing was installed (error: why). Params: agent.
	ReasonRegistryInstallFailed = "registry_install_failed"
	// ReasonTooManyAgents: as many agent processes run as mnote starts at
	// once. Params: count.
	ReasonTooManyAgents = "too_many_agents"
	// ReasonNoAgent: the session has no agent: pick one.
	ReasonNoAgent = "no_agent"

	// S.

	// ReasonSessionNotFound: there is no such session.
	ReasonSessionNotFound = "session_not_found"
	// ReasonSessionNotRunning: the session is not open.
	ReasonSessionNotRunning = "session_not_running"
	// ReasonSessionBusy: the session is busy (another process writes it, or it
	// switches agents).
	ReasonSessionBusy = "session_busy"
	// ReasonSessionClosing: the session is closing.
	ReasonSessionClosing = "session_closing"
	// ReasonSessionBackedUp: the session's events are backed up; try again.
	ReasonSessionBackedUp = "session_backed_up"
	// ReasonSessionNotInTrash: the session is not in the trash.
	ReasonSessionNotInTrash = "session_not_in_trash"
	// ReasonSessionNotTrashed: the session to restore exists (it is not in the
	// trash).
	ReasonSessionNotTrashed = "session_not_trashed"
	// ReasonTurnRunning: a turn is running in the session: stop it or wait.
	ReasonTurnRunning = "turn_running"
	// ReasonTurnFailed: the turn failed. Params: error (what the agent
	// said, when nothing more specific is known; details: its stderr).
	ReasonTurnFailed = "turn_failed"
	// ReasonPromptEmpty: the prompt is empty.
	ReasonPromptEmpty = "prompt_empty"
	// ReasonTitleEmpty: the title is empty.
	ReasonTitleEmpty = "title_empty"
	// ReasonTooManyFiles: a prompt carries more files than it may. Params:
	// max, count.
	ReasonTooManyFiles = "too_many_files"
	// ReasonTooManyImages: a prompt carries more images than it may.
	// Params: max, count.
	ReasonTooManyImages = "too_many_images"
	// ReasonImageTooBig: an image of a prompt is too big. Params: n (which
	// image, from 1), size, max (bytes).
	ReasonImageTooBig = "image_too_big"
	// ReasonImageType: an image of a prompt is not a PNG, JPEG, GIF or
	// WebP image. Params: n.
	ReasonImageType = "image_type"
	// ReasonImagesUnsupported: the session's agent does not take images.
	// Params: agent.
	ReasonImagesUnsupported = "images_unsupported"
	// ReasonTranscriptWriteFailed: the session's transcript could not be
	// written (details: why).
	ReasonTranscriptWriteFailed = "transcript_write_failed"
	// ReasonTerminalNotFound: there is no such terminal of the agent.
	ReasonTerminalNotFound = "terminal_not_found"
	// ReasonPermissionNotWaiting: no such permission request is waiting.
	ReasonPermissionNotWaiting = "permission_not_waiting"
	// ReasonPermissionOptionUnknown: the permission request has no such
	// option.
	ReasonPermissionOptionUnknown = "permission_option_unknown"
	// ReasonPermissionCancelled: the permission request was cancelled
	// meanwhile.
	ReasonPermissionCancelled = "permission_cancelled"
	// ReasonPermissionNotRemembered: the choice was applied but not
	// remembered.
	ReasonPermissionNotRemembered = "permission_not_remembered"
	// ReasonPermissionsUnreadable: the remembered permissions could not be
	// read.
	ReasonPermissionsUnreadable = "permissions_unreadable"
	// ReasonPermissionNotRevoked: the permission was not revoked.
	ReasonPermissionNotRevoked = "permission_not_revoked"
	// ReasonQuestionNotWaiting: no such question of the agent is waiting.
	ReasonQuestionNotWaiting = "question_not_waiting"
	// ReasonAnswerInvalid: the answer does not fit the agent's form (details:
	// field: reason, one a line).
	ReasonAnswerInvalid = "answer_invalid"

	// F.

	// ReasonFolderRequired: the call named no folder.
	ReasonFolderRequired = "folder_required"
	// ReasonFolderNotAbsolute: the folder is not a full path. Params: path.
	ReasonFolderNotAbsolute = "folder_not_absolute"
	// ReasonFolderNotFound: the folder cannot be found. Params: path.
	ReasonFolderNotFound = "folder_not_found"
	// ReasonNotAFolder: the path is not a folder. Params: path.
	ReasonNotAFolder = "not_a_folder"
	// ReasonNoFolderOpen: no folder of notes is open.
	ReasonNoFolderOpen = "no_folder_open"
	// ReasonNoFolderDialog: there is no folder dialog here: type the folder's
	// path.
	ReasonNoFolderDialog = "no_folder_dialog"
	// ReasonFolderNotOpen: the session's folder is not open, so its changes
	// are not known.
	ReasonFolderNotOpen = "folder_not_open"
	// ReasonFolderReplaced: the folder was moved, deleted or replaced since it
	// was opened. Params: path (when known).
	ReasonFolderReplaced = "folder_replaced"
	// ReasonOutsideFolder: the path leads outside the folder. Params: path.
	ReasonOutsideFolder = "outside_folder"
	// ReasonMnoteData: the path leads into mnote's own data. Params: path.
	ReasonMnoteData = "mnote_data"
	// ReasonNotRegularFile: the path is not a regular file (a folder, a FIFO,
	// a device…). Params: path (when known).
	ReasonNotRegularFile = "not_regular_file"
	// ReasonHardLink: the file has several hard links. Params: path.
	ReasonHardLink = "hard_link"
	// ReasonTooLarge: the file is too large to open or write. Params: path
	// (when known).
	ReasonTooLarge = "too_large"
	// ReasonNotUTF8: the file is not UTF-8 text. Params: path (when known).
	ReasonNotUTF8 = "not_utf8"
	// ReasonNotOpenable: files.openInApp opens documents, pictures, audio
	// and video only. Params: path.
	ReasonNotOpenable = "not_openable"
	// ReasonNoOpener: no program could be started to open the file (no
	// desktop, no xdg-open). Params: path.
	ReasonNoOpener = "no_opener"
	// ReasonFileChangedOnDisk: the file changed on disk since it was read:
	// keep mine or take theirs. Params: path (when known).
	ReasonFileChangedOnDisk = "file_changed_on_disk"
	// ReasonFileExists: a file or folder of that name exists. Params: path
	// (when known).
	ReasonFileExists = "file_exists"
	// ReasonFileNotFound: there is no such file or folder. Params: path (when
	// known).
	ReasonFileNotFound = "file_not_found"
	// ReasonNotesNotIndexed: the notes of this folder are not indexed.
	ReasonNotesNotIndexed = "notes_not_indexed"
	// ReasonLinkUndoExpired: that link update can no longer be undone.
	ReasonLinkUndoExpired = "link_undo_expired"
	// ReasonLinksChanged: notes changed since their links were updated, so the
	// update is not undone. Params: files, count.
	ReasonLinksChanged = "links_changed"

	// C.

	// ReasonCheckpointsScanning: mnote is still scanning the folder: this
	// turn's changes are not kept for revert (notice).
	ReasonCheckpointsScanning = "checkpoints_scanning"
	// ReasonCheckpointsUnavailable: this turn's changes are not kept for
	// revert (notice; details: why).
	ReasonCheckpointsUnavailable = "checkpoints_unavailable"
	// ReasonCheckpointsTooBig: the folder is too big to keep each turn's
	// changes.
	ReasonCheckpointsTooBig = "checkpoints_too_big"
	// ReasonCheckpointNotFound: the turn has no checkpoint (it changed no
	// file, or it was deleted). Params: turn.
	ReasonCheckpointNotFound = "checkpoint_not_found"
	// ReasonFileNotInTurn: the turn did not change that file. Params: turn,
	// path.
	ReasonFileNotInTurn = "file_not_in_turn"
	// ReasonRevertConflict: files changed since the turn, so nothing was
	// reverted (details: the diffs). Params: turn, files, count.
	ReasonRevertConflict = "revert_conflict"
	// ReasonNotReverted: the turn is not reverted, so there is nothing to
	// undo. Params: turn.
	ReasonNotReverted = "not_reverted"

	// S.

	// ReasonSyncUnavailable: sync is not available in this run (details: why).
	ReasonSyncUnavailable = "sync_unavailable"
	// ReasonSyncDisabled: sync is turned off.
	ReasonSyncDisabled = "sync_disabled"
	// ReasonSyncNotConfigured: sync is not set up.
	ReasonSyncNotConfigured = "sync_not_configured"
	// ReasonSyncBadURL: the control plane's URL is not valid.
	ReasonSyncBadURL = "sync_bad_url"
	// ReasonSyncUnreachable: the control plane cannot be reached.
	ReasonSyncUnreachable = "sync_unreachable"
	// ReasonSyncRateLimited: the control plane asks to wait. Params: status
	// (when known).
	ReasonSyncRateLimited = "sync_rate_limited"
	// ReasonSyncServerFailed: the control plane failed (5xx). Params: status.
	ReasonSyncServerFailed = "sync_server_failed"
	// ReasonSyncTokenRefused: the control plane refused the sync token: set a
	// new one in Settings. Params: status.
	ReasonSyncTokenRefused = "sync_token_refused"
	// ReasonSyncNotFound: the control plane does not know it (a share, a
	// session). Params: status.
	ReasonSyncNotFound = "sync_not_found"
	// ReasonSyncRefused: the control plane refused the request. Params:
	// status.
	ReasonSyncRefused = "sync_refused"
	// ReasonSharedRoleRefused: the member's role in the shared session does
	// not allow it (a viewer's or commenter's prompt). Params: role (when
	// known).
	ReasonSharedRoleRefused = "shared_role_refused"
	// ReasonSharedNotOwner: only the session's owner changes its members.
	ReasonSharedNotOwner = "shared_not_owner"
	// ReasonSharedNotPaired: this device is not in its account's device
	// list yet: pair it from another of the account's devices.
	ReasonSharedNotPaired = "shared_not_paired"
	// ReasonSharedKeyChanged: an account's devices changed: compare the
	// safety number and accept them first. Params: account.
	ReasonSharedKeyChanged = "shared_key_changed"
	// ReasonSharedUnverified: a membership or device change did not
	// verify (the control plane may be lying). Params: message.
	ReasonSharedUnverified = "shared_unverified"
	// ReasonSharedRevoked: this account is no longer a member.
	ReasonSharedRevoked = "shared_revoked"
	// ReasonSharedSASRejected: the 12 digits differ: pairing stopped.
	ReasonSharedSASRejected = "shared_sas_rejected"
	// ReasonSharedPairCancelled: the other device ended the pairing.
	ReasonSharedPairCancelled = "shared_pair_cancelled"
	// ReasonSharedNotShared: the session is not shared with this account.
	ReasonSharedNotShared = "shared_not_shared"
	// ReasonSharedBadRole: not editor, commenter or viewer. Params: role.
	ReasonSharedBadRole = "shared_bad_role"
	// ReasonSharedNoPairing: no pairing waits for an answer.
	ReasonSharedNoPairing = "shared_no_pairing"
	// ReasonSharedNoKey: this device has no key for the session yet (a
	// member's device added after the member was: the owner's app gives it
	// at its next turn).
	ReasonSharedNoKey = "shared_no_key"
	// ReasonRedactionRulesInvalid: the redaction rules cannot be read.
	ReasonRedactionRulesInvalid = "redaction_rules_invalid"
	// ReasonExportNotSaved: the export could not be saved. Params: path.
	ReasonExportNotSaved = "export_not_saved"

	// T.

	// ReasonInvalidArguments: the call's arguments do not fit the method.
	ReasonInvalidArguments = "invalid_arguments"
	// ReasonUnknownMethod: there is no such method. Params: method.
	ReasonUnknownMethod = "unknown_method"
	// ReasonDatabaseBusy: another process holds mnote's index locked; try
	// again.
	ReasonDatabaseBusy = "database_busy"
	// ReasonShuttingDown: mnote is shutting down.
	ReasonShuttingDown = "shutting_down"
	// ReasonServicesStopped: the window only: mnote's services (a child
	// process) stopped; the window starts them again.
	ReasonServicesStopped = "services_stopped"
	// ReasonCancelled: the call was cancelled.
	ReasonCancelled = "cancelled"
	// ReasonTimedOut: the call took too long.
	ReasonTimedOut = "timed_out"
	// ReasonUnexpected: a method failed unexpectedly (a bug; see the log).
	// Params: method.
	ReasonUnexpected = "unexpected"
	// ReasonTokenRequired: `mnote serve` only: the request has no valid token.
	ReasonTokenRequired = "token_required"
	// ReasonCodeRefused: `mnote serve` only: the one-time code is used,
	// expired or wrong.
	ReasonCodeRefused = "code_refused"
)

// Reasons is every reason, in the order of API.md's table.
var Reasons = []string{
	ReasonAgentUnknown, ReasonAgentRequired, ReasonAgentNotInstalled, ReasonAgentNoCommand, ReasonAgentStartFailed, ReasonAgentStartCancelled, ReasonAgentExited, ReasonAgentStopped, ReasonAgentKilled, ReasonAgentTimeout, ReasonAgentNeedsAuth, ReasonAgentRefused, ReasonAgentNotRunning, ReasonAgentBadOutput, ReasonAgentCannotLoadSessions, ReasonAgentCannotListSessions, ReasonAgentCannotDeleteSessions, ReasonNoAgentCopy, ReasonAgentCannotLogout, ReasonAgentSessionNotLoaded, ReasonAgentCannotContinue, ReasonSessionNotContinued, ReasonAgentNameRequired, ReasonAgentCommandRequired, ReasonSecretVariable, ReasonKeyNotSaved, ReasonConfigInvalid, ReasonConfigWriteFailed, ReasonAuthMethodUnknown, ReasonAuthFailed, ReasonNoDisplay, ReasonNoTerminalProgram, ReasonTerminalNotStarted, ReasonNoInstaller, ReasonInstallFailed, ReasonInstallNpmFailed, ReasonInstallNotFound, ReasonInstallRunning, ReasonInstallNotRunning, ReasonRegistryUnavailable, ReasonRegistryUnknown, ReasonRegistryNeedsTool, ReasonRegistryInstallFailed, ReasonTooManyAgents, ReasonNoAgent,
	ReasonSessionNotFound, ReasonSessionNotRunning, ReasonSessionBusy, ReasonSessionClosing, ReasonSessionBackedUp, ReasonSessionNotInTrash, ReasonSessionNotTrashed, ReasonTurnRunning, ReasonTurnFailed, ReasonPromptEmpty, ReasonTitleEmpty, ReasonTooManyFiles, ReasonTooManyImages, ReasonImageTooBig, ReasonImageType, ReasonImagesUnsupported, ReasonTranscriptWriteFailed, ReasonTerminalNotFound, ReasonPermissionNotWaiting, ReasonPermissionOptionUnknown, ReasonPermissionCancelled, ReasonPermissionNotRemembered, ReasonPermissionsUnreadable, ReasonPermissionNotRevoked, ReasonQuestionNotWaiting, ReasonAnswerInvalid,
	ReasonFolderRequired, ReasonFolderNotAbsolute, ReasonFolderNotFound, ReasonNotAFolder, ReasonNoFolderOpen, ReasonNoFolderDialog, ReasonFolderNotOpen, ReasonFolderReplaced, ReasonOutsideFolder, ReasonMnoteData, ReasonNotRegularFile, ReasonHardLink, ReasonTooLarge, ReasonNotUTF8, ReasonNotOpenable, ReasonNoOpener, ReasonFileChangedOnDisk, ReasonFileExists, ReasonFileNotFound, ReasonNotesNotIndexed, ReasonLinkUndoExpired, ReasonLinksChanged,
	ReasonCheckpointsScanning, ReasonCheckpointsUnavailable, ReasonCheckpointsTooBig, ReasonCheckpointNotFound, ReasonFileNotInTurn, ReasonRevertConflict, ReasonNotReverted,
	ReasonSyncUnavailable, ReasonSyncDisabled, ReasonSyncNotConfigured, ReasonSyncBadURL, ReasonSyncUnreachable, ReasonSyncRateLimited, ReasonSyncServerFailed, ReasonSyncTokenRefused, ReasonSyncNotFound, ReasonSyncRefused,
	ReasonSharedRoleRefused, ReasonSharedNotOwner, ReasonSharedNotPaired, ReasonSharedKeyChanged, ReasonSharedUnverified, ReasonSharedRevoked, ReasonSharedSASRejected, ReasonSharedPairCancelled, ReasonSharedNotShared, ReasonSharedBadRole, ReasonSharedNoPairing, ReasonSharedNoKey,
	ReasonRedactionRulesInvalid, ReasonExportNotSaved,
	ReasonInvalidArguments, ReasonUnknownMethod, ReasonDatabaseBusy, ReasonShuttingDown, ReasonServicesStopped, ReasonCancelled, ReasonTimedOut, ReasonUnexpected, ReasonTokenRequired, ReasonCodeRefused,
}
