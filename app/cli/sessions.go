package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"mnote/internal/l10n"
	"mnote/store"
)

// sessionCommands are the commands over recorded sessions.
var sessionCommands = map[string]func(*env, []string) int{
	"sessions": (*env).runSessions,
	"show":     (*env).runShow,
	"search":   (*env).runSearch,
	"export":   (*env).runExport,
	"rm":       (*env).runRm,
	"restore":  (*env).runRestore,
	"reindex":  (*env).runReindex,
}

func (e *env) flags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: mnote %s %s\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// withStore opens the store for a command.
func (e *env) withStore(fn func(st *sessionStore) int) int {
	st, err := e.openStore()
	if err != nil {
		return e.fail(exitAgent, err)
	}
	defer st.Close()
	return fn(st)
}

// sessionJSON is the shape of `mnote sessions --json`.
type sessionJSON struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Workspace      string `json:"workspace"`
	Runtime        string `json:"runtime"`
	CreatedMs      int64  `json:"createdMs"`
	UpdatedMs      int64  `json:"updatedMs"`
	Status         string `json:"status"`
	Turns          int    `json:"turns"`
	Messages       int    `json:"messages"`
	ToolCalls      int    `json:"toolCalls"`
	Updates        int    `json:"updates"`
	LastStopReason string `json:"lastStopReason"`
	TranscriptSize int64  `json:"transcriptBytes"`
	// Role is this account's role in a shared session ("" for a private
	// one); Owner its owner.
	Role  string `json:"role,omitempty"`
	Owner string `json:"owner,omitempty"`
}

func (e *env) runSessions(args []string) int {
	if len(args) > 0 && args[0] == "delete" {
		return e.deleteSession("sessions delete", args[1:])
	}
	fs := e.flags("sessions", "[--json] [--limit N] [--workspace DIR] | delete [--agent-copy] ID")
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 100, "how many sessions")
	ws := fs.String("workspace", "", "only sessions of this folder")
	if fs.Parse(args) != nil {
		return exitUsage
	}
	return e.withStore(func(st *sessionStore) int {
		rows, err := st.ix.ListSessions(context.Background(), store.ListOptions{Limit: *limit, Workspace: *ws})
		if err != nil {
			return e.fail(exitAgent, err)
		}
		// Shared sessions: this account's role, and those not on this
		// machine yet (when sync is on).
		roles := e.sharedRoles()
		local := map[string]bool{}
		for _, r := range rows {
			local[r.ID] = true
		}
		for id, sh := range roles {
			if !local[id] && *ws == "" {
				rows = append(rows, store.SessionRow{ID: id, Title: sh.title, UpdatedMs: sh.updated, Status: "shared"})
			}
		}
		if *asJSON {
			out := make([]sessionJSON, len(rows))
			for i, r := range rows {
				out[i] = sessionJSON{r.ID, r.Title, r.Workspace, r.Runtime, r.CreatedMs, r.UpdatedMs, r.Status, r.Turns, r.Messages, r.ToolCalls, r.Updates, r.LastStopReason, r.TranscriptBytes,
					roles[r.ID].role, roles[r.ID].owner}
			}
			return e.printJSON(out)
		}
		if len(rows) == 0 {
			fmt.Fprintln(e.stdout, "No sessions yet. Start one with: mnote prompt --agent NAME \"…\"")
			return exitOK
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		if len(roles) == 0 {
			fmt.Fprintln(tw, "ID\tUPDATED\tTURNS\tAGENT\tSTATUS\tTITLE")
		} else {
			fmt.Fprintln(tw, "ID\tUPDATED\tTURNS\tAGENT\tSTATUS\tROLE\tTITLE")
		}
		for _, r := range rows {
			if len(roles) == 0 {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, fmtTime(r.UpdatedMs), r.Turns, termLine(r.Runtime), termLine(statusText(r)), termLine(r.Title))
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.ID, fmtTime(r.UpdatedMs), r.Turns, termLine(r.Runtime), termLine(statusText(r)), orDefault(roles[r.ID].role, "-"), termLine(r.Title))
		}
		tw.Flush()
		return exitOK
	})
}

func statusText(r store.SessionRow) string {
	// A turn running, or left open by a killed mnote, says so rather than
	// how an earlier turn ended.
	if r.LastStopReason != "" && r.Status != store.StatusRunning && r.Status != store.StatusInterrupted {
		return r.LastStopReason
	}
	return r.Status
}

func (e *env) oneID(fs *flag.FlagSet, args []string) (string, bool) {
	words, err := parseArgs(fs, args)
	if err != nil {
		return "", false
	}
	if len(words) != 1 {
		fs.Usage()
		return "", false
	}
	return words[0], true
}

func (e *env) runShow(args []string) int {
	fs := e.flags("show", "[--json] [--thoughts] [--follow] ID")
	asJSON := fs.Bool("json", false, "print the thread as JSON")
	thoughts := fs.Bool("thoughts", false, "print thoughts in full")
	follow := fs.Bool("follow", false, "a shared session: print its turns as they come (Ctrl+C stops)")
	id, ok := e.oneID(fs, args)
	if !ok {
		return exitUsage
	}
	return e.withStore(func(st *sessionStore) int {
		if code, ok := e.showShared(st, id, *asJSON, *follow); ok {
			return code
		}
		p, err := st.loadPrior(id)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		snap := p.th.Snapshot()
		if *asJSON {
			return e.printJSON(map[string]any{"id": p.id, "info": p.info, "thread": snap})
		}
		// The thread is the agent's text: shown through termWriter.
		w := newTermWriter(e.stdout)
		fmt.Fprintf(w, "# %s\n\nsession %s · %s · %d turns\n\n", termLine(orDefault(p.info.Title, "(untitled)")), p.id, termLine(p.workspace), p.turns)
		writeThread(w, snap, markdownOptions{thoughts: *thoughts, toolIO: false})
		if line := costLine(l10n.FromEnv(), snap.Usage); line != "" {
			fmt.Fprintf(w, "\n%s\n", line)
		}
		if err := w.Flush(); err != nil {
			return e.fail(exitAgent, err)
		}
		return exitOK
	})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (e *env) runSearch(args []string) int {
	fs := e.flags("search", "[--json] [--limit N] QUERY")
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 20, "how many hits")
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	q := strings.Join(words, " ")
	if strings.TrimSpace(q) == "" {
		fs.Usage()
		return exitUsage
	}
	return e.withStore(func(st *sessionStore) int {
		hits, err := st.ix.Search(context.Background(), q, *limit)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		if *asJSON {
			if hits == nil {
				hits = []store.Hit{}
			}
			return e.printJSON(hits)
		}
		if len(hits) == 0 {
			fmt.Fprintf(e.stdout, "No matches for %q.\n", q)
			return exitOK
		}
		bold := isTerminal(e.stdout)
		for _, h := range hits {
			snip := snippetText(h.Snippet, bold)
			fmt.Fprintf(e.stdout, "%s  %s (turn %d, %s)\n    %s\n", h.SessionID, termLine(orDefault(h.Title, "(untitled)")), h.Turn, termLine(h.Role), strings.ReplaceAll(snip, "\n", " "))
		}
		return exitOK
	})
}

func (e *env) runRm(args []string) int { return e.deleteSession("rm", args) }

// deleteSession is mnote rm and mnote sessions delete: the session to the
// trash, with --agent-copy after the agent deleted its own copy.
func (e *env) deleteSession(name string, args []string) int {
	fs := e.flags(name, "[--agent-copy] ID")
	agentCopy := fs.Bool("agent-copy", false, "also delete the agent's own copy of the session (ACP session/delete; the agent must offer it); when that fails nothing is deleted")
	id, ok := e.oneID(fs, args)
	if !ok {
		return exitUsage
	}
	return e.withStore(func(st *sessionStore) int {
		full, err := st.resolveID(id)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		if *agentCopy {
			if err := e.deleteAgentCopy(st, full); err != nil {
				return e.fail(agentExit(err), err)
			}
		}
		if err := store.MoveToTrash(st.paths, full); err != nil {
			return e.fail(exitAgent, err)
		}
		if err := st.ix.Remove(context.Background(), full); err != nil {
			e.warn("index: %v", err)
		}
		fmt.Fprintf(e.stdout, "Moved session %s to the trash (%s). 'mnote restore %s' brings it back.\n", full, st.paths.TrashPath(full), full)
		return exitOK
	})
}

func (e *env) runRestore(args []string) int {
	fs := e.flags("restore", "ID")
	id, ok := e.oneID(fs, args)
	if !ok {
		return exitUsage
	}
	return e.withStore(func(st *sessionStore) int {
		if err := store.RestoreFromTrash(st.paths, id); err != nil {
			return e.fail(exitUsage, err)
		}
		if err := st.ix.ReindexFile(context.Background(), st.paths.TranscriptPath(id)); err != nil {
			e.warn("index: %v", err)
		}
		fmt.Fprintf(e.stdout, "Restored session %s.\n", id)
		return exitOK
	})
}

func (e *env) runReindex(args []string) int {
	fs := e.flags("reindex", "")
	if fs.Parse(args) != nil {
		return exitUsage
	}
	return e.withStore(func(st *sessionStore) int {
		last := -1
		err := st.ix.Rebuild(context.Background(), st.paths.Transcripts, func(done, total int) {
			if pct := done * 100 / max(total, 1); pct != last && (pct%10 == 0 || done == total) {
				last = pct
				fmt.Fprintf(e.stderr, "\rreindexing: %d of %d sessions (%d%%)", done, total, pct)
			}
		})
		fmt.Fprintln(e.stderr)
		if err != nil {
			return e.fail(exitAgent, err)
		}
		rows, _ := st.ix.ListSessions(context.Background(), store.ListOptions{Limit: 1 << 30})
		fmt.Fprintf(e.stdout, "Index rebuilt: %d sessions.\n", len(rows))
		return exitOK
	})
}
