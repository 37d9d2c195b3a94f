// Package acptest builds the binaries integration tests drive: the test
// agent (cmd/mnote-testagent), the fake model server (cmd/mnote-fakemodel)
// and mnote itself. Each is built once per test
// process into a temporary folder (the Go build cache makes this fast after
// the first time); MNOTE_TESTAGENT_BIN, MNOTE_FAKEMODEL_BIN and MNOTE_BIN
// point at prebuilt ones.
package acptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	built  = map[string]string{}
	tmpDir string
)

// moduleRoot finds the folder holding go.mod, from this source file.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func build(tb testing.TB, envVar, pkg, name string) string {
	tb.Helper()
	if p := os.Getenv(envVar); p != "" {
		return p
	}
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	if tmpDir == "" {
		d, err := os.MkdirTemp("", "mnote-testbin-")
		if err != nil {
			tb.Fatalf("temp dir: %v", err)
		}
		tmpDir = d
	}
	out := filepath.Join(tmpDir, name)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "build", "-tags", "sqlite_fts5", "-o", out, pkg)
	cmd.Dir = moduleRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	built[pkg] = out
	return out
}

// TestAgent returns the path of the test agent binary.
func TestAgent(tb testing.TB) string {
	return build(tb, "MNOTE_TESTAGENT_BIN", "./cmd/mnote-testagent", "mnote-testagent")
}

// FakeModel returns the path of the fake model server binary
// (cmd/mnote-fakemodel).
func FakeModel(tb testing.TB) string {
	return build(tb, "MNOTE_FAKEMODEL_BIN", "./cmd/mnote-fakemodel", "mnote-fakemodel")
}

// Mnote returns the path of an mnote binary for headless commands.
func Mnote(tb testing.TB) string {
	return build(tb, "MNOTE_BIN", ".", "mnote")
}

// Binary returns the path of the main package pkg (a path from the
// module root, e.g. "./app/cli/testdata/uiserve"), built once as name.
func Binary(tb testing.TB, pkg, name string) string {
	return build(tb, "", pkg, name)
}

// Cleanup removes the built binaries; call it from TestMain after m.Run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
		tmpDir = ""
	}
}

// Steps encodes inline test-agent steps as a prompt text.
func Steps(steps ...string) string {
	return "[" + strings.Join(steps, ",") + "]"
}

// Scenario returns the --scenario-json argument for a scenario object.
func Scenario(json string) []string {
	return []string{"--scenario-json", json}
}

// Must panics on error; for test tables.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}

// Main runs a package's tests and then removes the binaries built for
// them: `func TestMain(m *testing.M) { acptest.Main(m) }`.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
