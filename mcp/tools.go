package mcp

// Tool names.
const (
	ToolSearchNotes    = "search_notes"
	ToolReadNote       = "read_note"
	ToolListNotes      = "list_notes"
	ToolOutline        = "outline"
	ToolBacklinks      = "backlinks"
	ToolSearchSessions = "search_sessions"
	ToolEditNote       = "edit_note"
)

// SearchNotesArgs are search_notes' arguments.
type SearchNotesArgs struct {
	Query  string `json:"query" jsonschema:"words to find; every word must appear in the note (the last one as a prefix)"`
	Folder string `json:"folder,omitempty" jsonschema:"only notes in this folder (relative to the notes folder) and below"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many notes (default 20, at most 200)"`
}

// ReadNoteArgs are read_note's arguments: the whole note, one heading's
// section, or a range of lines.
type ReadNoteArgs struct {
	Path      string `json:"path" jsonschema:"the note's path relative to the notes folder, e.g. projects/plan.md"`
	Heading   string `json:"heading,omitempty" jsonschema:"read only the section under this heading (its text without the #s), down to the next heading of the same or a higher level"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"first line to read (1-based)"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"last line to read (inclusive; default the end)"`
}

// ListNotesArgs are list_notes' arguments.
type ListNotesArgs struct {
	Folder string `json:"folder,omitempty" jsonschema:"list only this folder and below (relative; default all notes)"`
}

// PathArgs are the arguments of outline and backlinks.
type PathArgs struct {
	Path string `json:"path" jsonschema:"the note's path relative to the notes folder"`
}

// SearchSessionsArgs are search_sessions' arguments.
type SearchSessionsArgs struct {
	Query string `json:"query" jsonschema:"words to find in past chat sessions' messages"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many messages (default 20, at most 200)"`
}

// EditNoteArgs are edit_note's arguments: the content replaces one
// heading's section, a range of lines, or (neither given) the whole note,
// which is created when missing.
type EditNoteArgs struct {
	Path      string `json:"path" jsonschema:"the note's path relative to the notes folder"`
	Heading   string `json:"heading,omitempty" jsonschema:"replace the section under this heading, the heading line included"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"first line to replace (1-based)"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"last line to replace (inclusive; default startLine)"`
	Content   string `json:"content" jsonschema:"the new text"`
}

// toolInfo describes one tool; args is a zero value of its argument type.
type toolInfo struct {
	name, desc string
}

// tools are the tools `mnote mcp` offers, in order.
var tools = []toolInfo{
	{ToolSearchNotes, "Full-text search of the Markdown notes in the user's notes folder. Answers the matching notes, best first, each with the line of its first match."},
	{ToolReadNote, "Read a note of the user's notes folder: all of it, one heading's section, or a range of lines. Unsaved edits open in mnote are included. Lines are numbered."},
	{ToolListNotes, "List the notes (Markdown files) of the user's notes folder, or of one folder in it, with their sizes."},
	{ToolOutline, "The headings of a note, with their levels and line numbers."},
	{ToolBacklinks, "The notes that link to a note (wikilinks and Markdown links), with the linking line."},
	{ToolSearchSessions, "Full-text search of the user's past chat sessions with agents in mnote: the matching messages with their session and turn."},
	{ToolEditNote, "Replace a heading's section, a range of lines, or the whole of a note in the user's notes folder. mnote asks the user first; the change can be reverted from mnote's Changes view."},
}

// Names lists the tools' names.
func Names() []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.name
	}
	return out
}
