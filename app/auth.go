package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"mnote/acp/runtimes"
)

// Logging in to agents: a key kept for an agent (agents.setKey) and a
// terminal opened on a login command (agents.openTerminal).

type setKeyArgs struct {
	Name  string `json:"name"`
	Var   string `json:"var"`
	Value string `json:"value"` // "" removes it
}

// agentsSetKey keeps an agent's key (an environment variable it reads) in
// the secrets file beside config.json (mode 0600); the agent gets it the
// next time it starts. The value is never logged nor sent back.
func (s *Services) agentsSetKey(_ context.Context, a setKeyArgs) (any, *Error) {
	if _, e := s.runtime(a.Name); e != nil {
		return nil, e
	}
	if err := runtimes.SetSecret(s.paths.ConfigFile, a.Name, strings.TrimSpace(a.Var), strings.TrimSpace(a.Value)); err != nil {
		return nil, newError(CodeBadRequest, "%w", err)
	}
	return s.listAgents()
}

type terminalArgs struct {
	Name   string `json:"name"`
	Method string `json:"method"` // an auth method id; "" runs the login hint's command
}

// terminals are tried in order; each takes the command after its flag.
var terminals = [][]string{
	{"x-terminal-emulator", "-e"},
	{"gnome-terminal", "--"},
	{"konsole", "-e"},
	{"xfce4-terminal", "-x"},
	{"kitty"},
	{"alacritty", "-e"},
	{"foot"},
	{"xterm", "-e"},
}

// agentsOpenTerminal opens a terminal window running an agent's login
// command, so the user can log in there.
func (s *Services) agentsOpenTerminal(ctx context.Context, a terminalArgs) (any, *Error) {
	rt, res, e := s.found(a.Name)
	if e != nil {
		return nil, e
	}
	command := ""
	if a.Method != "" {
		ag, err := s.startAgent(ctx, rt, res, s.defaultCwd(), s.initTimeout(rt))
		if err != nil {
			return nil, bindError(rt, nil, err)
		}
		ag.Stop()
		for _, m := range authMethods(ag.Init.AuthMethods, res.Path) {
			if m.ID == a.Method {
				command = m.Command
			}
		}
		if command == "" {
			return nil, badRequest("%s has no terminal login method %q", rt.Title, a.Method)
		}
	} else {
		command = runtimes.CommandLine(res.Path, res.Args)
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, &Error{Code: CodeBadRequest, Message: "there is no display to open a terminal on: run this yourself", Details: command}
	}
	term, args := findTerminal()
	if term == "" {
		return nil, &Error{Code: CodeBadRequest, Message: "no terminal program was found: run this in a terminal yourself", Details: command}
	}
	// Keep the window open after the command, so its output can be read.
	script := command + `; echo; read -r -p "Press Enter to close this window." _`
	cmd := exec.Command(term, append(args, "sh", "-c", script)...)
	cmd.Env = res.Env // the agent's environment: never mnote's own secrets
	if err := cmd.Start(); err != nil {
		return nil, &Error{Code: CodeBadRequest, Message: fmt.Sprintf("%s did not start: run this in a terminal yourself", term), Details: command, cause: err}
	}
	go cmd.Wait() //nolint:errcheck // the terminal's own business
	return map[string]string{"terminal": term, "command": command}, nil
}

func findTerminal() (string, []string) {
	for _, t := range terminals {
		if p, err := exec.LookPath(t[0]); err == nil {
			return p, t[1:]
		}
	}
	return "", nil
}
