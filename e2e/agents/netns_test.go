package agents_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mnote/internal/testenv"
)

// Where no network namespace can be made (here: no unshare on PATH), an
// agent test under MNOTE_E2E_AGENTS=1 and MNOTE_REQUIRE_ALL=1 (`make
// test`) fails, naming why, instead of running the agent on the host's
// loopback. The child process is this test binary running TestQwenCode
// against a stand-in agent command; it stops before building anything.
func TestNoNetnsFailsUnderMakeTest(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, qwen.command), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	emptyPath := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestQwenCode$", "-test.v", "-test.count=1")
	cmd.Env = []string{
		"PATH=" + emptyPath, "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(),
		"MNOTE_E2E_AGENTS=1", testenv.RequireAllEnv + "=1", "MNOTE_AGENTS_BIN=" + bin,
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--- FAIL: TestQwenCode") ||
		!strings.Contains(string(out), "no private network namespace for the agent (unshare not found)") {
		t.Fatalf("want TestQwenCode to fail for want of a network namespace; got %v:\n%s", err, out)
	}
}
