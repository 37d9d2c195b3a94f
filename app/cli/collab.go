package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"mnote/cloudsync"
	"mnote/collab/client"
	"mnote/collab/roster"
	"mnote/controlplane/api"
	"mnote/internal/l10n"
)

// The shared-session commands register themselves with the session
// commands.
func init() {
	sessionCommands["devices"] = (*env).runDevices
	sessionCommands["members"] = (*env).runMembers
	sessionCommands["share"] = (*env).runShare
}

const devicesUsage = `usage: mnote devices [--json]

This account's devices (their keys open its shared sessions).

  (none)                 list the devices, this one marked
  pair                   let a new machine join: prints a code to type there,
                         then the 12 digits both machines must show
  join URL CODE          on the new machine: join with the code (token on stdin,
                         first line; then confirm the 12 digits)
  remove ID              remove a device; sessions you own continue under a new key
  safety ACCOUNT         the safety number to compare with ACCOUNT
  accept ACCOUNT         accept ACCOUNT's changed devices (after comparing)
`

// collabDir keeps the device key, pins and shared-session state.
func (e *env) collabDir() string { return filepath.Join(filepath.Dir(e.paths.ConfigFile), "collab") }

// withCollab opens the store, the Syncer (its control plane settings and
// HTTP client) and this machine's shared-session client. Sync must be on.
func (e *env) withCollab(ctx context.Context, fn func(c *client.Client, s *cloudsync.Syncer, st *sessionStore) int) int {
	return e.withSyncer(func(s *cloudsync.Syncer, st *sessionStore) int {
		c, err := e.openCollab(ctx, s)
		if err != nil {
			return e.collabFail(exitUsage, err)
		}
		return fn(c, s, st)
	})
}

func (e *env) openCollab(ctx context.Context, s *cloudsync.Syncer) (*client.Client, error) {
	ac, err := s.Client()
	if err != nil {
		return nil, err
	}
	c, err := client.Open(ctx, client.Options{Dir: e.collabDir(), API: ac, Logger: e.log})
	if err != nil {
		return nil, err
	}
	// The account's first device starts its device list; a later one
	// waits to be paired (mnote devices join).
	if _, err := c.Register(ctx); err != nil && !errors.Is(err, client.ErrNotPaired) {
		return nil, err
	}
	return c, nil
}

// collabFail says err in the person's words when it is one of the shared
// sessions' refusals, else as it is.
func (e *env) collabFail(code int, err error) int {
	loc := l10n.FromEnv()
	var kc *roster.KeyChangedError
	var ae *api.Error
	switch {
	case errors.Is(err, cloudsync.ErrDisabled), errors.Is(err, cloudsync.ErrNotConfigured):
		e.say(loc.T("cli.collab_needs_sync"))
	case errors.Is(err, client.ErrNotPaired):
		e.say(loc.T("cli.collab_not_paired", "mnote devices pair", "mnote devices join URL CODE"))
	case errors.As(err, &kc):
		e.say(loc.T("cli.collab_key_changed", kc.Account, kc.Account, kc.Account))
	case errors.Is(err, client.ErrSASRejected):
		e.say(loc.T("cli.collab_sas_rejected"))
	case errors.Is(err, client.ErrPairCancelled):
		e.say(loc.T("cli.collab_pair_cancelled"))
	case errors.Is(err, client.ErrNotOwner), errors.As(err, &ae) && ae.Code == api.CodeForbidden && !errors.Is(err, client.ErrRole):
		e.say(loc.T("cli.collab_not_owner"))
	case errors.Is(err, roster.ErrNotOwnerDevice), errors.Is(err, roster.ErrUnknownSigner), errors.Is(err, roster.ErrBrokenChain),
		errors.Is(err, roster.ErrBadSignature), errors.Is(err, roster.ErrFork), errors.Is(err, roster.ErrRollback), errors.Is(err, client.ErrOwnerChanged):
		e.say(loc.T("cli.collab_unverified", err.Error()))
	default:
		e.say(err.Error())
	}
	return code
}

func (e *env) runDevices(args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(e.stderr, devicesUsage)
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cmd, rest := "list", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	loc := l10n.FromEnv()
	switch cmd {
	case "list":
		fs := e.flags("devices", "[--json]")
		asJSON := fs.Bool("json", false, "print JSON")
		if _, err := parseArgs(fs, rest); err != nil {
			return exitUsage
		}
		return e.withCollab(ctx, func(c *client.Client, _ *cloudsync.Syncer, _ *sessionStore) int {
			ds, err := c.Devices(ctx)
			if err != nil {
				return e.collabFail(exitAgent, err)
			}
			if *asJSON {
				return e.printJSON(ds)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, loc.T("cli.collab_devices_heading"))
			for _, d := range ds {
				this := ""
				if d.This {
					this = loc.T("cli.collab_this_device")
				}
				fmt.Fprintf(tw, "%s\t%s%s\t%s\t%s\n", d.ID, termLine(d.Name), this, d.Fingerprint, loc.Date(d.Created.Local()))
			}
			tw.Flush()
			return exitOK
		})
	case "pair":
		fs := e.flags("devices pair", "")
		if _, err := parseArgs(fs, rest); err != nil {
			return exitUsage
		}
		in := bufio.NewReader(e.stdin)
		return e.withCollab(ctx, func(c *client.Client, s *cloudsync.Syncer, _ *sessionStore) int {
			dev, err := c.Pair(ctx, client.PairUI{
				Code: func(code string, until time.Time) {
					fmt.Fprintln(e.stdout, loc.T("cli.collab_pair_code", s.Settings().URL, code, loc.Date(until.Local())))
				},
				Confirm: func(sas string) bool { return e.confirmSAS(loc, in, sas) },
			})
			if err != nil {
				return e.collabFail(exitAgent, err)
			}
			fmt.Fprintln(e.stdout, loc.T("cli.collab_paired", dev.DeviceID, termLine(dev.Name)))
			return exitOK
		})
	case "join":
		return e.devicesJoin(ctx, loc, rest)
	case "remove", "safety", "accept":
		fs := e.flags("devices "+cmd, "ID|ACCOUNT")
		arg, ok := e.oneID(fs, rest)
		if !ok {
			return exitUsage
		}
		return e.withCollab(ctx, func(c *client.Client, _ *cloudsync.Syncer, _ *sessionStore) int {
			switch cmd {
			case "remove":
				if err := c.RemoveDevice(ctx, arg); err != nil {
					return e.collabFail(exitAgent, err)
				}
				fmt.Fprintln(e.stdout, loc.T("cli.collab_device_removed", arg))
			case "safety":
				n, err := c.SafetyNumber(ctx, arg)
				if err != nil {
					return e.collabFail(exitAgent, err)
				}
				fmt.Fprintln(e.stdout, loc.T("cli.collab_safety", arg, n))
			case "accept":
				if err := c.AcceptKeys(ctx, arg); err != nil {
					return e.collabFail(exitAgent, err)
				}
				fmt.Fprintln(e.stdout, loc.T("cli.collab_keys_accepted", arg, c.Pins().Status(arg).Fingerprint))
			}
			return exitOK
		})
	default:
		fmt.Fprintf(e.stderr, "mnote devices: unknown command %q\n\n%s", cmd, devicesUsage)
		return exitUsage
	}
}

// confirmSAS shows the 12 digits and reads the person's answer.
func (e *env) confirmSAS(loc l10n.Locale, in *bufio.Reader, sas string) bool {
	fmt.Fprintln(e.stdout, loc.T("cli.collab_sas", sas))
	fmt.Fprint(e.stdout, loc.T("cli.collab_sas_ask"))
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	fmt.Fprintln(e.stdout)
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes", "是", "是的", "对":
		return true
	}
	return false
}

// devicesJoin sets up sync with the URL and the token from stdin, turns
// it on, and joins the account with the code.
func (e *env) devicesJoin(ctx context.Context, loc l10n.Locale, args []string) int {
	fs := e.flags("devices join", "URL CODE  (the token on stdin, first line)")
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(words) != 2 {
		fs.Usage()
		return exitUsage
	}
	in := bufio.NewReader(e.stdin)
	line, err := in.ReadString('\n')
	token := strings.TrimSpace(line)
	if token == "" {
		if err == nil {
			err = errors.New("empty line")
		}
		e.say(loc.T("cli.collab_no_token", err.Error()))
		return exitUsage
	}
	return e.withSyncer(func(s *cloudsync.Syncer, _ *sessionStore) int {
		if err := s.Configure(ctx, words[0], &token, s.Settings().AllowTitles); err != nil {
			return e.fail(exitUsage, err)
		}
		if err := s.Enable(ctx); err != nil {
			return e.fail(exitUsage, err)
		}
		c, err := e.openCollab(ctx, s)
		if err != nil {
			return e.collabFail(exitAgent, err)
		}
		if err := c.Join(ctx, words[1], client.PairUI{Confirm: func(sas string) bool { return e.confirmSAS(loc, in, sas) }}); err != nil {
			return e.collabFail(exitAgent, err)
		}
		fmt.Fprintln(e.stdout, loc.T("cli.collab_joined", c.Account()))
		return exitOK
	})
}

const membersUsage = `usage: mnote members SESSION [--json]

The members of a shared session and their roles.

  SESSION                            list the members
  SESSION add ACCOUNT --role ROLE    add a member or change a role (editor, commenter, viewer)
  SESSION remove ACCOUNT             remove a member (a new key from now on)
`

func (e *env) runMembers(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(e.stderr, membersUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	session, rest := args[0], args[1:]
	cmd := "list"
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		cmd, rest = rest[0], rest[1:]
	}
	loc := l10n.FromEnv()
	fs := e.flags("members "+cmd, "…")
	asJSON := fs.Bool("json", false, "print JSON")
	role := fs.String("role", "", "editor, commenter or viewer")
	words, err := parseArgs(fs, rest)
	if err != nil {
		return exitUsage
	}
	return e.withCollab(ctx, func(c *client.Client, _ *cloudsync.Syncer, st *sessionStore) int {
		id, err := st.resolveSharedID(session)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		switch {
		case cmd == "list" && len(words) == 0:
			ms, err := c.Members(ctx, id)
			if err != nil {
				return e.collabFail(exitAgent, err)
			}
			if *asJSON {
				return e.printJSON(ms)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, loc.T("cli.collab_members_heading"))
			for _, m := range ms {
				fmt.Fprintf(tw, "%s\t%s\n", termLine(m.Account), m.Role)
			}
			tw.Flush()
		case cmd == "add" && len(words) == 1:
			if err := c.SetMember(ctx, id, words[0], roster.Role(*role)); err != nil {
				return e.collabFail(exitAgent, err)
			}
			fmt.Fprintln(e.stdout, loc.T("cli.collab_member_set", termLine(words[0]), id, *role))
		case cmd == "remove" && len(words) == 1:
			if err := c.RemoveMember(ctx, id, words[0]); err != nil {
				return e.collabFail(exitAgent, err)
			}
			fmt.Fprintln(e.stdout, loc.T("cli.collab_member_removed", termLine(words[0]), id))
		default:
			fmt.Fprint(e.stderr, membersUsage)
			return exitUsage
		}
		return exitOK
	})
}

func (e *env) runShare(args []string) int {
	fs := e.flags("share", "SESSION --members [--json]")
	members := fs.Bool("members", false, "share the session with members (each runs turns on their own agent)")
	asJSON := fs.Bool("json", false, "print JSON")
	id, ok := e.oneID(fs, args)
	if !ok {
		return exitUsage
	}
	loc := l10n.FromEnv()
	if !*members {
		e.say(loc.T("cli.collab_share_usage", "mnote share SESSION --members", "mnote sync share SESSION"))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return e.withCollab(ctx, func(c *client.Client, s *cloudsync.Syncer, st *sessionStore) int {
		id, err := st.resolveID(id)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		row, err := st.ix.GetSession(ctx, id)
		if err != nil {
			return e.fail(exitAgent, err)
		}
		if err := s.SendSession(ctx, cloudsync.MetaFromRow(row)); err != nil {
			return e.fail(exitAgent, err)
		}
		if err := c.Share(ctx, id); err != nil {
			return e.collabFail(exitAgent, err)
		}
		if *asJSON {
			return e.printJSON(map[string]string{"sessionId": id, "owner": c.Account(), "role": string(roster.Owner)})
		}
		fmt.Fprintln(e.stdout, loc.T("cli.collab_shared", id, id))
		return exitOK
	})
}
