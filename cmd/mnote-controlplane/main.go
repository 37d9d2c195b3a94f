package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

const usage = `mnote-controlplane — the server mnote syncs session metadata and shares to.

Commands:
  serve [--addr 127.0.0.1:8080] [--base-url URL] [--rate 20] [--burst 100]
                        serve the API and the share pages (plain HTTP; put
                        a TLS proxy in front and give --base-url)
  user add NAME         create a user and print its token (shown only once)
  user list             list users and their tokens' ids
  token add USER        print another token for USER (name or id)
  token revoke ID       revoke a token by its id (tok_...) or the token itself
  version               print the version

Every command takes --db URL: postgres://user:pass@host/db or sqlite:PATH.
Default: $MNOTE_CONTROLPLANE_DB, else sqlite:mnote-controlplane.db here.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// cli is one run of the command.
type cli struct {
	stdout, stderr io.Writer
}

func run(args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return c.serve(rest)
	case "user", "token":
		if len(rest) == 0 {
			return c.usageErr("%s needs a subcommand (see mnote-controlplane help)", cmd)
		}
		return c.admin(cmd+" "+rest[0], rest[1:])
	case "version", "--version":
		fmt.Fprintf(stdout, "mnote-controlplane %s\n", Version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	return c.usageErr("unknown command %q\n\n%s", cmd, usage)
}

func (c *cli) usageErr(format string, a ...any) int {
	fmt.Fprintf(c.stderr, "mnote-controlplane: "+format+"\n", a...)
	return exitUsage
}

func (c *cli) fail(err error) int {
	fmt.Fprintf(c.stderr, "mnote-controlplane: %v\n", err)
	return exitFail
}

func (c *cli) flags(name, args string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: mnote-controlplane %s %s\n", name, args)
		fs.PrintDefaults()
	}
	def := os.Getenv("MNOTE_CONTROLPLANE_DB")
	if def == "" {
		def = controlplane.DefaultDB
	}
	db := fs.String("db", def, "the store: postgres://user:pass@host/db or sqlite:PATH (default from $MNOTE_CONTROLPLANE_DB)")
	return fs, db
}

// parseArgs parses flags wherever they are among the positional words.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return words, nil
		}
		if args[0] == "--" {
			return append(words, args[1:]...), nil
		}
		words = append(words, args[0])
		args = args[1:]
	}
}

func (c *cli) admin(name string, args []string) int {
	var argsHelp string
	want := 1
	switch name {
	case "user add":
		argsHelp = "NAME [--db URL]"
	case "user list":
		argsHelp, want = "[--db URL]", 0
	case "token add":
		argsHelp = "USER [--db URL]"
	case "token revoke":
		argsHelp = "TOKEN-ID|TOKEN [--db URL]"
	default:
		return c.usageErr("unknown command %q\n\n%s", name, usage)
	}
	fs, db := c.flags(name, argsHelp)
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(words) != want {
		fs.Usage()
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	slog.SetDefault(slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	st, err := controlplane.Open(ctx, *db)
	if err != nil {
		return c.fail(err)
	}
	defer st.Close()
	now := time.Now()
	switch name {
	case "user add":
		userName := strings.TrimSpace(words[0])
		if userName == "" || len(userName) > 200 || api.CleanText(userName, 200) != userName {
			// Control characters and invalid UTF-8 (which PostgreSQL
			// refuses) have no place in a name shown by GET /v1/me.
			return c.usageErr("user add: give a name of 1 to 200 bytes of text, without control characters")
		}
		token, hash, err := controlplane.NewToken()
		if err != nil {
			return c.fail(err)
		}
		u, t, err := st.AddUser(ctx, userName, hash, now)
		if err != nil {
			if errors.Is(err, controlplane.ErrNameTaken) {
				return c.fail(fmt.Errorf("%w; to give them another token: mnote-controlplane token add %q", err, userName))
			}
			return c.fail(err)
		}
		fmt.Fprintf(c.stderr, "user %s (%s) created; token %s. The token is shown only this once:\n", u.Name, u.ID, t.ID)
		fmt.Fprintln(c.stdout, token)
	case "token add":
		token, hash, err := controlplane.NewToken()
		if err != nil {
			return c.fail(err)
		}
		t, err := st.AddToken(ctx, words[0], hash, now)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stderr, "token %s added for user %s. It is shown only this once:\n", t.ID, t.UserID)
		fmt.Fprintln(c.stdout, token)
	case "token revoke":
		arg := words[0]
		if strings.HasPrefix(arg, controlplane.TokenPrefix) {
			arg = controlplane.HashToken(arg)
		}
		t, err := st.RevokeToken(ctx, arg, now)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "token %s of user %s revoked\n", t.ID, t.UserID)
	case "user list":
		users, err := st.Users(ctx)
		if err != nil {
			return c.fail(err)
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "USER ID\tNAME\tCREATED\tTOKENS")
		for _, u := range users {
			var toks []string
			for _, t := range u.Tokens {
				s := t.ID
				if !t.RevokedAt.IsZero() {
					s += " (revoked)"
				}
				toks = append(toks, s)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.ID, u.Name, u.CreatedAt.Format(time.DateOnly), strings.Join(toks, ", "))
		}
		tw.Flush()
	}
	return exitOK
}

func (c *cli) serve(args []string) int {
	fs, db := c.flags("serve", "[--addr HOST:PORT] [--db URL] [--base-url URL] [--rate N] [--burst N] [--failed-auth-per-minute N]")
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `host:port` (use :8080 for every interface)")
	baseURL := fs.String("base-url", "", "public `URL` of this server, for share links (default: from each request's Host)")
	ratePerSec := fs.Float64("rate", 20, "requests per second per token, sustained (0: no limit; shared by the servers on one PostgreSQL)")
	burst := fs.Int("burst", 100, "requests per token in a burst")
	badAuth := fs.Int("failed-auth-per-minute", controlplane.DefaultFailedAuthPerMinute, "requests with a missing or bad token per client address a minute, then 429 (-1: no limit; shared by the servers on one PostgreSQL)")
	logFormat := fs.String("log-format", "text", "access and error log format: text or json (on stderr)")
	purgeEvery := fs.Duration("purge-every", 10*time.Minute, "how often expired shares are deleted")
	leaseTTL := fs.Duration("lease-ttl", controlplane.DefaultLeaseTTL, "how long a shared session's turn lease lasts unless its holder renews it")
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(words) > 0 {
		fs.Usage()
		return exitUsage
	}
	var h slog.Handler
	switch *logFormat {
	case "text":
		h = slog.NewTextHandler(c.stderr, nil)
	case "json":
		h = slog.NewJSONHandler(c.stderr, nil)
	default:
		return c.usageErr("--log-format must be text or json")
	}
	if *baseURL != "" && !strings.HasPrefix(*baseURL, "http://") && !strings.HasPrefix(*baseURL, "https://") {
		return c.usageErr("--base-url must start with https:// (or http://)")
	}
	if *leaseTTL < time.Second {
		return c.usageErr("--lease-ttl must be at least 1s")
	}
	if *purgeEvery <= 0 {
		return c.usageErr("--purge-every must be > 0")
	}
	log := slog.New(h)
	slog.SetDefault(log)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := controlplane.Open(ctx, *db)
	if err != nil {
		return c.fail(err)
	}
	defer st.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.fail(fmt.Errorf("listen on %s: %w (is another server using the port? choose one with --addr)", *addr, err))
	}
	srv := controlplane.NewServer(controlplane.Config{
		Store: st, BaseURL: *baseURL, RatePerSecond: *ratePerSec, Burst: *burst, FailedAuthPerMinute: *badAuth, Logger: log,
		LeaseTTL: *leaseTTL,
	})
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(h, slog.LevelWarn),
	}
	// Live streams run until their clients leave: end them at shutdown
	// (clients reconnect, to another server, from their last entry).
	hs.RegisterOnShutdown(srv.CloseLive)
	pctx, cancelPurge := context.WithCancel(ctx)
	defer cancelPurge()
	go srv.PurgeExpiredShares(pctx, *purgeEvery)

	fmt.Fprintf(c.stdout, "mnote-controlplane: serving on http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	code := exitOK
	select {
	case <-ctx.Done():
		log.Info("shutting down", "reason", "signal")
	case err := <-served:
		log.Error("server stopped", "err", err)
		code = exitFail
	}
	// Finish the requests in flight (their writes are committed or not
	// at all), then close the store.
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "err", err)
		code = exitFail
	}
	cancelPurge()
	if err := st.Close(); err != nil {
		log.Warn("close the store", "err", err)
	}
	log.Info("stopped")
	return code
}
