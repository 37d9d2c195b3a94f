// Package notes is the index of a workspace's Markdown notes: their text
// for full-text search (Chinese, Japanese and Korean included, through the
// store/ftstoken tokenizer), their headings (outline, Quick Open's #) and
// their links ([[wikilinks]] and relative Markdown links, for backlinks).
//
// The index is derived and rebuildable, like mnote.db: it lives in its own
// SQLite file under mnote's data folder (one per workspace), never inside
// the notes folder, and deleting it costs one walk of the folder. Sync
// brings it up to date with the folder (files whose size or modification
// time changed are read again); Update and Remove keep it current from the
// workspace watcher's changes, including agents' writes and other
// programs'.
//
// Only regular files ending in .md or .markdown are indexed. Files over
// MaxNoteSize, or whose bytes are not UTF-8 text (a NUL byte, invalid
// UTF-8), are skipped and counted in Stats, never fatal. The folder is
// walked and read through its *workspace.Workspace (WalkAgentFiles,
// ReadAgentFile), under the one rule of what an agent may read: what an
// agent's fs/read_text_file or read_note refuses (a file with several hard
// links, a symbolic link leading out, a FIFO, mnote's own folders, a
// kernel file system) is not indexed at all, so search, the listing,
// outlines and backlinks never show it.
//
// Links resolve as Obsidian resolves them: [[Name]] is the note whose file
// name (without .md) is Name, case-insensitively; [[folder/Name]] is a note
// whose path ends with that; when several notes match, the one in the
// linking note's folder wins, then the shortest path. [[Name#Heading]]
// points at a heading, [[Name|alias]] shows alias. A relative Markdown link
// ([text](../b.md)) resolves against the linking note's folder. Links are
// kept as written, and resolved when asked, so a note created later
// resolves links written before it. A wikilink naming a file that is no
// note ([[report.pdf]], ![[图 1.png]]) resolves the same way among the
// folder's attachments, which the index lists by file name (files).
//
// When a note is renamed or moved, MoveRewrites computes the new text of
// every note whose links pointed at it (RewriteLinks: wikilinks keep their
// #heading, |alias and form, a bare name staying bare when it still finds
// the note; relative Markdown links are recomputed; the moved note's own
// relative links follow it); FolderMoveRewrites does the same for every
// note of a moved folder at once. Links to attachments (files that are
// no notes: ![](attachments/a.png), ![[a.png]], [a](b.pdf)) are indexed
// apart: they never count as a note's links nor as unresolved, and follow
// an attachment's move, a moved note and a moved folder the same way.
// Unresolved lists the links to notes no note answers. It writes nothing:
// the app saves the texts through the workspace.
package notes
