package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A real `go test -json` over a module with a passing, a failing, a skipped
// test, a failing subtest, a package without tests and one that go vet
// refuses: the filter shows what plain go test shows, the report keeps
// every line.
func TestGoShowsWhatPlainGoTestShows(t *testing.T) {
	mod := t.TempDir()
	write(t, filepath.Join(mod, "go.mod"), "module tr\n\ngo 1.26\n")
	write(t, filepath.Join(mod, "ok", "ok_test.go"), `package ok

import "testing"

func TestFine(t *testing.T) { t.Log("chatter of a passing test") }
func TestSkipped(t *testing.T) { t.Skip("skip note") }
`)
	write(t, filepath.Join(mod, "bad", "bad_test.go"), `package bad

import "testing"

func TestFine(t *testing.T) { t.Log("more chatter") }
func TestBroken(t *testing.T) { t.Log("log before the failure"); t.Fatal("boom: want 1, got 2") }
func TestTable(t *testing.T) {
	t.Run("good", func(t *testing.T) {})
	t.Run("evil", func(t *testing.T) { t.Error("subtest says no") })
}
`)
	write(t, filepath.Join(mod, "none", "none.go"), "package none\n\nfunc F() int { return 1 }\n")
	write(t, filepath.Join(mod, "vetme", "vetme.go"), "package vetme\n\nimport \"fmt\"\n\nfunc F() string { return fmt.Sprintf(\"%d\", \"x\") }\n")

	cmd := exec.CommandContext(t.Context(), "go", "test", "-json", "-vet=all", "-count=1", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.Output()
	if err == nil {
		t.Fatalf("go test passed; the module has failing tests")
	}
	var out, raw bytes.Buffer
	if err := filterGoTest(bytes.NewReader(in), &out, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.String() != string(in) {
		t.Errorf("the report is not the go test -json stream as it came")
	}
	got := out.String()
	for _, want := range []string{
		"ok  \ttr/ok\t",
		"--- FAIL: TestBroken",
		"log before the failure",
		"boom: want 1, got 2",
		"--- FAIL: TestTable/evil",
		"subtest says no",
		"--- FAIL: TestTable ",
		"FAIL\ttr/bad\t",
		"tr/none\t[no test files]",
		"fmt.Sprintf format %d has arg \"x\" of wrong type string",
		"FAIL\ttr/vetme [build failed]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, not := range []string{"chatter", "skip note", "=== RUN", "TestFine", "TestTable/good", "\nPASS\n", `"Action"`} {
		if strings.Contains(got, not) {
			t.Errorf("the output has %q, which plain go test does not print", not)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s\nstderr:\n%s", got, stderr.String())
	}

	// The same report read back for the slowest tests: top-level tests only.
	tests := readGoTest("go-test", raw.Bytes())
	var names []string
	for _, tt := range tests {
		names = append(names, tt.Name)
	}
	want := []string{"tr/bad TestBroken", "tr/bad TestFine", "tr/bad TestTable", "tr/ok TestFine"}
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Errorf("tests read back: %q, want %q", names, want)
	}
}

// A test binary that dies (here: a panic) leaves a test with no result: its
// output is shown with the package's failure.
func TestGoShowsTheOutputOfATestThatNeverEnded(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestDies"}`,
		`{"Action":"output","Package":"p","Test":"TestDies","Output":"=== RUN   TestDies\n"}`,
		`{"Action":"output","Package":"p","Test":"TestDies","Output":"panic: nil map\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":0.01}`,
		`not json: passed on`,
	}, "\n") + "\n"
	var out, raw bytes.Buffer
	if err := filterGoTest(strings.NewReader(in), &out, &raw); err != nil {
		t.Fatal(err)
	}
	if want := "FAIL\tp\t0.01s\npanic: nil map\nnot json: passed on\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

// The slowest tests of all the suites' reports, slowest first, with their
// suite; subtests (within their parent's time), other files and tests beyond
// -n are left out, and a long name is cut.
func TestSlowestAcrossSuites(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go-test.gotest.json"), strings.Join([]string{
		`{"Action":"pass","Package":"mnote/store","Test":"TestOpen","Elapsed":3.5}`,
		`{"Action":"pass","Package":"mnote/store","Test":"TestOpen/sub","Elapsed":3.4}`,
		`{"Action":"fail","Package":"mnote/acp","Test":"TestCrash","Elapsed":0.5}`,
		`{"Action":"pass","Package":"mnote/acp","Elapsed":9}`,
	}, "\n")+"\n")
	write(t, filepath.Join(dir, "frontend.vitest.json"), `{"numTotalTests":2,"success":true,"testResults":[
		{"name":"/repo/frontend/tests/markdown.test.ts","status":"passed","assertionResults":[
			{"ancestorTitles":["MarkdownStream","huge"],"fullName":"MarkdownStream huge splits","title":"splits","duration":4250.5,"status":"passed"},
			{"ancestorTitles":[],"fullName":"quick","title":"quick","duration":0.2,"status":"passed"}]}]}`)
	long := strings.Repeat("a very long title ", 10)
	write(t, filepath.Join(dir, "web.playwright.json"), `{"config":{},"suites":[
		{"title":"perf.spec.ts","file":"perf.spec.ts","specs":[],"suites":[
			{"title":"perf","specs":[{"title":"stream of 50,000 chunks","tests":[{"projectName":"perf","results":[{"duration":41000,"status":"passed"}]}]}]}]},
		{"title":"chat.spec.ts","specs":[
			{"title":"`+long+`","tests":[{"projectName":"ui","results":[{"duration":2000,"status":"failed"},{"duration":1000,"status":"passed"}]}]},
			{"title":"not run","tests":[{"projectName":"ui","results":[]}]}]}],"errors":[],"stats":{}}`)
	write(t, filepath.Join(dir, "window.tsv"), "window\te2e/window/run.sh\t12.3\n")
	write(t, filepath.Join(dir, "notes.txt"), "not a report\n")

	var out bytes.Buffer
	if err := run([]string{"slowest", "-n", "5", dir}, nil, &out); err != nil {
		t.Fatal(err)
	}
	cut := string([]rune("chat.spec.ts › " + long)[:maxName-1]) + "…"
	want := "" +
		"   41.0s  web       perf.spec.ts › perf › stream of 50,000 chunks\n" +
		"   12.3s  window    e2e/window/run.sh\n" +
		"    4.3s  frontend  markdown.test.ts › MarkdownStream › huge › splits\n" +
		"    3.5s  go-test   mnote/store TestOpen\n" +
		"    3.0s  web       " + cut + "\n"
	if out.String() != want {
		t.Errorf("slowest:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestSlowestWithoutReports(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"slowest", filepath.Join(t.TempDir(), "none")}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "no test reports\n" {
		t.Errorf("got %q", out.String())
	}
}

// A report that is not what its name says is an error naming the file, not
// a quiet gap in the list.
func TestSlowestRefusesABrokenReport(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "web.playwright.json"), "{truncated")
	err := run([]string{"slowest", dir}, nil, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "web.playwright.json") {
		t.Fatalf("err = %v, want one naming web.playwright.json", err)
	}
}
