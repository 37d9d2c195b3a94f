package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// ownDataHarness is a harness whose mnote home (config, data, state,
// logs: MNOTE_HOME) is the folder .mnote inside the notes folder, with
// the notes tools on.
func ownDataHarness(t *testing.T) *harness {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mnote := acptest.Mnote(t)
	h := &harness{t: t, paths: pathsUnder(filepath.Join(ws, ".mnote")), ws: ws, state: t.TempDir(),
		tune: func(c *app.Config) { c.MCPCommand = mnote }}
	if err := h.paths.Ensure(); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.saveAgent("test", "--state", h.state)
	return h
}

// A terminal the agent starts cannot work in mnote's own data when the
// notes folder holds it: the data folder, a folder under it, a path to it
// through ".." or a symbolic link and the mnote home itself are refused
// with a clear error, like the agent's fs/* requests there; a folder of
// notes still works.
func TestTerminalCwdNotInOwnData(t *testing.T) {
	t.Parallel()
	h := ownDataHarness(t)
	data := h.paths.DataDir
	writeNotes(t, h.ws, map[string]string{"sub/a.md": "a\n"})
	if err := os.Symlink(data, filepath.Join(h.ws, "sub", "own")); err != nil {
		t.Fatal(err)
	}
	cwds := map[string]string{
		"data":    data,
		"subdir":  h.paths.Transcripts,
		"home":    filepath.Dir(h.paths.ConfigFile),
		"dotdot":  filepath.Join(h.ws, "sub") + "/../.mnote/data",
		"link":    filepath.Join(h.ws, "sub", "own"),
		"linksub": filepath.Join(h.ws, "sub", "own", "transcripts"),
		"rel":     ".mnote/data",
	}
	var steps []string
	for name, cwd := range cwds {
		steps = append(steps, `{"terminal":{"name":"`+name+`","command":"pwd","cwd":`+q(cwd)+`}}`)
	}
	steps = append(steps, `{"terminal":{"name":"ok","command":"pwd","cwd":`+q(filepath.Join(h.ws, "sub"))+`}}`,
		`{"terminalWait":"ok"}`, `{"terminalOutput":"ok"}`, `{"terminalRelease":"ok"}`)
	sum := h.create("test")
	if tp := h.turnDone(sum.ID, steps...); tp.StopReason != "end_turn" {
		t.Fatalf("turn %+v", tp)
	}
	said := map[string]string{}
	for _, a := range strings.Split(strings.Join(h.answers(sum.ID), ""), "terminal ") {
		if name, rest, ok := strings.Cut(a, " "); ok && said[name] == "" {
			said[name] = rest // the first thing said of each terminal
		}
	}
	for name, cwd := range cwds {
		e := said[name]
		if !strings.HasPrefix(e, "error: -32602 refused: the working directory ") ||
			!strings.Contains(e, "is in mnote's own data") && !strings.Contains(e, `contains ".."`) {
			t.Errorf("%s (%s): %q", name, cwd, e)
		}
	}
	if !strings.Contains(strings.Join(h.answers(sum.ID), ""), `terminal ok output: {"exitStatus":{"exitCode":0},"output":"`+filepath.Join(h.ws, "sub")+`\r\n"`) {
		t.Errorf("a folder of notes: %q", h.answers(sum.ID))
	}
}

// The notes tools list, find and quote only what read_note reads: a hard
// link to a file outside the folder, a symbolic link leading out and a
// FIFO are in none of list_notes, search_notes, outline or backlinks.
func TestNotesToolsShowOnlyWhatAgentsRead(t *testing.T) {
	t.Parallel()
	h := ownDataHarness(t)
	outside := t.TempDir()
	writeNotes(t, outside, map[string]string{"secret.md": "# Hidden heading\nzebracorn secret, see [[plan]]\n"})
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote, "b.md": "zebracorn in a note, see [[plan]]\n"})
	for _, err := range []error{
		os.Link(filepath.Join(outside, "secret.md"), filepath.Join(h.ws, "hard.md")),
		os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(h.ws, "sym.md")),
		syscall.Mkfifo(filepath.Join(h.ws, "fifo.md"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := eventually(testWait, func() bool { return len(h.searchNotes("zebracorn")) >= 1 }); err != nil {
		t.Fatal("the notes index did not pick up the notes")
	}
	sum := h.create("test")
	h.turnDone(sum.ID,
		mcpStep("list_notes", `{}`),
		mcpStep("search_notes", `{"query":"zebracorn"}`),
		mcpStep("backlinks", `{"path":"plan.md"}`),
		mcpStep("outline", `{"path":"hard.md"}`),
		mcpStep("read_note", `{"path":"hard.md"}`),
	)
	got := strings.Join(h.answers(sum.ID), "")
	for _, w := range []string{
		"mcp list_notes: b.md\t", "mcp search_notes: b.md:1: «zebracorn» in a note",
		"mcp backlinks: b.md:1: zebracorn in a note", "mcp outline: hard.md has no headings (or is not a note)",
		`mcp read_note error: refused: "` + filepath.Join(h.ws, "hard.md") + `" has 2 hard links`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("the answers lack %q", w)
		}
	}
	for _, bad := range []string{"secret", "Hidden", "hard.md\t", "sym.md", "fifo.md"} {
		if strings.Contains(got, bad) {
			t.Errorf("the answers show %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("answers: %q", got)
	}
}
