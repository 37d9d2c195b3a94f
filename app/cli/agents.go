package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/internal/l10n"
)

// loginHint is "to log in: …" for rt in loc: a preset's hint in the
// language of loc, another runtime's as configured; "" when it has none.
func loginHint(loc l10n.Locale, rt runtimes.Runtime) string {
	if rt.LoginHint == "" {
		return ""
	}
	return loc.T("cli.agents_to_log_in", runtimes.PresetText(rt.LoginHintKey, rt.LoginHint, string(loc)))
}

func (e *env) runAgents(args []string) int {
	fs := flag.NewFlagSet("agents", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	check := fs.String("check", "", "start agent `NAME`, run initialize, print what it says (auth methods included), and stop it")
	setKey := fs.String("set-key", "", "keep a key for agent `NAME`: --set-key NAME VAR reads the value of environment variable VAR from stdin (empty removes it)")
	logout := fs.String("logout", "", "sign out of agent `NAME` (ACP logout, when the agent offers it): its next start asks you to sign in")
	asJSON := fs.Bool("json", false, "print JSON")
	fromRegistry := fs.Bool("registry", false, "list the agents of the ACP Registry (fetched now; the copy kept from the last fetch when offline), with what is installed and what has an update")
	install := fs.String("install", "", "install (or update) agent `ID` from the ACP Registry into mnote's agents folder and make it an agent mnote can start")
	offline := fs.Bool("offline", false, "with --registry or --install: use the copy of the ACP Registry kept from the last fetch, without the network")
	timeout := fs.Duration("timeout", 90*time.Second, "how long --check waits for initialize (default: the agent's init_timeout_secs, else 90s)")
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	timeoutSet := false
	fs.Visit(func(f *flag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	switch {
	case *setKey != "":
		if len(words) != 1 {
			return e.usageErr("usage: mnote agents --set-key NAME VAR  (the value is read from stdin)")
		}
		return e.setAgentKey(*setKey, words[0])
	case len(words) > 0:
		return e.usageErr("unexpected arguments %q (see mnote agents -h)", words)
	case *install != "":
		return e.installFromRegistry(*install, *offline, *asJSON)
	case *fromRegistry:
		return e.listRegistry(*offline, *asJSON)
	case *logout != "":
		return e.logoutAgent(*logout)
	case *check != "":
		if !timeoutSet {
			*timeout = 0
		}
		return e.checkAgent(*check, *asJSON, *timeout)
	}
	cfg, err := e.config()
	if err != nil {
		return e.fail(exitUsage, err)
	}
	if err := cfg.Validate(); err != nil {
		e.warn("%v", err)
	}
	statuses := e.detector().Status(cfg.Runtimes())
	if *asJSON {
		type row struct {
			Name      string   `json:"name"`
			Title     string   `json:"title"`
			Command   string   `json:"command"`
			Args      []string `json:"args,omitempty"`
			Builtin   bool     `json:"builtin"`
			Installed bool     `json:"installed"`
			Path      string   `json:"path,omitempty"`
			Hint      string   `json:"hint,omitempty"`
			LoginHint string   `json:"loginHint,omitempty"`
			KeyEnv    []string `json:"keyEnv,omitempty"`
			KeysSet   []string `json:"keysSet,omitempty"` // names only, never values
			Error     string   `json:"error,omitempty"`
			// Registry: installed from the ACP Registry (--install).
			Registry *runtimes.RegistrySource `json:"registry,omitempty"`
		}
		rows := make([]row, len(statuses))
		for i, s := range statuses {
			rt := s.Runtime
			rows[i] = row{rt.Name, rt.Title, rt.Command, rt.Args, rt.Builtin, s.Installed, s.Path, s.Hint,
				rt.LoginHint, rt.KeyEnv, rt.SecretNames(), s.Error, rt.Registry}
		}
		return e.printJSON(rows)
	}
	loc := l10n.FromEnv()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, loc.T("cli.agents_heading"))
	for _, s := range statuses {
		status, detail := loc.T("cli.agents_missing"), s.Hint
		if s.Installed {
			status, detail = loc.T("cli.agents_detected"), runtimes.CommandLine(s.Path, s.Runtime.Args)
		} else if s.Error != "" {
			status, detail = loc.T("cli.agents_error"), s.Error
		}
		switch {
		case s.Runtime.Registry != nil:
			status += loc.T("cli.agents_from_registry", s.Runtime.Registry.Version)
		case !s.Runtime.Builtin:
			status += loc.T("cli.agents_custom")
		}
		if keys := s.Runtime.SecretNames(); len(keys) > 0 {
			detail += loc.T("cli.agents_keys", strings.Join(keys, ", "))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Runtime.Name, s.Runtime.Title, status, detail)
	}
	tw.Flush()
	return exitOK
}

func (e *env) printJSON(v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return e.fail(exitAgent, err)
	}
	return exitOK
}

// checkAgent starts an agent, runs initialize and prints what it says. A
// timeout of 0 means the runtime's own (init_timeout_secs), else 90 s.
func (e *env) checkAgent(name string, asJSON bool, timeout time.Duration) int {
	rt, err := e.runtime(name, "")
	if err != nil {
		return e.fail(exitUsage, err)
	}
	if timeout <= 0 {
		timeout = initTimeout(rt, 90*time.Second)
	}
	res, err := e.detector().Resolve(rt)
	if err != nil {
		return e.fail(exitAgent, err)
	}
	cwd, _ := absDir("")
	start := time.Now()
	a, err := acp.Start(context.Background(), acp.ProcSpec{Path: res.Path, Args: res.Args, Env: res.Env, Dir: cwd}, acp.Options{InitTimeout: timeout, ClientVersion: Version, Logger: e.log})
	if err != nil {
		err = fmt.Errorf("%s (%s): %w", rt.Title, runtimes.CommandLine(res.Path, res.Args), err)
		code := e.fail(agentExit(err), err)
		if hint := loginHint(l10n.FromEnv(), rt); hint != "" {
			fmt.Fprintln(e.stderr, hint)
		}
		return code
	}
	elapsed := time.Since(start)
	a.Stop()
	if asJSON {
		var v map[string]any
		_ = json.Unmarshal(a.Init.Raw, &v)
		methods := make([]map[string]any, 0, len(a.Init.AuthMethods))
		for _, m := range a.Init.AuthMethods {
			row := map[string]any{"id": m.ID, "name": m.Name, "description": m.Description}
			if cmd, ok := authCommand(m, res); ok {
				row["type"], row["command"] = "terminal", cmd
			}
			if vars := m.EnvVars(); len(vars) > 0 {
				row["type"], row["vars"] = "env_var", vars
			}
			methods = append(methods, row)
		}
		return e.printJSON(map[string]any{"name": rt.Name, "command": runtimes.CommandLine(res.Path, res.Args), "startMs": elapsed.Milliseconds(),
			"authMethods": methods, "loginHint": rt.LoginHint, "keysSet": rt.SecretNames(), "initialize": v})
	}
	printInit(e, rt, res, a.Init, elapsed)
	return exitOK
}

// initTimeout is the runtime's initialize timeout, or def.
func initTimeout(rt runtimes.Runtime, def time.Duration) time.Duration {
	if rt.InitTimeoutSecs > 0 {
		return time.Duration(rt.InitTimeoutSecs) * time.Second
	}
	return def
}

// authCommand is the command line that runs a terminal auth method: the
// agent's own executable with the method's arguments (or the command the
// method names), its variables first.
func authCommand(m acp.AuthMethod, res runtimes.Resolved) (string, bool) {
	ta, ok := m.Terminal()
	if !ok {
		return "", false
	}
	path := res.Path
	if ta.Command != "" {
		path = ta.Command
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(ta.Env)) {
		b.WriteString(runtimes.CommandLine(k+"="+ta.Env[k], nil))
		b.WriteByte(' ')
	}
	b.WriteString(runtimes.CommandLine(path, ta.Args))
	return b.String(), true
}

// setAgentKey keeps the value of variable name for an agent, read from
// stdin (never echoed, logged or recorded).
func (e *env) setAgentKey(agent, name string) int {
	// A user's MCP server (config.json context_servers) keeps its
	// secrets the same way, under "context_server:NAME".
	title, key := agent, agent
	if !strings.HasPrefix(agent, runtimes.ContextServerSecretsName("")) {
		rt, err := e.runtime(agent, "")
		if err != nil {
			return e.fail(exitUsage, err)
		}
		title, key = rt.Title, rt.Name
	}
	loc := l10n.FromEnv()
	if isTerminal(e.stdin) {
		fmt.Fprint(e.stderr, loc.T("cli.agents_value_prompt", name, title))
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return e.fail(exitUsage, fmt.Errorf("read the value of %s from stdin: %w", name, err))
	}
	value := strings.TrimRight(line, "\r\n")
	if strings.ContainsAny(value, "\r\n") {
		return e.fail(exitUsage, fmt.Errorf("the value of %s must be one line", name))
	}
	if err := runtimes.SetSecret(e.paths.ConfigFile, key, name, value); err != nil {
		return e.fail(exitUsage, err)
	}
	where := runtimes.SecretsPath(e.paths.ConfigFile)
	if value == "" {
		fmt.Fprintln(e.stdout, loc.T("cli.agents_key_removed", title, name, where))
	} else {
		fmt.Fprintln(e.stdout, loc.T("cli.agents_key_kept", title, name, where))
	}
	return exitOK
}

func printInit(e *env, rt runtimes.Runtime, res runtimes.Resolved, in acp.InitializeResult, elapsed time.Duration) {
	w := e.stdout
	loc := l10n.FromEnv()
	fmt.Fprintf(w, "%s: ready (%s, initialize took %d ms)\n", rt.Title, runtimes.CommandLine(res.Path, res.Args), elapsed.Milliseconds())
	if in.AgentInfo != nil {
		fmt.Fprintf(w, "  agent:        %s %s\n", termLine(in.AgentInfo.Name), termLine(in.AgentInfo.Version))
	} else {
		fmt.Fprintln(w, "  agent:        (no agentInfo)")
	}
	c := in.AgentCapabilities
	fmt.Fprintf(w, "  protocol:     %d\n", in.ProtocolVersion)
	fmt.Fprintf(w, "  load session: %v, resume: %v, list: %v\n", c.LoadSession, c.CanResume(), c.CanList())
	fmt.Fprintf(w, "  close: %v, delete: %v, logout: %v\n", c.CanClose(), c.CanDelete(), c.CanLogout())
	fmt.Fprintf(w, "  prompt:       image %v, audio %v, embedded context %v\n", c.PromptCapabilities.Image, c.PromptCapabilities.Audio, c.PromptCapabilities.EmbeddedContext)
	fmt.Fprintf(w, "  mcp:          http %v, sse %v\n", c.McpCapabilities.HTTP, c.McpCapabilities.SSE)
	if len(in.AuthMethods) == 0 {
		fmt.Fprintln(w, "  auth methods: none")
	}
	for _, m := range in.AuthMethods {
		fmt.Fprintf(w, "  auth method:  %s — %s", termLine(m.ID), termLine(m.Name))
		if m.Description != "" {
			fmt.Fprintf(w, " (%s)", termLine(m.Description))
		}
		fmt.Fprintln(w)
		if cmd, ok := authCommand(m, res); ok {
			fmt.Fprintf(w, "                %s\n", loc.T("cli.agents_run_terminal", termLine(cmd)))
		}
		for _, v := range m.EnvVars() {
			fmt.Fprintf(w, "                %s\n", loc.T("cli.agents_give_var", termLine(v), rt.Name, termLine(v)))
		}
	}
	if hint := loginHint(loc, rt); hint != "" {
		fmt.Fprintf(w, "  %s\n", hint)
	}
	if len(rt.KeyEnv) > 0 {
		fmt.Fprintf(w, "  %s\n", loc.T("cli.agents_or_key", rt.Name, rt.KeyEnv[0]))
	}
	if keys := rt.SecretNames(); len(keys) > 0 {
		fmt.Fprintf(w, "  %s\n", loc.T("cli.agents_keys_set", strings.Join(keys, ", ")))
	}
}
