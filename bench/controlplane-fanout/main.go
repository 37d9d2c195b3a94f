// Command controlplane-fanout is the fan-out load test of shared
// sessions (package controlplane/loadgen/fanout): 3 mnote-controlplane
// processes on one throwaway PostgreSQL, 200 members in 50 shared
// sessions of 4, each with a live stream on one of the servers (round
// robin), taking turns under the lease to append opaque blobs at 10 a
// second per session; midway one server is killed with SIGKILL and its
// members reconnect to another from their last sequence number.
//
// It prints entries delivered, lost, duplicated, the fan-out latency
// (append accepted → received by another member) and reconnects, for
// that run and for a reference run of the same load on one server with
// no kill, and the ratios between the two (speed is a ratio against the
// reference measured in the same run, never a wall-clock threshold). It
// exits 1 when anything was lost, duplicated or corrupted.
//
//	go run -tags sqlite_fts5 ./bench/controlplane-fanout [-instances 3] [-sessions 50] [-members 4] [-duration 20s] [-rate 10]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"mnote/controlplane/loadgen/fanout"
	"mnote/controlplane/pgtest"
)

func main() {
	var cfg fanout.Config
	flag.IntVar(&cfg.Instances, "instances", 3, "servers on the one PostgreSQL")
	flag.IntVar(&cfg.Sessions, "sessions", 50, "shared sessions")
	flag.IntVar(&cfg.Members, "members", 4, "members per session (each a client with its own live stream)")
	flag.DurationVar(&cfg.Duration, "duration", 20*time.Second, "how long the members take turns")
	flag.Float64Var(&cfg.Rate, "rate", 10, "appends a second per session while a member holds the lease")
	flag.IntVar(&cfg.TurnEntries, "turn", 20, "appends per turn before the lease passes on")
	kill := flag.Bool("kill", true, "SIGKILL one server midway")
	reference := flag.Bool("reference", true, "also run the same load on one server, for the ratios")
	server := flag.String("server", "", "mnote-controlplane binary (default: build one)")
	keep := flag.Bool("keep", false, "keep the servers' logs (printed folder)")
	flag.Parse()
	cfg.Kill = *kill && cfg.Instances > 1
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, cfg, *reference, *server, *keep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/controlplane-fanout:", err)
		os.Exit(1)
	}
	if !ok {
		fmt.Fprintln(os.Stderr, "bench/controlplane-fanout: FAILED: entries lost, duplicated or corrupted")
		os.Exit(1)
	}
}

type row struct {
	name string
	res  fanout.Result
}

func run(ctx context.Context, cfg fanout.Config, reference bool, server string, keep bool) (bool, error) {
	tmp, err := os.MkdirTemp("", "mnote-bench-fanout-")
	if err != nil {
		return false, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "logs in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if server == "" {
		server = filepath.Join(tmp, "mnote-controlplane")
		fmt.Fprintln(os.Stderr, "building mnote-controlplane…")
		b := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", server, "./cmd/mnote-controlplane")
		b.Stdout, b.Stderr = os.Stderr, os.Stderr
		if err := b.Run(); err != nil {
			return false, fmt.Errorf("build the server: %w", err)
		}
	}
	if server, err = filepath.Abs(server); err != nil {
		return false, err
	}
	pg, err := pgtest.Start(ctx, pgtest.Options{Durable: true})
	if err != nil {
		return false, err
	}
	defer pg.Close()

	name := fmt.Sprintf("%d servers", cfg.Instances)
	if cfg.Instances == 1 {
		name = "1 server"
	}
	runs := []row{{name: name}}
	if reference && cfg.Instances > 1 {
		runs = append(runs, row{name: "1 server (reference)"})
	}
	for i := range runs {
		c := cfg
		if i == 1 {
			c.Instances, c.Kill = 1, false
		}
		db, err := pg.CreateDB(ctx, fmt.Sprintf("fanout%d", i))
		if err != nil {
			return false, err
		}
		c.Server, c.DB, c.Prefix = server, db, "fan"
		if c.Dir, err = os.MkdirTemp(tmp, "run-"); err != nil {
			return false, err
		}
		c.Progress = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "%s: %s\n", runs[i].name, fmt.Sprintf(format, args...))
		}
		fmt.Fprintf(os.Stderr, "%s: %d clients in %d sessions of %d, %s at %.0f appends/s per session…\n",
			runs[i].name, c.Sessions*c.Members, c.Sessions, c.Members, c.Duration, c.Rate)
		if runs[i].res, err = fanout.Run(ctx, c); err != nil {
			return false, fmt.Errorf("%s: %w (logs: %s; run with -keep to keep them)", runs[i].name, err, c.Dir)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "run\tclients\tkilled\tturns\tappended\tappends/s\tdelivered\tlost\tdup\tcorrupt\tp50 ms\tp99 ms\tmax ms\treconnects\tretries\tfound committed\t\n")
	ok := true
	for _, r := range runs {
		x := r.res
		killed := "-"
		if x.Killed {
			killed = fmt.Sprintf("1 (%d clients)", x.KilledClients)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%.0f\t%d/%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t\n", r.name, x.Clients, killed, x.Turns,
			x.Appended, x.AppendRate(), x.Delivered, x.Expected, x.Lost, x.Duplicated, x.Corrupt,
			ms(x.P50), ms(x.P99), ms(x.Max), x.Reconnects, x.Retries, x.Recovered)
		ok = ok && x.OK()
	}
	tw.Flush()
	if len(runs) == 2 {
		a, b := runs[0].res, runs[1].res
		fmt.Printf("%s / %s: deliveries/s %.2fx, fan-out p50 %.2fx, p99 %.2fx\n", runs[0].name, runs[1].name,
			ratio(a.DeliveryRate(), b.DeliveryRate()), ratio(ms(a.P50), ms(b.P50)), ratio(ms(a.P99), ms(b.P99)))
	}
	return ok, nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
