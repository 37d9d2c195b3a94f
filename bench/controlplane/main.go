// Command controlplane is the control plane's load benchmark: many
// concurrent clients, each its own user with its own token, upsert session
// records against a real mnote-controlplane process (loopback only), once
// on SQLite and once on PostgreSQL (a throwaway server, fsync on). After
// each run it checks that no write was lost or duplicated — through the
// API (every client lists exactly its records at their final versions)
// and in the database (row count and sum of versions) — and prints
// throughput and latency per store, and PostgreSQL's throughput as a
// ratio of SQLite's measured in the same run.
//
//	go run -tags sqlite_fts5 ./bench/controlplane [-clients 200] [-puts 500] [-stores sqlite,postgres]
//
// The server runs without a rate limit (--rate 0): the point is the
// store, not the limiter.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/loadgen"
	"mnote/controlplane/pgtest"
)

func main() {
	clients := flag.Int("clients", 200, "concurrent clients (each a user with its own token)")
	puts := flag.Int("puts", 500, "PUTs per client")
	sessions := flag.Int("sessions", 0, "session ids per client (default: puts/5, so 5 versions each)")
	stores := flag.String("stores", "sqlite,postgres", "stores to run, comma-separated")
	server := flag.String("server", "", "mnote-controlplane binary (default: build one)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *clients, *puts, *sessions, strings.Split(*stores, ","), *server); err != nil {
		fmt.Fprintln(os.Stderr, "bench/controlplane:", err)
		os.Exit(1)
	}
}

type row struct {
	store string
	res   loadgen.Result
	rows  int64
}

func run(ctx context.Context, clients, puts, sessions int, stores []string, server string) error {
	tmp, err := os.MkdirTemp("", "mnote-bench-cp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if server == "" {
		server = filepath.Join(tmp, "mnote-controlplane")
		fmt.Fprintln(os.Stderr, "building mnote-controlplane…")
		b := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", server, "./cmd/mnote-controlplane")
		b.Stdout, b.Stderr = os.Stderr, os.Stderr
		if err := b.Run(); err != nil {
			return fmt.Errorf("build the server: %w", err)
		}
	}
	if server, err = filepath.Abs(server); err != nil {
		return err
	}
	if sessions <= 0 {
		sessions = max(1, puts/5)
	}
	var rows []row
	for _, kind := range stores {
		var db string
		switch strings.TrimSpace(kind) {
		case "sqlite":
			db = "sqlite:" + filepath.Join(tmp, "cp.db")
		case "postgres":
			pg, err := pgtest.Start(ctx, pgtest.Options{Durable: true})
			if err != nil {
				return err
			}
			defer pg.Close()
			if db, err = pg.CreateDB(ctx, "bench"); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown store %q (sqlite or postgres)", kind)
		}
		fmt.Fprintf(os.Stderr, "%s: %d clients x %d PUTs over %d sessions each…\n", kind, clients, puts, sessions)
		r, err := runOne(ctx, kind, db, server, tmp, clients, puts, sessions)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		rows = append(rows, r)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "store\tclients\tPUTs\tseconds\tPUTs/s\tp50 ms\tp99 ms\tmax ms\trows checked\tlost/dup\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.0f\t%.2f\t%.2f\t%.2f\t%d\t%s\t\n", r.store, clients, r.res.Requests, r.res.Elapsed.Seconds(),
			r.res.Throughput, ms(r.res.P50), ms(r.res.P99), ms(r.res.Max), r.rows, "0/0")
	}
	tw.Flush()
	if len(rows) == 2 {
		fmt.Printf("throughput %s/%s: %.2fx\n", rows[1].store, rows[0].store, rows[1].res.Throughput/rows[0].res.Throughput)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func runOne(ctx context.Context, kind, db, server, tmp string, clients, puts, sessions int) (row, error) {
	// The users and their tokens, straight into the store.
	st, err := controlplane.Open(ctx, db)
	if err != nil {
		return row{}, err
	}
	tokens := make([]string, clients)
	for i := range tokens {
		tok, hash, err := controlplane.NewToken()
		if err != nil {
			st.Close()
			return row{}, err
		}
		if _, _, err := st.AddUser(ctx, fmt.Sprintf("bench-%04d", i), hash, time.Now()); err != nil {
			st.Close()
			return row{}, err
		}
		tokens[i] = tok
	}
	st.Close()

	logPath := filepath.Join(tmp, kind+"-server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return row{}, err
	}
	defer logf.Close()
	cmd := exec.Command(server, "serve", "--addr", "127.0.0.1:0", "--db", db, "--rate", "0", "--log-format", "json")
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return row{}, err
	}
	if err := cmd.Start(); err != nil {
		return row{}, err
	}
	exited := make(chan error, 1)
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	go func() { exited <- cmd.Wait() }()
	if err != nil {
		return row{}, fmt.Errorf("server did not start: %w (log: %s)", err, logPath)
	}
	base := strings.TrimSpace(line[strings.Index(line, "http://"):])
	if resp, err := http.Get(base + "/healthz"); err != nil || resp.StatusCode != 200 {
		return row{}, fmt.Errorf("server not healthy: %v", err)
	}

	cfg := loadgen.Config{BaseURL: base, Tokens: tokens, PutsPerClient: puts, SessionsPerClient: sessions, Prefix: "bench"}
	res, err := loadgen.Run(ctx, cfg)
	if err != nil {
		return row{}, err
	}
	if err := loadgen.Verify(ctx, cfg); err != nil {
		return row{}, err
	}
	// Stop the server the way an operator would, then count in the
	// database itself.
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			return row{}, fmt.Errorf("server exit after SIGTERM: %w", err)
		}
	case <-time.After(30 * time.Second):
		return row{}, errors.New("server still running 30 s after SIGTERM")
	}
	n, err := countRows(ctx, kind, db, clients, puts, sessions)
	if err != nil {
		return row{}, err
	}
	return row{store: kind, res: res, rows: n}, nil
}

// countRows checks the sessions table directly: one row per client and
// session id, and the sum of versions the PUTs must have left.
func countRows(ctx context.Context, kind, db string, clients, puts, sessions int) (int64, error) {
	var (
		sqldb *sql.DB
		err   error
	)
	if kind == "sqlite" {
		sqldb, err = sql.Open("sqlite3", "file:"+strings.TrimPrefix(db, "sqlite:")+"?mode=ro")
	} else {
		sqldb, err = sql.Open("pgx", db)
	}
	if err != nil {
		return 0, err
	}
	defer sqldb.Close()
	var n, sum, users int64
	if err := sqldb.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(version), 0), count(DISTINCT user_id) FROM sessions").Scan(&n, &sum, &users); err != nil {
		return 0, err
	}
	// Each client's PUTs over its sessions sum to the final versions,
	// which add up to exactly puts per client.
	if n != int64(clients*sessions) || sum != int64(clients*puts) || users != int64(clients) {
		return n, fmt.Errorf("database holds %d rows of %d users, versions summing to %d; want %d rows of %d users summing to %d",
			n, users, sum, clients*sessions, clients, clients*puts)
	}
	return n, nil
}
