package fanout_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"mnote/controlplane/loadgen/fanout"
	"mnote/controlplane/pgtest"
)

// buildServer builds mnote-controlplane into a temporary folder: the
// test kills a real process.
func buildServer(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	bin := filepath.Join(t.TempDir(), "mnote-controlplane")
	out, err := exec.CommandContext(t.Context(), goTool, "build", "-tags", "sqlite_fts5", "-o", bin, "mnote/cmd/mnote-controlplane").CombinedOutput()
	if err != nil {
		t.Fatalf("build mnote-controlplane: %v\n%s", err, out)
	}
	return bin
}

// A small fan-out run: 2 servers on one PostgreSQL, 8 members in 2
// shared sessions, one server killed midway. Every member must receive
// every entry of its session's log exactly once and byte for byte,
// including those appended while it was reconnecting.
func TestFanoutLosesNothingWhenAServerIsKilled(t *testing.T) {
	pg := pgtest.StartForTest(t)
	bin := buildServer(t)
	db, err := pg.CreateDB(t.Context(), "fanout")
	if err != nil {
		t.Fatal(err)
	}
	res, err := fanout.Run(t.Context(), fanout.Config{
		Server: bin, DB: db, Dir: t.TempDir(),
		Instances: 2, Sessions: 2, Members: 4,
		Duration: 3 * time.Second, Rate: 20, TurnEntries: 10, Kill: true,
		Progress: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if !res.OK() {
		t.Fatalf("lost %d, duplicated %d, corrupt %d", res.Lost, res.Duplicated, res.Corrupt)
	}
	if !res.Killed || res.KilledClients == 0 || res.Reconnects < res.KilledClients {
		t.Fatalf("killed %v with %d clients on it, %d reconnects: the kill was not exercised", res.Killed, res.KilledClients, res.Reconnects)
	}
	if res.Appended == 0 || res.Turns < 2 || res.Delivered != res.Expected || res.Samples == 0 {
		t.Fatalf("too little happened: %+v", res)
	}
}
