package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"mnote/notes"
	"mnote/workspace"
)

func init() { sessionCommands["notes"] = (*env).runNotes }

const notesUsage = `usage: mnote notes search [--workspace DIR] [--folder F] [--limit N] [--json] QUERY
       mnote notes backlinks|links|outline [--workspace DIR] [--json] NOTE
       mnote notes list [--workspace DIR] [--json] [FOLDER]

Searches the Markdown notes of a folder (the current one unless
--workspace), through its index under mnote's data folder (brought up to
date first). Chinese, Japanese and Korean text is found as substrings.
`

// runNotes is `mnote notes …`.
func (e *env) runNotes(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stderr, notesUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	fs := e.flags("notes "+sub, "[--workspace DIR] [--json] …")
	wsDir := fs.String("workspace", "", "the notes folder (default: the current folder)")
	asJSON := fs.Bool("json", false, "print JSON")
	folder := fs.String("folder", "", "search: only notes in this folder (relative to the workspace)")
	limit := fs.Int("limit", 20, "search: how many hits")
	words, err := parseArgs(fs, rest)
	if err != nil {
		return exitUsage
	}
	dir, _, err := workspaceDir(*wsDir)
	if err != nil {
		return e.usageErr("%v", err)
	}
	arg := strings.Join(words, " ")
	if arg == "" && sub != "list" {
		fmt.Fprint(e.stderr, notesUsage)
		return exitUsage
	}
	ix, err := e.openNotes(dir)
	if err != nil {
		return e.fail(exitAgent, err)
	}
	defer ix.Close()
	ctx := context.Background()
	var out any
	switch sub {
	case "search":
		hits, err := ix.Search(ctx, arg, notes.SearchOptions{Folder: *folder, Limit: *limit})
		if err != nil {
			return e.fail(exitUsage, err)
		}
		if *asJSON {
			return e.printJSON(orEmpty(hits))
		}
		if len(hits) == 0 {
			fmt.Fprintf(e.stdout, "No notes match %q.\n", arg)
			return exitOK
		}
		bold := isTerminal(e.stdout)
		for _, h := range hits {
			snip := snippetText(h.Snippet, bold)
			fmt.Fprintf(e.stdout, "%s:%d: %s\n", termSafe(h.Path), h.Line, snip)
		}
		return exitOK
	case "backlinks", "links":
		var links []notes.Link
		if sub == "links" {
			links, err = ix.Links(ctx, arg)
		} else {
			links, err = ix.Backlinks(ctx, arg)
		}
		if err != nil {
			return e.fail(exitUsage, err)
		}
		if *asJSON {
			return e.printJSON(orEmpty(links))
		}
		for _, l := range links {
			to := l.Resolved
			if to == "" {
				to = l.Target + " (no such note)"
			}
			if sub == "links" {
				fmt.Fprintf(e.stdout, "%d: %s\n", l.Line, termSafe(to))
			} else {
				fmt.Fprintf(e.stdout, "%s:%d: %s\n", termSafe(l.From), l.Line, termSafe(l.Context))
			}
		}
		return exitOK
	case "outline":
		heads, err := ix.Outline(ctx, arg)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		if *asJSON {
			return e.printJSON(orEmpty(heads))
		}
		for _, h := range heads {
			fmt.Fprintf(e.stdout, "%4d  %s%s\n", h.Line, strings.Repeat("  ", h.Level-1), termSafe(h.Text))
		}
		return exitOK
	case "list":
		list, err := ix.List(ctx, arg)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		out = orEmpty(list)
		if *asJSON {
			return e.printJSON(out)
		}
		for _, n := range list {
			skipped := ""
			if n.Skipped != "" {
				skipped = "  (not indexed: " + n.Skipped + ")"
			}
			fmt.Fprintf(e.stdout, "%s%s\n", termSafe(n.Path), skipped)
		}
		return exitOK
	default:
		return e.usageErr("unknown notes command %q (search, backlinks, links, outline, list)", sub)
	}
}

// openNotes opens the notes index of dir and brings it up to date,
// showing progress on a terminal for a long first build.
func (e *env) openNotes(dir string) (*notes.Index, error) {
	dbPath, err := notes.PathFor(e.paths.DataDir, dir)
	if err != nil {
		return nil, err
	}
	ix, err := notes.Open(context.Background(), dbPath, dir, notes.Options{Ignore: workspace.DefaultIgnore, Exclude: e.ownDirs()})
	if err != nil {
		return nil, err
	}
	tty := isTerminal(e.stderr)
	st, err := ix.Sync(context.Background(), func(done, total int) {
		if tty && total >= 500 {
			fmt.Fprintf(e.stderr, "\rmnote: indexing notes: %d of %d", done, total)
			if done == total {
				fmt.Fprintln(e.stderr)
			}
		}
	})
	if err != nil {
		ix.Close()
		return nil, err
	}
	if n := st.Skipped(); n > 0 && st.Read > 0 {
		e.warn("%d notes not indexed (%d over %d MiB, %d not UTF-8 text); 'mnote notes list' shows which", n, st.TooBig, notes.MaxNoteSize>>20, st.NotText)
	}
	return ix, nil
}

// ownDirs are mnote's own folders (config, data, state), never indexed
// as notes even when the notes folder holds them.
func (e *env) ownDirs() []string {
	var out []string
	for _, d := range []string{e.paths.DataDir, e.paths.StateDir, e.paths.LogDir} {
		if d != "" {
			out = append(out, d)
		}
	}
	if c := e.paths.ConfigFile; c != "" {
		out = append(out, dirOf(c))
	}
	return out
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, os.PathSeparator); i > 0 {
		return p[:i]
	}
	return p
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
