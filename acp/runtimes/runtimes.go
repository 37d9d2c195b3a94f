// Package runtimes knows how to start local ACP agents.
//
// A runtime is one way to start an agent process that speaks the Agent Client
// Protocol over stdio: a name, a command, its arguments, extra environment and
// an optional working directory. The package provides:
//
//   - the built-in presets (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode,
//     Kimi, Hermes, Reasonix, goose, GitHub Copilot, Cline) with install and
//     login hints and the variables that can carry their API keys;
//   - custom entries from config.json, in the shape of Zed's "agent_servers"
//     setting, merged over the presets (LoadConfig, SaveConfig, Config.Runtimes),
//     among them the agents installed from the ACP Registry (acp/registry),
//     whose entries say so ("registry": {"id", "version"});
//   - a runtime from a single command line (FromCommandLine, for --agent-cmd);
//   - agents' API keys (SetSecret, SecretsFor) in secrets.json beside
//     config.json (mode 0600, folder 0700), loaded with the config and given
//     to the agent only in its environment (Resolved.Env), never in a JSON
//     view of a runtime or a log line;
//   - detection (Detector): the user's login-shell PATH plus the usual Node and
//     user bin folders, so that a GUI app started from a desktop launcher finds
//     the same agents as a terminal, and the resolved executable, arguments and
//     child environment for a runtime: an allow-list of mnote's environment
//     (PassesEnv; all of it with "inherit_env"), never mnote's own
//     variables, plus what was configured for the agent;
//   - mnote's own installs (SetAgentsDir, InstallDir, InstallCommand): the
//     pinned npm package of a preset (Runtime.NPMPackage) installed with
//     `npm install --prefix` into a folder of its own, whose bin folder is
//     searched after all others, looked at again on every lookup.
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
	// NPMPackage is the pinned "package@version" mnote itself can install
	// into its own folder (Detector.InstallDir); "" for agents installed
	// some other way (their InstallHint is the command to run).
	NPMPackage string `json:"npmPackage,omitempty"`
	// InstallNote says what InstallHint does not (another way to install,
	// a caveat), in English; "" for most.
	InstallNote string `json:"installNote,omitempty"`
	// LoginHint says how to log in or give the agent a key, e.g. "run
	// `claude` once and log in with /login".
	LoginHint string `json:"loginHint,omitempty"`
	// InstallNoteKey and LoginHintKey name InstallNote and LoginHint in
	// the window's catalogue (frontend/messages/agents), which words them
	// in the interface's language; set for the presets only (a test keeps
	// the catalogue's English equal to the text here, and has Chinese).
	InstallNoteKey string `json:"installNoteKey,omitempty"`
	LoginHintKey   string `json:"loginHintKey,omitempty"`
	// KeyEnv names the environment variables that can carry the agent's
	// API key instead of a login (see SetSecret), most useful first.
	KeyEnv []string `json:"keyEnv,omitempty"`
	// ProviderEnv names the variables of the agent's own model provider
	// that it inherits from mnote's environment, keys included, beside the
	// allow-list every agent gets (env.go): "NAME", or "PREFIX_*" for a
	// family. No other agent gets them.
	ProviderEnv []string `json:"providerEnv,omitempty"`
	// InitTimeoutSecs bounds initialize and session/new for this agent
	// (some take tens of seconds on their first start); 0 means the
	// client's default.
	InitTimeoutSecs int `json:"initTimeoutSecs,omitempty"`
	// InheritEnv gives the agent mnote's whole environment instead of the
	// allow-list (PassesEnv); mnote's own variables never pass.
	InheritEnv bool `json:"inheritEnv,omitempty"`
	// NoNotesTools keeps mnote's notes tools (MCP) from this agent
	// (config.json "notes_tools": false).
	NoNotesTools bool `json:"noNotesTools,omitempty"`
	// AdditionalDirectories are the folders config.json's
	// additional_directories allows this agent besides the session's.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// Alternates are other command+args to try, in order, when Command is not
	// found, e.g. claude-agent-acp for Claude Code. An alternate whose command
	// is the same executable as Command (Gemini's --experimental-acp) is never
	// picked by detection; it is a fallback for a spawner whose first attempt
	// fails (an older agent version).
	Alternates [][]string `json:"alternates,omitempty"`
	Builtin    bool       `json:"builtin"`
	// Registry names the ACP Registry agent and version this runtime was
	// installed from (config.json "registry"); nil for the others.
	Registry *RegistrySource `json:"registry,omitempty"`

	// secretEnv holds the values stored with SetSecret for this runtime.
	// Unexported so that no JSON view of a Runtime (mnote agents --json,
	// the app's agent list) can carry them; Resolve adds them to the
	// child's environment.
	secretEnv map[string]string
}

// CustomName is the name of the runtime built by FromCommandLine.
const CustomName = "custom"

// preset is one row of the presets table.
type preset struct {
	name, title string
	argv        []string // command and args
	hint        string   // the command that installs it ("" when there is no one command)
	note        string   // InstallNote
	npm         string   // pinned package@version (docs/agents.md, tested)
	login       string
	keyEnv      []string
	providerEnv []string // Runtime.ProviderEnv
	alternates  [][]string
	env         func() map[string]string // default env, computed at call time
}

// presets is the table of built-in runtimes, in the order the UI lists them.
var presets = []preset{
	{name: "claude-code", title: "Claude Code", argv: []string{"claude-code-acp"},
		hint:        "npm install -g @zed-industries/claude-code-acp",
		login:       "run `claude` once and log in with /login, or give an Anthropic API key",
		keyEnv:      []string{"ANTHROPIC_API_KEY"},
		providerEnv: []string{"ANTHROPIC_*", "CLAUDE_CODE_*"},
		alternates:  [][]string{{"claude-agent-acp"}},
		env:         claudeEnv},
	{name: "codex", title: "Codex", argv: []string{"codex-acp"},
		hint:        "npm install -g @zed-industries/codex-acp",
		login:       "run `codex login` (ChatGPT account), or give an OpenAI API key",
		keyEnv:      []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
		providerEnv: []string{"OPENAI_*", "CODEX_*"}},
	{name: "gemini", title: "Gemini CLI", argv: []string{"gemini", "--acp"},
		hint:        "npm install -g @google/gemini-cli",
		login:       "run `gemini` once and choose Login with Google, or give a Gemini API key",
		keyEnv:      []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
		providerEnv: []string{"GEMINI_*", "GOOGLE_*"},
		// Gemini CLI before --acp was stable only knew --experimental-acp.
		alternates: [][]string{{"gemini", "--experimental-acp"}}},
	{name: "qwen", title: "Qwen Code", argv: []string{"qwen", "--acp"},
		hint:   "npm install -g @qwen-code/qwen-code",
		npm:    "@qwen-code/qwen-code@0.24.4",
		login:  "run `qwen` once and log in with /auth, or give an OpenAI-compatible key (with OPENAI_BASE_URL and OPENAI_MODEL in the agent's env)",
		keyEnv: []string{"OPENAI_API_KEY", "DASHSCOPE_API_KEY"},
		// Qwen Code's API-key login is OpenAI-compatible (OPENAI_API_KEY,
		// OPENAI_BASE_URL, OPENAI_MODEL); DashScope is Alibaba's.
		providerEnv: []string{"OPENAI_*", "DASHSCOPE_*", "QWEN_*"}},
	{name: "opencode", title: "OpenCode", argv: []string{"opencode", "acp"},
		hint:  "npm install -g opencode-ai",
		npm:   "opencode-ai@1.18.33",
		login: "run `opencode auth login` and pick a provider, or configure one in ~/.config/opencode/opencode.json",
		// OpenCode talks to many providers and finds their keys in the
		// environment (models.dev's variable names): the common ones.
		providerEnv: []string{"OPENCODE_*", "ANTHROPIC_*", "OPENAI_*", "GEMINI_*", "GOOGLE_GENERATIVE_AI_*", "OPENROUTER_*",
			"DEEPSEEK_*", "GROQ_*", "MISTRAL_*", "XAI_*"}},
	{name: "kimi", title: "Kimi CLI", argv: []string{"kimi", "acp"},
		hint:        "uv tool install --python 3.13 kimi-cli",
		login:       "run `kimi` once and log in with /login",
		providerEnv: []string{"KIMI_*", "MOONSHOT_*"}},
	{name: "hermes", title: "Hermes", argv: []string{"hermes", "acp"},
		hint:  "curl -fsSL https://hermes-agent.nousresearch.com/install.sh | bash",
		note:  "Or see https://hermes-agent.nousresearch.com/docs for the other ways to install it.",
		login: "run `hermes model` to pick a provider and enter its key",
		// Hermes keeps its keys in ~/.hermes/.env; from the environment it
		// reads its own settings and OpenRouter's and Nous Portal's.
		providerEnv: []string{"HERMES_*", "OPENROUTER_*", "NOUS_*"}},
	{name: "reasonix", title: "Reasonix", argv: []string{"reasonix", "acp"},
		hint: "npm install -g reasonix",
		note: "Keep npm's optional dependencies: the program is in @reasonix/cli-*.",
		npm:  "reasonix@1.38.11",
		// Reasonix keeps its DeepSeek key in its own .env (reasonix setup);
		// DEEPSEEK_* pass for a setup that reads them.
		login:       "run `reasonix setup` to pick a provider and enter its key (kept in Reasonix's .env)",
		providerEnv: []string{"REASONIX_*", "DEEPSEEK_*"}},
	{name: "goose", title: "goose", argv: []string{"goose", "acp"},
		hint:        "brew install block-goose-cli",
		note:        "Or see https://block.github.io/goose for the other ways to install it.",
		login:       "run `goose configure` to pick a provider and enter its key",
		providerEnv: []string{"GOOSE_*"}},
	{name: "copilot", title: "GitHub Copilot", argv: []string{"copilot", "--acp"},
		hint:        "npm install -g @github/copilot",
		login:       "run `copilot` once and log in with /login (GitHub account), or give a GitHub token",
		keyEnv:      []string{"GH_TOKEN", "GITHUB_TOKEN"},
		providerEnv: []string{"COPILOT_*", "GH_TOKEN", "GITHUB_TOKEN"}},
	{name: "cline", title: "Cline", argv: []string{"cline", "--acp"},
		hint:        "npm install -g cline",
		login:       "run `cline auth` to sign in or pick a provider and key",
		providerEnv: []string{"CLINE_*"}},
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
			InstallNote: p.note,
			NPMPackage:  p.npm,
			LoginHint:   p.login,
			KeyEnv:      slices.Clone(p.keyEnv),
			ProviderEnv: slices.Clone(p.providerEnv),
			Alternates:  cloneArgv(p.alternates),
			Builtin:     true,
		}
		if len(rt.Args) == 0 {
			rt.Args = nil
		}
		if p.note != "" {
			rt.InstallNoteKey = PresetKey(p.name, "install_note")
		}
		if p.login != "" {
			rt.LoginHintKey = PresetKey(p.name, "login")
		}
		if p.env != nil {
			rt.Env = p.env()
		}
		out = append(out, rt)
	}
	return out
}

// PresetKey is the window's catalogue key of a preset's text:
// "agents_preset_<name>_<what>", the name's dashes as underscores.
func PresetKey(name, what string) string {
	return "agents_preset_" + strings.ReplaceAll(name, "-", "_") + "_" + what
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
	rt.KeyEnv = slices.Clone(rt.KeyEnv)
	rt.ProviderEnv = slices.Clone(rt.ProviderEnv)
	rt.AdditionalDirectories = slices.Clone(rt.AdditionalDirectories)
	rt.Alternates = cloneArgv(rt.Alternates)
	rt.secretEnv = maps.Clone(rt.secretEnv)
	if rt.Registry != nil {
		src := *rt.Registry
		rt.Registry = &src
	}
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
