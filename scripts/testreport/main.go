// Command testreport reads the test suites' machine-readable results for
// `make test`: it shows `go test -json` as plain `go test` shows a run (the
// package lines, build and vet errors, and the output of failed tests) while
// it keeps the JSON, and it prints the slowest tests of all suites at the end.
//
//	go test -json ./... | testreport go REPORTS/go-test.gotest.json
//	testreport slowest [-n 10] REPORTS
//
// The reports in REPORTS are named SUITE.KIND.json, or SUITE.tsv:
//
//	*.gotest.json      go test -json (one event a line)
//	*.vitest.json      vitest's json reporter (frontend)
//	*.playwright.json  Playwright's json reporter (e2e/web)
//	*.tsv              "SUITE<TAB>NAME<TAB>SECONDS" lines (e2e/window)
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		os.Exit(2)
	}
}

const usage = `usage:
  go test -json ... | testreport go FILE   plain go test output; the JSON into FILE
  testreport slowest [-n N] DIR           the N slowest tests of the reports in DIR`

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	switch args[0] {
	case "go":
		if len(args) != 2 {
			return fmt.Errorf("go: want one FILE\n%s", usage)
		}
		f, err := os.Create(args[1])
		if err != nil {
			return fmt.Errorf("go: the JSON report: %w", err)
		}
		ferr := filterGoTest(stdin, stdout, f)
		if err := f.Close(); err != nil && ferr == nil {
			ferr = fmt.Errorf("go: writing %s: %w", args[1], err)
		}
		return ferr
	case "slowest":
		fs := flag.NewFlagSet("slowest", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 10, "how many tests")
		if err := fs.Parse(args[1:]); err != nil {
			return fmt.Errorf("slowest: %w\n%s", err, usage)
		}
		if fs.NArg() != 1 {
			return fmt.Errorf("slowest: want one DIR\n%s", usage)
		}
		tests, err := readReports(fs.Arg(0))
		if err != nil {
			return err
		}
		printSlowest(stdout, tests, *n)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}
