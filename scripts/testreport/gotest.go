package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// goEvent is one line of `go test -json` (cmd/test2json), or of the build
// output the go command reports among them (ImportPath, build-output).
type goEvent struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
	Elapsed    float64
}

// filterGoTest copies the `go test -json` stream in to raw, and writes to out
// what `go test` without -json prints: build and vet errors, the package
// lines (ok, FAIL, no test files) and everything a failed test printed. A
// line that is not JSON is passed on as it is.
func filterGoTest(in io.Reader, out, raw io.Writer) error {
	w := bufio.NewWriter(out)
	rw := bufio.NewWriter(raw)
	// The output of tests still running, by package and test: printed if the
	// test fails, dropped if it passes or is skipped.
	held := map[string]map[string][]string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		rw.Write(line)
		rw.WriteByte('\n')
		var e goEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		switch {
		case e.Action == "build-output":
			w.WriteString(e.Output)
		case e.Test == "":
			switch e.Action {
			case "output":
				if e.Output != "PASS\n" {
					w.WriteString(e.Output)
				}
			case "fail":
				// Tests the binary never finished (it crashed or timed out):
				// their output says why.
				for _, lines := range held[e.Package] {
					for _, l := range lines {
						w.WriteString(l)
					}
				}
				delete(held, e.Package)
			case "pass", "skip":
				delete(held, e.Package)
			}
		default:
			tests := held[e.Package]
			if tests == nil {
				tests = map[string][]string{}
				held[e.Package] = tests
			}
			switch e.Action {
			case "output":
				if !isProgress(e.Output) {
					tests[e.Test] = append(tests[e.Test], e.Output)
				}
			case "fail":
				for _, l := range tests[e.Test] {
					w.WriteString(l)
				}
				delete(tests, e.Test)
			case "pass", "skip":
				delete(tests, e.Test)
			}
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("go: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("go: reading go test -json: %w", err)
	}
	if err := rw.Flush(); err != nil {
		return fmt.Errorf("go: writing the JSON report: %w", err)
	}
	return w.Flush()
}

// isProgress reports whether a line is one of test2json's markers of which
// test runs (=== RUN, PAUSE, CONT, NAME), which plain go test does not print.
func isProgress(s string) bool {
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// readGoTest returns the top-level tests that passed or failed in a go test
// -json report (a subtest's time is within its parent's).
func readGoTest(suite string, data []byte) []testTime {
	var tests []testTime
	for line := range bytes.Lines(data) {
		var e goEvent
		if json.Unmarshal(line, &e) != nil || e.Test == "" || strings.Contains(e.Test, "/") {
			continue
		}
		if e.Action == "pass" || e.Action == "fail" {
			tests = append(tests, testTime{Suite: suite, Name: e.Package + " " + e.Test, Seconds: e.Elapsed})
		}
	}
	return tests
}
