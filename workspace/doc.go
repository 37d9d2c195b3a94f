// Package workspace is the folder of Markdown notes mnote and its agents
// work in: confined file access for agents, the open-buffer registry, the
// file tree and its operations, a file watcher and per-turn checkpoints.
//
// Open a folder once (Open) and share the *Workspace between sessions;
// paths in the API are workspace-relative and slash-separated unless they
// come from an agent (absolute).
//
// # Confinement
//
// Every access goes through an os.Root on the folder (openat2 with
// RESOLVE_BENEATH semantics on Linux), so no path, symbolic link or link
// swapped in between a check and a use leads outside. On top of that:
//
//   - the folder's identity (device + inode) is pinned by Open and checked
//     before every operation; a folder moved or replaced since is refused
//     (ErrReplaced);
//   - agents must give absolute paths inside the folder; relative paths,
//     any ".." element, other absolute paths (/proc and /dev included) and
//     symbolic links, to files or folders, leading outside are refused
//     (ErrOutside). Links inside that stay inside work, absolute ones too
//     (os.Root alone refuses those; they are resolved by hand and then used
//     through the root again);
//   - a file is read or written through a handle on its folder, reached
//     one folder at a time, each checked after it is opened: the one its
//     name showed (no link swapped in), not one of Options.Deny (mnote's
//     own config, data and state: ErrDenied) and not on a kernel file
//     system (procfs, sysfs, devtmpfs... told by statfs and device, not by
//     path: ErrOutside). Deny is by identity (device + inode of the denied
//     folders and the folders under them when Open ran), so symbolic links,
//     bind mounts, case or ".." do not lead around it; the tree, the
//     watcher and the checkpoints skip those folders, and Open refuses a
//     workspace folder that is, or is inside, one of them or a kernel
//     file system. (A bind mount of a single file of theirs, or of a
//     folder created under them after Open, is not recognized.);
//   - FIFOs, sockets and devices are refused before they are opened, and
//     the open is non-blocking and re-checked (ErrNotRegular);
//   - agents' reads and all writes of a file with several hard links are
//     refused (ErrHardLink): its other names may be anywhere on the
//     device. The page's own reads (the editor, attachments) allow them;
//   - files over MaxFile (10 MiB) and files that are not UTF-8 get a clear
//     error (ErrTooLarge, ErrNotText).
//
// Whatever else reaches the folder for an agent goes by the same rules:
// the notes index walks and reads it as an agent's read does
// (WalkAgentFiles, ReadAgentFile), so search never shows what a read
// refuses, and a terminal the agent starts gets its working folder from
// AgentFS.OpenDir.
//
// Refusals are *RefusedError (matching fs.ErrPermission and their
// sentinel); AgentFS reports them to Hooks.OnRefused. The package knows
// nothing of JSON-RPC: the acp package answers fs.ErrPermission and
// fs.ErrInvalid (which ErrNotRegular, ErrTooLarge and ErrNotText match)
// with "invalid params", fs.ErrNotExist with "not found".
//
// # Writes
//
// Writes are atomic: a temporary file in the same folder, fsync, a rename
// over the target through the root, fsync of the folder. An existing file
// keeps its mode; a new one gets 0644 less the umask and its missing parent
// folders. A symbolic link is written through to its target.
//
// # Buffers
//
// Buffers holds the files open in the editor. An agent's read of an open,
// dirty file answers from the buffer (honouring line and limit), unless
// the buffer is in conflict (then it reads the disk). An agent's write
// goes to disk and updates the buffer at once, never dropping unsaved
// edits: a clean buffer takes it (BufferWritten); a dirty one gets the
// agent's changes merged into the unsaved text line by line (from the
// text last saved, or else from the unsaved text the agent last read),
// stays dirty and holds both while the disk holds the agent's write alone
// until the next save (BufferMerged); when both change the same lines the
// buffer keeps the person's text and gets a conflict whose theirs is the
// agent's write (BufferConflict). When the file
// changes on disk, a clean buffer reloads (BufferReloaded) and a dirty one
// gets a conflict (BufferConflict: Theirs and Diff for the view, KeepMine
// or TakeTheirs to resolve); Save refuses to overwrite a change it has not
// seen (ErrConflict). A deleted file's buffer is marked (BufferDeleted),
// never dropped; it is restored if the file comes back. Following the
// disk needs Watch; without it Save still refuses to overwrite changes.
//
// # Tree
//
// Tree lists folders and Markdown files (every file with AllFiles), folders
// first, in natural case-insensitive order, skipping DefaultIgnore (.git,
// node_modules, .venv, __pycache__, .cache, .obsidian, ...; configurable
// with Options.Ignore), dot files (unless Hidden) and editors' temporary
// files. Find ranks paths for a name query (exact, prefix, substring,
// fuzzy). CreateFile, CreateFolder, Rename, Move and Delete never overwrite
// (ErrExists). Delete moves to the freedesktop.org trash
// ($XDG_DATA_HOME/Trash/files and info/*.trashinfo) or, when that is on
// another device, to the workspace's .mnote-trash folder (same layout);
// Restore undoes it.
//
// # Watcher
//
// Watch follows the folder with fsnotify (inotify on Linux): one watch per
// folder, new folders added as they appear (and scanned, so files created
// in them at once are seen), removed ones dropped, ignored ones skipped.
// Events are debounced (Options.Debounce, 75 ms; at most 225 ms) into
// batches; within a batch a path's existence before and after decides the
// Change (created, changed, removed, renamed), so editors' saves through a
// temporary file, vim's backup rename and swap files come out as one
// Changed. Changes mnote made carry an Origin; changes made while an agent
// turn runs carry its Turn. A full inotify queue yields Event.Rescan; the
// inotify watch limit gives an error wrapping ErrWatchLimit that says how
// to raise it. Subscribe receives the batches and buffer events in order.
//
// # Checkpoints
//
// Checkpoints (with Options.StateDir) records, per agent turn, the files
// it changed — through fs/write_text_file or by writing to disk itself —
// with their content before and after: BeginTurn before the prompt,
// EndTurn after it, Changes for unified diffs, Revert to restore. Each
// BeginTurn and EndTurn stats every file and reads only those whose size,
// mtime, inode or ctime changed; the contents (deduplicated by SHA-256),
// the manifest and the checkpoints live in one SQLite file,
// <StateDir>/checkpoints.db (0600). The user's own saves and tree
// operations during a turn are not attributed to it. Revert is
// all-or-nothing: when a file changed since the turn, nothing is written
// and the error (*RevertConflictError) has a diff per file; files whose
// content was not kept (not text, over 10 MiB) are skipped and listed.
// UndoRevert undoes a revert, all-or-nothing the same way. Hunks lists a
// file's changes by the turn, placed in the file as it is now (hunks
// edited since are left out); ReviewHunks keeps them (recorded only),
// rejects them (each hunk's prior text written back, as the app) or
// restores rejected ones, all-or-nothing per call and refused
// (ErrConflict) when a hunk's text moved away or the file has unsaved
// edits. Reviews are kept with the checkpoint, whose result becomes what
// was kept. Prune drops old checkpoints and the contents nothing refers
// to.
package workspace
