package cli

import (
	"context"
	"fmt"
	"strings"

	"mnote/app"
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
	w, err := app.OpenWorkspace(dir, e.paths, workspace.Options{Logger: e.log})
	if err != nil {
		return e.fail(exitAgent, err)
	}
	defer w.Close()
	ix, err := e.openNotes(w)
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
			fmt.Fprintf(e.stdout, "%s:%d: %s\n", termLine(h.Path), h.Line, snip)
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
				fmt.Fprintf(e.stdout, "%d: %s\n", l.Line, termLine(to))
			} else {
				fmt.Fprintf(e.stdout, "%s:%d: %s\n", termLine(l.From), l.Line, termLine(l.Context))
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
			fmt.Fprintf(e.stdout, "%4d  %s%s\n", h.Line, strings.Repeat("  ", h.Level-1), termLine(h.Text))
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
			fmt.Fprintf(e.stdout, "%s%s\n", termLine(n.Path), skipped)
		}
		return exitOK
	default:
		return e.usageErr("unknown notes command %q (search, backlinks, links, outline, list)", sub)
	}
}

// openNotes opens the notes index of w (opened with app.OpenWorkspace, so
// it reads what agents may read) and brings it up to date, showing
// progress on a terminal for a long first build.
func (e *env) openNotes(w *workspace.Workspace) (*notes.Index, error) {
	dbPath, err := notes.PathFor(e.paths.DataDir, w.Dir())
	if err != nil {
		return nil, err
	}
	ix, err := notes.Open(context.Background(), dbPath, w, notes.Options{Ignore: workspace.DefaultIgnore})
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

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
