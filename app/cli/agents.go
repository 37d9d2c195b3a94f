package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
)

func (e *env) runAgents(args []string) int {
	fs := flag.NewFlagSet("agents", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	check := fs.String("check", "", "start agent `NAME`, run initialize, print what it says, and stop it")
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := fs.Duration("timeout", 90*time.Second, "how long --check waits for initialize")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *check != "" {
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
			Error     string   `json:"error,omitempty"`
		}
		rows := make([]row, len(statuses))
		for i, s := range statuses {
			rows[i] = row{s.Runtime.Name, s.Runtime.Title, s.Runtime.Command, s.Runtime.Args, s.Runtime.Builtin, s.Installed, s.Path, s.Hint, s.Error}
		}
		return e.printJSON(rows)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAGENT\tSTATUS\tCOMMAND / HOW TO INSTALL")
	for _, s := range statuses {
		status, detail := "missing", s.Hint
		if s.Installed {
			status, detail = "detected", runtimes.CommandLine(s.Path, s.Runtime.Args)
		} else if s.Error != "" {
			status, detail = "error", s.Error
		}
		if !s.Runtime.Builtin {
			status += " (custom)"
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

// checkAgent starts an agent, runs initialize and prints what it says.
func (e *env) checkAgent(name string, asJSON bool, timeout time.Duration) int {
	rt, err := e.runtime(name, "")
	if err != nil {
		return e.fail(exitUsage, err)
	}
	res, err := e.detector().Resolve(rt)
	if err != nil {
		return e.fail(exitAgent, err)
	}
	cwd, _ := absDir("")
	start := time.Now()
	a, err := acp.Start(context.Background(), acp.ProcSpec{Path: res.Path, Args: res.Args, Env: res.Env, Dir: cwd}, acp.Options{InitTimeout: timeout, ClientVersion: Version, Logger: e.log})
	if err != nil {
		return e.fail(agentExit(err), fmt.Errorf("%s (%s): %w", rt.Title, runtimes.CommandLine(res.Path, res.Args), err))
	}
	elapsed := time.Since(start)
	a.Stop()
	if asJSON {
		var v map[string]any
		_ = json.Unmarshal(a.Init.Raw, &v)
		return e.printJSON(map[string]any{"name": rt.Name, "command": runtimes.CommandLine(res.Path, res.Args), "startMs": elapsed.Milliseconds(), "initialize": v})
	}
	printInit(e, rt, res, a.Init, elapsed)
	return exitOK
}

func printInit(e *env, rt runtimes.Runtime, res runtimes.Resolved, in acp.InitializeResult, elapsed time.Duration) {
	w := e.stdout
	fmt.Fprintf(w, "%s: ready (%s, initialize took %d ms)\n", rt.Title, runtimes.CommandLine(res.Path, res.Args), elapsed.Milliseconds())
	if in.AgentInfo != nil {
		fmt.Fprintf(w, "  agent:        %s %s\n", in.AgentInfo.Name, in.AgentInfo.Version)
	} else {
		fmt.Fprintln(w, "  agent:        (no agentInfo)")
	}
	c := in.AgentCapabilities
	fmt.Fprintf(w, "  protocol:     %d\n", in.ProtocolVersion)
	fmt.Fprintf(w, "  load session: %v, resume: %v, list: %v\n", c.LoadSession, c.CanResume(), c.CanList())
	fmt.Fprintf(w, "  prompt:       image %v, audio %v, embedded context %v\n", c.PromptCapabilities.Image, c.PromptCapabilities.Audio, c.PromptCapabilities.EmbeddedContext)
	fmt.Fprintf(w, "  mcp:          http %v, sse %v\n", c.McpCapabilities.HTTP, c.McpCapabilities.SSE)
	if len(in.AuthMethods) == 0 {
		fmt.Fprintln(w, "  auth methods: none")
	}
	for _, m := range in.AuthMethods {
		fmt.Fprintf(w, "  auth method:  %s — %s", m.ID, m.Name)
		if m.Description != "" {
			fmt.Fprintf(w, " (%s)", m.Description)
		}
		fmt.Fprintln(w)
	}
}
