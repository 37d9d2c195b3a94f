// Package runtimes knows how to start local ACP agents.
//
// A runtime is one way to start an agent process that speaks the Agent Client
// Protocol over stdio: a name, a command, its arguments, extra environment and
// an optional working directory. The package provides:
//
//   - the built-in presets (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode,
//     Kimi, Hermes, Reasonix, goose, GitHub Copilot, Cline) with install hints;
//   - custom entries from config.json, in the shape of Zed's "agent_servers"
//     setting, merged over the presets (LoadConfig, SaveConfig, Config.Runtimes);
//   - a runtime from a single command line (FromCommandLine, for --agent-cmd);
//   - detection (Detector): the user's login-shell PATH plus the usual Node and
//     user bin folders, so that a GUI app started from a desktop launcher finds
//     the same agents as a terminal, and the resolved executable, arguments and
//     child environment (without mnote's own secrets) for a runtime.
//
// The package starts no agents itself; spawning belongs to the caller.
package runtimes

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/google/shlex"
)

// Runtime describes how to start one ACP agent.
type Runtime struct {
	Name        string            `json:"name"`  // key, e.g. "claude-code", or the custom entry's key
	Title       string            `json:"title"` // display name, e.g. "Claude Code"
	Command     string            `json:"command"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	InstallHint string            `json:"installHint,omitempty"` // e.g. "npm install -g @zed-industries/claude-code-acp"
	// Alternates are other command+args to try, in order, when Command is not
	// found, e.g. claude-agent-acp for Claude Code. An alternate whose command
	// is the same executable as Command (Gemini's --experimental-acp) is never
	// picked by detection; it is a fallback for a spawner whose first attempt
	// fails (an older agent version).
	Alternates [][]string `json:"alternates,omitempty"`
	Builtin    bool       `json:"builtin"`
}

// CustomName is the name of the runtime built by FromCommandLine.
const CustomName = "custom"

// preset is one row of the presets table.
type preset struct {
	name, title string
	argv        []string // command and args
	hint        string
	alternates  [][]string
	env         func() map[string]string // default env, computed at call time
}

// presets is the table of built-in runtimes, in the order the UI lists them.
var presets = []preset{
	{name: "claude-code", title: "Claude Code", argv: []string{"claude-code-acp"},
		hint:       "npm install -g @zed-industries/claude-code-acp",
		alternates: [][]string{{"claude-agent-acp"}},
		env:        claudeEnv},
	{name: "codex", title: "Codex", argv: []string{"codex-acp"},
		hint: "npm install -g @zed-industries/codex-acp"},
	{name: "gemini", title: "Gemini CLI", argv: []string{"gemini", "--acp"},
		hint: "npm install -g @google/gemini-cli",
		// Gemini CLI before --acp was stable only knew --experimental-acp.
		alternates: [][]string{{"gemini", "--experimental-acp"}}},
	{name: "qwen", title: "Qwen Code", argv: []string{"qwen", "--acp"},
		hint: "npm install -g @qwen-code/qwen-code"},
	{name: "opencode", title: "OpenCode", argv: []string{"opencode", "acp"},
		hint: "npm install -g opencode-ai"},
	{name: "kimi", title: "Kimi CLI", argv: []string{"kimi", "acp"},
		hint: "uv tool install --python 3.13 kimi-cli (then run `kimi` once and log in with /login)"},
	{name: "hermes", title: "Hermes", argv: []string{"hermes", "acp"},
		hint: "see https://hermes-agent.nousresearch.com/docs for install (a Python tool; then run `hermes model` to pick a provider)"},
	{name: "reasonix", title: "Reasonix", argv: []string{"reasonix", "acp"},
		hint: "npm install -g reasonix (keep optional dependencies: the binary is in @reasonix/cli-*)"},
	{name: "goose", title: "goose", argv: []string{"goose", "acp"},
		hint: "brew install block-goose-cli, or see https://block.github.io/goose for install"},
	{name: "copilot", title: "GitHub Copilot", argv: []string{"copilot", "--acp"},
		hint: "npm install -g @github/copilot"},
	{name: "cline", title: "Cline", argv: []string{"cline", "--acp"},
		hint: "npm install -g cline"},
}

// claudeEnv is Claude Code's default environment. Claude Code refuses to run
// with permission bypass as root unless IS_SANDBOX=1 says the machine is a
// sandbox (containers, CI), so the variable is set only when mnote itself
// runs as root; for ordinary users nothing is added.
func claudeEnv() map[string]string {
	if os.Geteuid() == 0 {
		return map[string]string{"IS_SANDBOX": "1"}
	}
	return nil
}

// Presets returns the built-in runtimes. Each call returns fresh copies, so
// the caller may modify them.
func Presets() []Runtime {
	out := make([]Runtime, 0, len(presets))
	for _, p := range presets {
		rt := Runtime{
			Name:        p.name,
			Title:       p.title,
			Command:     p.argv[0],
			Args:        slices.Clone(p.argv[1:]),
			InstallHint: p.hint,
			Alternates:  cloneArgv(p.alternates),
			Builtin:     true,
		}
		if len(rt.Args) == 0 {
			rt.Args = nil
		}
		if p.env != nil {
			rt.Env = p.env()
		}
		out = append(out, rt)
	}
	return out
}

// Lookup finds a runtime by name or title, ignoring case. A name match wins
// over a title match.
func Lookup(rts []Runtime, name string) (Runtime, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Runtime{}, false
	}
	for _, rt := range rts {
		if strings.EqualFold(rt.Name, name) {
			return rt, true
		}
	}
	for _, rt := range rts {
		if strings.EqualFold(rt.Title, name) {
			return rt, true
		}
	}
	return Runtime{}, false
}

// FromCommandLine builds the runtime named "custom" from one command line, as
// given to --agent-cmd. The line is split with shell-like quoting rules
// ('single', "double", backslash escapes; an unquoted # starts a comment).
// Leading NAME=value words become the runtime's environment, as in a shell.
func FromCommandLine(cmdline string) (Runtime, error) {
	words, err := shlex.Split(cmdline)
	if err != nil {
		return Runtime{}, fmt.Errorf("parse agent command %q: %w", cmdline, err)
	}
	var env map[string]string
	for len(words) > 0 {
		k, v, ok := strings.Cut(words[0], "=")
		if !ok || !validEnvName(k) {
			break
		}
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
		words = words[1:]
	}
	if len(words) == 0 {
		return Runtime{}, fmt.Errorf("parse agent command %q: %w", cmdline, ErrNoCommand)
	}
	rt := Runtime{
		Name:    CustomName,
		Title:   "Custom command",
		Command: words[0],
		Env:     env,
	}
	if len(words) > 1 {
		rt.Args = words[1:]
	}
	return rt, nil
}

// ErrNoCommand reports a runtime or command line without a command.
var ErrNoCommand = errors.New("no command")

// validEnvName reports whether s is a portable environment variable name.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// clone returns a deep copy of rt.
func (rt Runtime) clone() Runtime {
	rt.Args = slices.Clone(rt.Args)
	rt.Env = maps.Clone(rt.Env)
	rt.Alternates = cloneArgv(rt.Alternates)
	return rt
}

func cloneArgv(in [][]string) [][]string {
	if in == nil {
		return nil
	}
	out := make([][]string, len(in))
	for i, a := range in {
		out[i] = slices.Clone(a)
	}
	return out
}

// CommandLine joins a command and its arguments as a shell (and
// FromCommandLine) reads them back: sessions record it, and continuing a
// session runs it again.
func CommandLine(path string, args []string) string {
	words := make([]string, 0, len(args)+1)
	for _, w := range append([]string{path}, args...) {
		words = append(words, shellQuote(w))
	}
	return strings.Join(words, " ")
}

func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.:=@%+,-") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// LogFileName is the name of the file that keeps a runtime's stderr.
func LogFileName(name string) string {
	return "agent-" + strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, name) + ".log"
}
