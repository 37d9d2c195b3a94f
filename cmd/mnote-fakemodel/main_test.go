package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/acptest/fakemodel"
)

// childEnv makes the test binary act as the launched "agent": it reads the
// server's URL, lists the models and exits 7.
const childEnv = "MNOTE_FAKEMODEL_TEST_CHILD"

func TestMain(m *testing.M) {
	if urlFile := os.Getenv(childEnv); urlFile != "" {
		os.Exit(child(urlFile))
	}
	acptest.Main(m)
}

func child(urlFile string) int {
	b, err := os.ReadFile(urlFile)
	if err != nil {
		fmt.Println("no url:", err)
		return 1
	}
	resp, err := http.Get(strings.TrimSpace(string(b)) + "/v1/models")
	if err != nil {
		fmt.Println("get:", err)
		return 1
	}
	defer resp.Body.Close()
	var v struct {
		Data []json.RawMessage `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&v)
	fmt.Printf("models: %d\n", len(v.Data))
	return 7
}

// With a command, the server runs while the command does (with the same
// stdio), and the command's exit status is the launcher's.
func TestLaunchesAChild(t *testing.T) {
	bin := acptest.FakeModel(t)
	dir := t.TempDir()
	urlFile, logFile := filepath.Join(dir, "url"), filepath.Join(dir, "log.jsonl")
	cmd := exec.CommandContext(t.Context(), bin, "--url-file", urlFile, "--log", logFile,
		"--script-json", `{"models":["a","b"]}`, "--", os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+urlFile)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || string(out) != "models: 2\n" {
		t.Fatalf("exit %v, output %q", err, out)
	}
	reqs, err := fakemodel.ReadLog(logFile)
	if err != nil || len(reqs) != 1 || reqs[0].Path != "/v1/models" || reqs[0].Status != 200 {
		t.Fatalf("log %+v, %v", reqs, err)
	}
}

func TestRefusesBadSetup(t *testing.T) {
	bin := acptest.FakeModel(t)
	for _, args := range [][]string{
		{"--addr", "0.0.0.0:0"},
		{"--script-json", "{not json"},
		{"--script", "/nonexistent/script.json"},
	} {
		out, err := exec.CommandContext(t.Context(), bin, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "mnote-fakemodel:") {
			t.Errorf("%v: %v %s", args, err, out)
		}
	}
}
