package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
	"mnote/controlplane/pgtest"
)

// The test binary doubles as mnote-controlplane, so the serve tests run
// the real command in a process of its own.
func TestMain(m *testing.M) {
	if os.Getenv("MNOTE_CP_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// user add prints a token (only there, once) that authenticates as the
// user; names are unique; token add gives another; user list shows ids,
// never tokens; token revoke works by id and by the token itself.
func TestUserAndTokenCommands(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "cp.db")
	code, out, errOut := runCLI(t, "user", "add", "alice", "--db", db)
	if code != 0 {
		t.Fatalf("user add: %d %s", code, errOut)
	}
	tok1 := strings.TrimSpace(out)
	if !strings.HasPrefix(tok1, controlplane.TokenPrefix) || len(tok1) < 40 || strings.Contains(errOut, tok1) {
		t.Fatalf("user add printed %q (stderr %q); want one token on stdout only", out, errOut)
	}
	for _, bad := range []string{"bo\x00b", "eve\x1b[31m", "mal\xfflory"} {
		if code, _, errOut := runCLI(t, "user", "add", bad, "--db", db); code != 2 || !strings.Contains(errOut, "control characters") {
			t.Fatalf("user add %q: %d %s; want a usage error", bad, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "user", "add", "--db", db, "alice"); code != 1 || !strings.Contains(errOut, "token add") {
		t.Fatalf("second user add alice: %d %s; want 1 and a hint", code, errOut)
	}
	code, out, _ = runCLI(t, "token", "add", "alice", "--db", db)
	tok2 := strings.TrimSpace(out)
	if code != 0 || tok2 == tok1 || !strings.HasPrefix(tok2, controlplane.TokenPrefix) {
		t.Fatalf("token add: %d %q", code, out)
	}

	st, err := controlplane.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tok := range []string{tok1, tok2} {
		if p, err := st.Authenticate(t.Context(), controlplane.HashToken(tok)); err != nil || p.Name != "alice" {
			t.Fatalf("token authenticates as %+v, %v", p, err)
		}
	}
	users, err := st.Users(t.Context())
	if err != nil || len(users) != 1 || len(users[0].Tokens) != 2 {
		t.Fatalf("users %+v, %v", users, err)
	}
	code, out, _ = runCLI(t, "user", "list", "--db", db)
	if code != 0 || !strings.Contains(out, "alice") || !strings.Contains(out, users[0].Tokens[0].ID) || strings.Contains(out, tok1) {
		t.Fatalf("user list: %d\n%s", code, out)
	}

	if code, out, errOut := runCLI(t, "token", "revoke", users[0].Tokens[0].ID, "--db", db); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke by id: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "token", "revoke", tok2, "--db", db); code != 0 {
		t.Fatalf("revoke by token: %d %s", code, errOut)
	}
	for _, tok := range []string{tok1, tok2} {
		if _, err := st.Authenticate(t.Context(), controlplane.HashToken(tok)); !errors.Is(err, controlplane.ErrNotFound) {
			t.Fatalf("revoked token still authenticates: %v", err)
		}
	}
	if code, out, _ := runCLI(t, "user", "list", "--db", db); !strings.Contains(out, "(revoked)") || code != 0 {
		t.Fatalf("user list after revoking: %s", out)
	}
	if code, _, errOut := runCLI(t, "token", "revoke", "tok_nope", "--db", db); code != 1 || !strings.Contains(errOut, "no token") {
		t.Fatalf("revoke unknown: %d %s", code, errOut)
	}
	for _, args := range [][]string{{}, {"frobnicate"}, {"user"}, {"user", "add"}, {"user", "delete", "x"}, {"serve", "extra"}, {"serve", "--log-format", "xml"}} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Fatalf("%q: exit %d; want 2 (usage)", args, code)
		}
	}
}

// serve, as a real process, on each store: it answers, shuts down cleanly
// on SIGTERM (exit 0), logs no token, and a new process on the same
// database has every write the first one accepted.
func TestServeProcess(t *testing.T) {
	dbs := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "cp.db")}
	if pgtest.Available() {
		pg, err := pgtest.Start(t.Context(), pgtest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		if dbs["postgres"], err = pg.CreateDB(t.Context(), "serve"); err != nil {
			t.Fatal(err)
		}
	} else if os.Getenv("MNOTE_REQUIRE_POSTGRES") == "1" {
		t.Fatal(pgtest.ErrNotInstalled)
	} else {
		t.Logf("PostgreSQL half skipped: %v", pgtest.ErrNotInstalled)
	}
	for kind, db := range dbs {
		t.Run(kind, func(t *testing.T) {
			code, out, errOut := runCLI(t, "user", "add", "alice", "--db", db)
			if code != 0 {
				t.Fatalf("user add: %s", errOut)
			}
			token := strings.TrimSpace(out)
			r := api.SessionRecord{ID: "proc-1", Version: 1, Runtime: "codex", Status: api.StatusRunning,
				CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), UpdatedAt: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)}

			url, stop := startServe(t, db)
			c := &api.Client{BaseURL: url, Token: token}
			if _, err := c.PutSession(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			logs := stop()
			if strings.Contains(logs, token) || !strings.Contains(logs, "shutting down") || !strings.Contains(logs, `route="PUT /v1/sessions/{id}"`) {
				t.Fatalf("server log:\n%s", logs)
			}

			url, stop = startServe(t, db)
			defer stop()
			c.BaseURL = url
			got, err := c.GetSession(t.Context(), r.ID)
			if err != nil || got != r {
				t.Fatalf("after a restart: %+v, %v; want %+v", got, err, r)
			}
		})
	}
}

// startServe runs `mnote-controlplane serve` and returns its URL and a
// function that sends SIGTERM, checks the clean exit and returns stderr.
func startServe(t *testing.T, db string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--db", db, "--rate", "0")
	cmd.Env = append(os.Environ(), "MNOTE_CP_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	line, err := bufio.NewReader(out).ReadString('\n')
	go func() { exited <- cmd.Wait() }()
	if err != nil {
		cmd.Process.Kill()
		<-exited
		t.Fatalf("serve did not start: %v\n%s", err, stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("serve printed %q", line)
	}
	stopped := false
	stop := func() string {
		if stopped {
			return ""
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGTERM)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("serve exited with %v after SIGTERM:\n%s", err, stderr.String())
			}
		case <-ctx.Done():
			cmd.Process.Kill()
			<-exited
			t.Errorf("serve still running 30 s after SIGTERM")
		}
		return stderr.String()
	}
	t.Cleanup(func() { stop() })
	return strings.TrimSpace(line[i:]), stop
}
