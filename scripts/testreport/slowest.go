package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// testTime is how long one test took.
type testTime struct {
	Suite   string
	Name    string
	Seconds float64
}

// readReports reads every report in dir (see the package comment for the
// names); a missing dir has none.
func readReports(dir string) ([]testTime, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("slowest: %w", err)
	}
	var all []testTime
	for _, e := range entries {
		name := e.Name()
		suite, kind, _ := strings.Cut(name, ".")
		var read func(string, []byte) ([]testTime, error)
		switch kind {
		case "gotest.json":
			read = func(s string, b []byte) ([]testTime, error) { return readGoTest(s, b), nil }
		case "vitest.json":
			read = readVitest
		case "playwright.json":
			read = readPlaywright
		case "tsv":
			read = readTSV
		default:
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("slowest: %w", err)
		}
		tests, err := read(suite, b)
		if err != nil {
			return nil, fmt.Errorf("slowest: %s: %w", name, err)
		}
		all = append(all, tests...)
	}
	return all, nil
}

// readVitest reads vitest's json reporter (Jest's format: durations in ms).
func readVitest(suite string, data []byte) ([]testTime, error) {
	var r struct {
		TestResults []struct {
			Name             string
			AssertionResults []struct {
				AncestorTitles []string
				Title          string
				Duration       float64
			}
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not vitest's json report: %w", err)
	}
	var tests []testTime
	for _, f := range r.TestResults {
		for _, a := range f.AssertionResults {
			name := strings.Join(append([]string{filepath.Base(f.Name)}, append(a.AncestorTitles, a.Title)...), " › ")
			tests = append(tests, testTime{Suite: suite, Name: name, Seconds: a.Duration / 1000})
		}
	}
	return tests, nil
}

// pwSuite is a file or describe block of Playwright's json reporter.
type pwSuite struct {
	Title string
	Specs []struct {
		Title string
		Tests []struct {
			Results []struct {
				Duration float64 // ms
			}
		}
	}
	Suites []pwSuite
}

// readPlaywright reads Playwright's json reporter: a test's time is that of
// all its runs (retries included).
func readPlaywright(suite string, data []byte) ([]testTime, error) {
	var r struct{ Suites []pwSuite }
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not Playwright's json report: %w", err)
	}
	var tests []testTime
	var walk func(s pwSuite, path []string)
	walk = func(s pwSuite, path []string) {
		path = append(slices.Clip(path), s.Title)
		for _, sp := range s.Specs {
			for _, t := range sp.Tests {
				ms := 0.0
				for _, res := range t.Results {
					ms += res.Duration
				}
				if len(t.Results) > 0 {
					name := strings.Join(append(slices.Clip(path), sp.Title), " › ")
					tests = append(tests, testTime{Suite: suite, Name: name, Seconds: ms / 1000})
				}
			}
		}
		for _, c := range s.Suites {
			walk(c, path)
		}
	}
	for _, s := range r.Suites {
		walk(s, nil)
	}
	return tests, nil
}

// readTSV reads "SUITE<TAB>NAME<TAB>SECONDS" lines.
func readTSV(_ string, data []byte) ([]testTime, error) {
	var tests []testTime
	for line := range bytes.Lines(data) {
		f := strings.Split(strings.TrimRight(string(line), "\r\n"), "\t")
		if len(f) == 1 && f[0] == "" {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%q: want SUITE<TAB>NAME<TAB>SECONDS", line)
		}
		s, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		tests = append(tests, testTime{Suite: f[0], Name: f[1], Seconds: s})
	}
	return tests, nil
}

// maxName is where a long test name is cut, so a line fits a terminal.
const maxName = 100

// printSlowest prints the n slowest tests, slowest first, one a line:
// seconds, suite, name.
func printSlowest(w io.Writer, tests []testTime, n int) {
	if len(tests) == 0 {
		fmt.Fprintln(w, "no test reports")
		return
	}
	slices.SortStableFunc(tests, func(a, b testTime) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Name, b.Name))
	})
	tests = tests[:min(n, len(tests))]
	width := 0
	for _, t := range tests {
		width = max(width, len(t.Suite))
	}
	for _, t := range tests {
		name := t.Name
		if r := []rune(name); len(r) > maxName {
			name = string(r[:maxName-1]) + "…"
		}
		fmt.Fprintf(w, "%7.1fs  %-*s  %s\n", t.Seconds, width, t.Suite, name)
	}
}
