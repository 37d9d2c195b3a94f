package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("mnote-testagent", flag.ContinueOnError)
	scenarioFile := flags.String("scenario", "", "scenario file (JSON); default $MNOTE_TESTAGENT_SCENARIO")
	scenarioJSON := flags.String("scenario-json", "", "inline scenario JSON, overlaid on the file")
	models := flags.String("models", "", `offer models: "config" (a config option of category model) or "legacy" (the models field); overrides the scenario's`)
	stateDir := flags.String("state", "", "state directory for session history; default $MNOTE_TESTAGENT_STATE")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mnote-testagent: unexpected arguments %q\n", flags.Args())
		return 2
	}
	if *scenarioFile == "" {
		*scenarioFile = os.Getenv("MNOTE_TESTAGENT_SCENARIO")
	}
	if *stateDir == "" {
		*stateDir = os.Getenv("MNOTE_TESTAGENT_STATE")
	}

	level := slog.LevelWarn
	if os.Getenv("MNOTE_TESTAGENT_DEBUG") == "1" {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))

	sc, err := loadScenario(*scenarioFile, *scenarioJSON, *models)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mnote-testagent: %v\n", err)
		return 2
	}
	if sc.IgnoreSigterm {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	if *stateDir != "" {
		if err := os.MkdirAll(*stateDir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "mnote-testagent: state dir: %v\n", err)
			return 2
		}
	}

	a := newAgent(sc, *stateDir, os.Stdout)
	if sc.StderrAtStart != "" {
		text := sc.StderrAtStart
		if text[len(text)-1] == '\n' {
			text = text[:len(text)-1]
		}
		a.logStderr(text)
	}
	slog.Debug("started", "pid", os.Getpid(), "state", *stateDir)
	a.serve(os.Stdin)
	return 0
}
