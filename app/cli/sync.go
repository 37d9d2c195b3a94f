package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"mnote/app/export"
	"mnote/cloudsync"
)

// The sync command registers itself with the session commands.
func init() { sessionCommands["sync"] = (*env).runSync }

const syncUsage = `usage: mnote sync COMMAND

Opt-in sync of session metadata (ids, agent, counts, times, status and,
if allowed, titles; never messages, tool input/output or file contents)
to a control plane, and read-only share links.

  status                 show whether sync is on, pending and refused records, last sync and error
  set --url URL --token-stdin [--allow-titles]
                         set the control plane and token (read from stdin); checks them
  on                     turn sync on and send every session's record
  off                    turn sync off at once: nothing more is sent
  now                    send what is waiting now
  remove-data            delete all of this account's records and shares on the
                         control plane, forget the local sync state, turn sync off
  share ID [--expires DURATION] [--include-thoughts] [--include-tool-io]
                         publish a redacted, read-only snapshot of a session
  shares                 list your shares
  unshare SHARE-ID       revoke a share
`

func (e *env) runSync(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(e.stderr, syncUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "status":
		return e.syncStatus(ctx, rest)
	case "set":
		return e.syncSet(ctx, rest)
	case "on", "off", "now", "remove-data", "shares":
		fs := e.flags("sync "+cmd, "")
		if _, err := parseArgs(fs, rest); err != nil {
			return exitUsage
		}
		return e.withSyncer(func(s *cloudsync.Syncer, st *sessionStore) int { return e.syncSimple(ctx, cmd, s) })
	case "share":
		return e.syncShare(ctx, rest)
	case "unshare":
		fs := e.flags("sync unshare", "SHARE-ID")
		id, ok := e.oneID(fs, rest)
		if !ok {
			return exitUsage
		}
		return e.withSyncer(func(s *cloudsync.Syncer, _ *sessionStore) int {
			if err := s.Unshare(ctx, id); err != nil {
				return e.fail(exitAgent, err)
			}
			fmt.Fprintf(e.stdout, "Share %s revoked.\n", id)
			return exitOK
		})
	default:
		fmt.Fprintf(e.stderr, "mnote sync: unknown command %q\n\n%s", cmd, syncUsage)
		return exitUsage
	}
}

// withSyncer opens the store and a Syncer that sends only when asked
// (no background worker: the command decides).
func (e *env) withSyncer(fn func(s *cloudsync.Syncer, st *sessionStore) int) int {
	return e.withStore(func(st *sessionStore) int {
		opts := cloudsync.Options{Paths: e.paths, Logger: e.log, Sessions: st.ix, Manual: true}
		if r, err := export.TitleRedactor(e.paths); err == nil {
			opts.TitleFilter = r.String
		} else {
			return e.fail(exitUsage, err)
		}
		s, err := cloudsync.Open(opts)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		defer s.Close()
		return fn(s, st)
	})
}

func (e *env) syncStatus(ctx context.Context, args []string) int {
	fs := e.flags("sync status", "[--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseArgs(fs, args); err != nil {
		return exitUsage
	}
	return e.withSyncer(func(s *cloudsync.Syncer, _ *sessionStore) int {
		st, err := s.Status(ctx)
		if err != nil {
			return e.fail(exitAgent, err)
		}
		if *asJSON {
			return e.printJSON(st)
		}
		e.printStatus(st)
		return exitOK
	})
}

func (e *env) printStatus(st cloudsync.Status) {
	state := "off"
	switch {
	case st.Enabled:
		state = "on"
	case !st.Configured:
		state = "off (not set up: mnote sync set --url URL --token-stdin)"
	}
	fmt.Fprintf(e.stdout, "Sync:          %s\n", state)
	if st.URL != "" {
		fmt.Fprintf(e.stdout, "Control plane: %s\n", st.URL)
	}
	fmt.Fprintf(e.stdout, "Titles:        %s\n", map[bool]string{true: "synced", false: "not synced"}[st.AllowTitles])
	last := "never"
	if !st.LastSync.IsZero() {
		last = st.LastSync.Local().Format("2006-01-02 15:04:05")
	}
	fmt.Fprintf(e.stdout, "Last sync:     %s\nPending:       %d\n", last, st.Pending)
	if !st.NextAttempt.IsZero() {
		fmt.Fprintf(e.stdout, "Next attempt:  %s\n", st.NextAttempt.Local().Format("2006-01-02 15:04:05"))
	}
	if st.LastError != "" {
		fmt.Fprintf(e.stdout, "Last error:    %s\n", st.LastError)
	}
	if st.Parked > 0 {
		fmt.Fprintf(e.stdout, "Refused:       %d (kept; sent again when the session changes, or the URL or token does)\n", st.Parked)
		for _, p := range st.ParkedRecords {
			fmt.Fprintf(e.stdout, "  %s %s  %s\n", p.ParkedAt.Local().Format("2006-01-02 15:04:05"), p.SessionID, p.Error)
		}
		if n := st.Parked - len(st.ParkedRecords); n > 0 {
			fmt.Fprintf(e.stdout, "  … and %d more\n", n)
		}
	}
}

func (e *env) syncSet(ctx context.Context, args []string) int {
	fs := e.flags("sync set", "--url URL --token-stdin [--allow-titles[=false]] [--no-check]")
	rawURL := fs.String("url", "", "the control plane, e.g. https://cp.example.org")
	tokenStdin := fs.Bool("token-stdin", false, "read the token from stdin (first line)")
	allowTitles := fs.Bool("allow-titles", false, "sync session titles too")
	noCheck := fs.Bool("no-check", false, "save without asking the control plane whose token it is")
	if _, err := parseArgs(fs, args); err != nil {
		return exitUsage
	}
	if *rawURL == "" {
		fs.Usage()
		return exitUsage
	}
	titlesSet := false
	fs.Visit(func(f *flag.Flag) { titlesSet = titlesSet || f.Name == "allow-titles" })
	var token *string
	if *tokenStdin {
		line, err := bufio.NewReader(e.stdin).ReadString('\n')
		line = strings.TrimSpace(line)
		if line == "" {
			if err == nil {
				err = errors.New("empty line")
			}
			return e.usageErr("--token-stdin: no token on stdin (%v)", err)
		}
		token = &line
	}
	return e.withSyncer(func(s *cloudsync.Syncer, _ *sessionStore) int {
		titles := *allowTitles
		if !titlesSet {
			titles = s.Settings().AllowTitles
		}
		if err := s.Configure(ctx, *rawURL, token, titles); err != nil {
			return e.fail(exitUsage, err)
		}
		st, _ := s.Status(ctx)
		if !st.Configured {
			return e.fail(exitUsage, errors.New("no token yet: give one with --token-stdin"))
		}
		if !*noCheck {
			me, err := s.Me(ctx)
			if err != nil {
				return e.fail(exitAgent, fmt.Errorf("saved, but the control plane did not accept the token: %w", err))
			}
			fmt.Fprintf(e.stdout, "Signed in to %s as %s.\n", st.URL, me.Name)
		}
		if !st.Enabled {
			fmt.Fprintln(e.stdout, "Sync is off; 'mnote sync on' turns it on.")
		}
		return exitOK
	})
}

func (e *env) syncSimple(ctx context.Context, cmd string, s *cloudsync.Syncer) int {
	switch cmd {
	case "on":
		if err := s.Enable(ctx); err != nil {
			return e.fail(exitUsage, err)
		}
		fmt.Fprintln(e.stdout, "Sync is on.")
		return e.syncAndReport(ctx, s)
	case "off":
		if err := s.Disable(); err != nil {
			return e.fail(exitAgent, err)
		}
		fmt.Fprintln(e.stdout, "Sync is off; nothing more is sent.")
	case "now":
		if err := s.Backfill(ctx); err != nil {
			return e.fail(exitAgent, err)
		}
		return e.syncAndReport(ctx, s)
	case "remove-data":
		n, err := s.RemoveMyData(ctx)
		if err != nil {
			return e.fail(exitAgent, fmt.Errorf("%w (deleted so far: %d sessions, %d shares; run it again to finish)", err, n.Sessions, n.Shares))
		}
		fmt.Fprintf(e.stdout, "Deleted %d session records and %d shares from the control plane. Sync is off.\n", n.Sessions, n.Shares)
	case "shares":
		shares, err := s.Shares(ctx)
		if err != nil {
			return e.fail(exitAgent, err)
		}
		if len(shares) == 0 {
			fmt.Fprintln(e.stdout, "No shares.")
		}
		for _, sh := range shares {
			exp := "never"
			if !sh.ExpiresAt.IsZero() {
				exp = sh.ExpiresAt.Local().Format("2006-01-02 15:04")
			}
			link := sh.URL
			if link == "" {
				link = "(link shown only on the machine that published it)"
			}
			fmt.Fprintf(e.stdout, "%s  session %s  expires %s  %s\n", sh.ID, sh.SessionID, exp, link)
		}
	}
	return exitOK
}

func (e *env) syncAndReport(ctx context.Context, s *cloudsync.Syncer) int {
	err := s.SyncNow(ctx)
	st, serr := s.Status(ctx)
	if err != nil {
		return e.fail(exitAgent, fmt.Errorf("%w (%d records wait and are sent the next time)", err, st.Pending))
	}
	if serr != nil {
		return e.fail(exitAgent, serr)
	}
	fmt.Fprintf(e.stdout, "Synced; %d records waiting.\n", st.Pending)
	return exitOK
}

func (e *env) syncShare(ctx context.Context, args []string) int {
	fs := e.flags("sync share", "[--expires DURATION] [--include-thoughts] [--include-tool-io] ID")
	expires := fs.Duration("expires", 0, "the share stops working after this long (0: until revoked)")
	thoughts := fs.Bool("include-thoughts", false, "include the agent's thoughts")
	toolIO := fs.Bool("include-tool-io", false, "include tool calls' input and output")
	id, ok := e.oneID(fs, args)
	if !ok {
		return exitUsage
	}
	return e.withSyncer(func(s *cloudsync.Syncer, st *sessionStore) int {
		full, err := st.resolveID(id)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		p, err := st.loadPrior(full)
		if err != nil {
			return e.fail(exitAgent, err)
		}
		r, err := e.redactor(p.workspace)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		sess := export.Session{ID: full, Title: p.info.Title, Runtime: p.runtime, Workspace: p.workspace,
			CreatedMs: p.info.CreatedMs, UpdatedMs: p.info.UpdatedMs, Turns: p.turns}
		snap, err := export.Share(sess, p.th.Snapshot(), export.Options{Redactor: r, IncludeThoughts: *thoughts, IncludeToolIO: *toolIO})
		if err != nil {
			return e.fail(exitAgent, err)
		}
		row, err := st.ix.GetSession(ctx, full)
		if err != nil {
			return e.fail(exitAgent, fmt.Errorf("session %s is not in the index (try 'mnote reindex'): %w", full, err))
		}
		var until time.Time
		if *expires > 0 {
			until = time.Now().Add(*expires)
		}
		sh, err := s.Publish(ctx, snap, cloudsync.MetaFromRow(row), until)
		if err != nil {
			return e.fail(exitAgent, err)
		}
		fmt.Fprintf(e.stdout, "%s\n", sh.URL)
		fmt.Fprintf(e.stderr, "Share %s published (redacted, read-only); 'mnote sync unshare %s' revokes it.\n", sh.ID, sh.ID)
		return exitOK
	})
}
