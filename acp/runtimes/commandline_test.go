package runtimes

import (
	"slices"
	"testing"
)

func TestCommandLineRoundTrip(t *testing.T) {
	for _, args := range [][]string{
		{"--acp"},
		{"--scenario-json", `{"loadSession":false,"x":"it's"}`},
		{"a b", "", "$HOME", `back\slash`, "tab\there"},
	} {
		line := CommandLine("/opt/agent bin/agent", args)
		rt, err := FromCommandLine(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if rt.Command != "/opt/agent bin/agent" || !slices.Equal(rt.Args, args) {
			t.Errorf("%s → %q %q", line, rt.Command, rt.Args)
		}
	}
}
