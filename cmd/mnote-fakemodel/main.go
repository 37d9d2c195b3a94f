// Command mnote-fakemodel runs the scripted OpenAI-compatible model server
// of package mnote/acp/acptest/fakemodel on a loopback address, for running
// published ACP agents offline.
//
// Usage:
//
//	mnote-fakemodel [--addr 127.0.0.1:0] [--script FILE] [--script-json JSON]
//	                [--log FILE] [--log-bodies] [--url-file FILE] [--cache-file FILE]
//	                [-- COMMAND ARG...]
//
// Without a command it prints its base URL (http://127.0.0.1:PORT) on
// stdout and serves until SIGINT or SIGTERM. With a command it serves while
// running COMMAND as its child, with the same stdin, stdout and stderr
// (the URL goes to stderr), passes SIGINT and SIGTERM on to it, and exits
// with its exit status: `unshare -rn sh -c 'ip link set lo up; exec
// mnote-fakemodel --addr 127.0.0.1:8080 -- agent --acp'` runs an agent in a
// network namespace whose only reachable server is this one.
//
// The script is a JSON object with the fields of fakemodel.Script (file,
// dir, append, answer, sideAnswer, stallMarker, apiKey, models,
// chunkBytes); --script-json keys are laid over --script's. The log gets
// one JSON object per request (fakemodel.Request). --cache-file keeps the
// simulated prompt cache in a file, so a server started after this one
// (another agent process) finds what this one cached, as DeepSeek's cache
// outlives a client.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"mnote/acp/acptest/fakemodel"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("mnote-fakemodel", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "loopback `address` to listen on")
	scriptFile := fs.String("script", "", "script `file` (JSON)")
	scriptJSON := fs.String("script-json", "", "inline script `JSON`, laid over --script")
	logFile := fs.String("log", "", "append one JSON line per request to `file`")
	urlFile := fs.String("url-file", "", "write the base URL to `file` once listening")
	bodies := fs.Bool("log-bodies", false, "keep whole request bodies in the log")
	cacheFile := fs.String("cache-file", "", "keep the simulated prompt cache in `file`, shared with the next server started with it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	script, err := loadScript(*scriptFile, *scriptJSON)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mnote-fakemodel: %v\n", err)
		return 2
	}
	srv, err := fakemodel.Start(script, fakemodel.Options{Addr: *addr, LogFile: *logFile, KeepBodies: *bodies, CacheFile: *cacheFile})
	if err != nil {
		fmt.Fprintf(os.Stderr, "mnote-fakemodel: %v\n", err)
		return 1
	}
	defer srv.Close()
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(srv.URL()+"\n"), 0o600); err != nil {
			fmt.Fprintf(os.Stderr, "mnote-fakemodel: %v\n", err)
			return 1
		}
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if fs.NArg() == 0 {
		fmt.Println(srv.URL())
		<-sigs
		return 0
	}
	fmt.Fprintf(os.Stderr, "mnote-fakemodel: serving on %s\n", srv.URL())
	return runChild(fs.Args(), sigs)
}

// runChild runs the command with this process's stdio and returns its exit
// status, passing signals on.
func runChild(argv []string, sigs <-chan os.Signal) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The child dies with us, whatever kills us.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "mnote-fakemodel: start %s: %v\n", argv[0], err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			_ = cmd.Process.Signal(sig)
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal())
				}
				return ee.ExitCode()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "mnote-fakemodel: %s: %v\n", argv[0], err)
				return 1
			}
			return 0
		}
	}
}

func loadScript(file, inline string) (fakemodel.Script, error) {
	var s fakemodel.Script
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return s, fmt.Errorf("script: %w", err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return s, fmt.Errorf("script %s: %w", file, err)
		}
	}
	if inline != "" {
		if err := json.Unmarshal([]byte(inline), &s); err != nil {
			return s, fmt.Errorf("--script-json: %w", err)
		}
	}
	return s, nil
}
