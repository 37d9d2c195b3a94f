package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"mnote/acp"
	"mnote/acp/runtimes"
)

// Logging in to agents: a key kept for an agent (agents.setKey), a
// terminal opened on a login command (agents.openTerminal) and ACP's
// authenticate with the method the user picked (agents.authenticate).

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
		return nil, newError(CodeBadRequest, "%w", err).why(ReasonKeyNotSaved, "variable", strings.TrimSpace(a.Var))
	}
	return s.listAgents()
}

type authArgs struct {
	Name   string `json:"name"`
	Method string `json:"method"` // one of the agent's auth method ids
}

// agentsAuthenticate starts the agent and runs ACP authenticate with the
// method the user picked (the agent does the login: a browser, a device
// code…); a method the agent did not offer is refused before anything is
// sent. On success the agent is no longer marked needs_login.
func (s *Services) agentsAuthenticate(ctx context.Context, a authArgs) (any, *Error) {
	rt, res, e := s.found(a.Name)
	if e != nil {
		return nil, e
	}
	if strings.TrimSpace(a.Method) == "" {
		return nil, badRequest("which way to sign in? give one of the agent's auth method ids (see agents.check)")
	}
	ag, err := s.startAgent(ctx, rt, res, s.defaultCwd(), s.initTimeout(rt))
	if err != nil {
		s.noteAgent(rt.Name, err)
		return nil, s.bindError(rt, nil, err)
	}
	defer ag.Stop()
	if !slices.ContainsFunc(ag.Init.AuthMethods, func(m acp.AuthMethod) bool { return m.ID == a.Method }) {
		return nil, badRequest("%s has no auth method %q", rt.Title, a.Method).why(ReasonAuthMethodUnknown, "agent", rt.Title, "method", a.Method)
	}
	if err := ag.Authenticate(ctx, a.Method); err != nil {
		e := s.bindError(rt, ag, err)
		if e.Code != CodeNeedsAuth {
			// The agent refused this login: the user has still to sign in.
			e = (&Error{Code: CodeNeedsAuth, Message: fmt.Sprintf("%s: the sign-in did not succeed: %s", rt.Title, e.Message), Details: e.Details, cause: err}).why(ReasonAuthFailed, "agent", rt.Title)
		}
		s.noteAgent(rt.Name, e)
		return nil, e
	}
	s.noteAgent(rt.Name, nil)
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
			return nil, s.bindError(rt, nil, err)
		}
		ag.Stop()
		for _, m := range authMethods(ag.Init.AuthMethods, res.Path) {
			if m.ID == a.Method {
				command = m.Command
			}
		}
		if command == "" {
			return nil, badRequest("%s has no terminal login method %q", rt.Title, a.Method).why(ReasonAuthMethodUnknown, "agent", rt.Title, "method", a.Method)
		}
	} else {
		command = runtimes.CommandLine(res.Path, res.Args)
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, &Error{Code: CodeBadRequest, Reason: ReasonNoDisplay, Message: "there is no display to open a terminal on: run this yourself", Details: command}
	}
	term, args := findTerminal()
	if term == "" {
		return nil, &Error{Code: CodeBadRequest, Reason: ReasonNoTerminalProgram, Message: "no terminal program was found: run this in a terminal yourself", Details: command}
	}
	// Keep the window open after the command, so its output can be read.
	script := command + `; echo; read -r -p "Press Enter to close this window." _`
	cmd := exec.Command(term, append(args, "sh", "-c", script)...)
	cmd.Env = res.Env // the agent's environment: never mnote's own secrets
	if err := cmd.Start(); err != nil {
		return nil, (&Error{Code: CodeBadRequest, Message: fmt.Sprintf("%s did not start: run this in a terminal yourself", term), Details: command, cause: err}).why(ReasonTerminalNotStarted, "terminal", term)
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
