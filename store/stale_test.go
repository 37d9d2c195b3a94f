package store

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestHelperMidTurn is the child of TestKilledMidTurnIsInterrupted: like
// mnote mid-turn, it holds a session's Writer with a turn open, its live
// Indexer having written the rows ("running"), until it is killed.
func TestHelperMidTurn(t *testing.T) {
	id := os.Getenv("MNOTE_STORE_MIDTURN")
	if id == "" {
		t.Skip("helper process only")
	}
	p := DefaultPaths() // MNOTE_HOME from the parent
	ix, err := OpenIndex(t.Context(), p.DB)
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	w, err := CreateTranscript(p.TranscriptPath(id), WriterOptions{})
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	x := ix.NewIndexer(id)
	x.SetPath(p.TranscriptPath(id))
	s := newScript(w, id)
	s.x = x
	s.start("killed mid-turn", "/ws", 1)
	s.prompt("a long job")
	s.answer("agent_message_chunk", "working on it, slowly", 5)
	if s.err != nil {
		os.Stdout.WriteString("error " + s.err.Error() + "\n")
		os.Exit(1)
	}
	if err := w.Sync(); err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	if err := x.Flush(); err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("mid-turn\n")
	select {} // until SIGKILL
}

// startMidTurn starts a child process that holds session id mid-turn.
func startMidTurn(t *testing.T, e *testEnv, id string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperMidTurn$")
	cmd.Env = append(os.Environ(), "MNOTE_STORE_MIDTURN="+id, "MNOTE_HOME="+os.Getenv("MNOTE_HOME"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "mid-turn\n" {
		t.Fatalf("child said %q: %v", line, err)
	}
	return cmd
}

func (e *testEnv) status(t *testing.T, id string) string {
	t.Helper()
	row, err := e.ix.GetSession(t.Context(), id)
	if err != nil {
		t.Fatalf("session %s: %v", id, err)
	}
	return row.Status
}

// kill -9 of mnote mid-turn: the next start (Reconcile) and a rebuild mark
// the session interrupted, not running forever; a session whose writer
// is alive, in another process, stays running.
func TestKilledMidTurnIsInterrupted(t *testing.T) {
	e := newEnv(t)
	killed := startMidTurn(t, e, "killed")
	startMidTurn(t, e, "alive")
	// A session that ended cleanly keeps its status.
	e.liveSession(t, "ended", "done", "/ws", 2, newVocab(1, 500))

	for _, id := range []string{"killed", "alive"} {
		if got := e.status(t, id); got != StatusRunning {
			t.Fatalf("%s before the kill: status %q", id, got)
		}
	}
	// While both writers live, a reconcile and a rebuild change nothing.
	if _, err := e.ix.Reconcile(t.Context(), e.p.Transcripts); err != nil {
		t.Fatal(err)
	}
	if err := e.ix.Rebuild(t.Context(), e.p.Transcripts, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"killed", "alive"} {
		if got := e.status(t, id); got != StatusRunning {
			t.Fatalf("%s with its writer alive: status %q", id, got)
		}
	}
	ended := e.status(t, "ended")

	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Wait()

	// The next start: the index row covers the whole file, so only the
	// dead writer tells it is stale.
	n, err := e.ix.Reconcile(t.Context(), e.p.Transcripts)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.status(t, "killed"); got != StatusInterrupted || n != 1 {
		t.Fatalf("after the kill, reconcile (%d sessions): status %q, want %q", n, got, StatusInterrupted)
	}
	if got := e.status(t, "alive"); got != StatusRunning {
		t.Fatalf("a live writer's session was marked %q", got)
	}
	// mnote reindex says the same.
	if err := e.ix.Rebuild(t.Context(), e.p.Transcripts, nil); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"killed": StatusInterrupted, "alive": StatusRunning, "ended": ended} {
		if got := e.status(t, id); got != want {
			t.Errorf("after rebuild: %s is %q, want %q", id, got, want)
		}
	}
}
