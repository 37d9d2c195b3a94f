package testenv_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"mnote/internal/testenv"
)

// TestSkipOrFailChild is the test the child processes of TestSkipOrFail
// run; on its own it does nothing.
func TestSkipOrFailChild(t *testing.T) {
	if os.Getenv("MNOTE_TESTENV_CHILD") != "1" {
		return
	}
	testenv.SkipOrFail(t, "no frobnicator here")
	t.Error("SkipOrFail returned")
}

// A real test process: SkipOrFail skips it, and fails it (exit status 1,
// the reason printed) under MNOTE_REQUIRE_ALL=1.
func TestSkipOrFail(t *testing.T) {
	for _, c := range []struct {
		require string
		fails   bool
		want    string
	}{
		{"", false, "--- SKIP: TestSkipOrFailChild"},
		{"0", false, "--- SKIP: TestSkipOrFailChild"},
		{"1", true, "--- FAIL: TestSkipOrFailChild"},
	} {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSkipOrFailChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "MNOTE_TESTENV_CHILD=1", testenv.RequireAllEnv+"="+c.require)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != c.fails {
			t.Errorf("%s=%q: failed = %v (%v), want %v\n%s", testenv.RequireAllEnv, c.require, failed, err, c.fails, out)
		}
		if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "no frobnicator here") {
			t.Errorf("%s=%q: want %q and the reason in\n%s", testenv.RequireAllEnv, c.require, c.want, out)
		}
	}
}
