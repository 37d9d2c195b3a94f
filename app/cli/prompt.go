package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/app/chat"
	"mnote/internal/l10n"
	"mnote/store"
	"mnote/thread"
	"mnote/workspace"
)

// Exit codes of `mnote prompt`.
const (
	exitOK        = 0
	exitUsage     = 2
	exitAgent     = 3
	exitCancelled = 4
	exitAuth      = 5
)

type promptCmd struct {
	agent, agentCmd, cwd, approve, session string
	jsonOut, noNotesTools, shareThoughts   bool
	shareToolSummaries                     bool
	timeout, initTimeout                   time.Duration
	initTimeoutSet                         bool
	options                                configOptions
}

// configOptions are --option ID=VALUE flags, in order.
type configOptions [][2]string

func (o *configOptions) String() string { return fmt.Sprint(*o) }

func (o *configOptions) Set(s string) error {
	id, value, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(id) == "" {
		return fmt.Errorf("want ID=VALUE (a config option the agent offers, e.g. tool_approval=read-only), not %q", s)
	}
	*o = append(*o, [2]string{strings.TrimSpace(id), value})
	return nil
}

func (e *env) runPrompt(args []string) int {
	if os.Getenv("GOGC") == "" {
		// A streaming client holds little (its thread forgets what is
		// done) and allocates fast: collecting at 1.5× the live heap, not
		// 2×, takes a quarter off its peak memory at no cost in speed
		// (bench/ingest).
		debug.SetGCPercent(50)
	}
	var c promptCmd
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&c.agent, "agent", "", "agent `NAME` (see mnote agents)")
	fs.StringVar(&c.agentCmd, "agent-cmd", "", "run this agent `command line` instead of a named agent")
	fs.StringVar(&c.cwd, "cwd", "", "working folder for the agent (default: the current folder)")
	fs.StringVar(&c.approve, "approve", ApproveAsk, "permission requests: ask|all|reads|none")
	fs.StringVar(&c.session, "session", "", "continue the session with this `ID`")
	fs.BoolVar(&c.jsonOut, "json", false, "print one JSON object per line")
	fs.DurationVar(&c.timeout, "timeout", 0, "cancel the turn after this long (0: no limit)")
	fs.DurationVar(&c.initTimeout, "init-timeout", 90*time.Second, "how long the agent may take to start (initialize, session/new; default: the agent's init_timeout_secs, else 90s)")
	fs.BoolVar(&c.shareThoughts, "share-thoughts", false, "in a shared session: the members see this turn's thoughts too (never its tool input or output)")
	fs.BoolVar(&c.shareToolSummaries, "share-tool-summaries", false, "in a shared session: the members see a summary of each tool call too: the files it touched and the lines a diff changed (never its input or output)")
	fs.BoolVar(&c.noNotesTools, "no-notes-tools", false, "do not offer mnote's notes tools (search_notes, edit_note, … over MCP) to the agent")
	fs.Var(&c.options, "option", "set the agent's session config option `ID=VALUE` before the turn (session/set_config_option); repeatable")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: mnote prompt [--agent NAME | --agent-cmd 'CMD ARG…'] [--cwd DIR] [--approve ask|all|reads|none] [--option ID=VALUE]… [--no-notes-tools] [--json] [--timeout DUR] [--session ID [--share-thoughts] [--share-tool-summaries]] TEXT\n\nTEXT - reads the prompt from stdin.")
		fs.PrintDefaults()
	}
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	fs.Visit(func(f *flag.Flag) { c.initTimeoutSet = c.initTimeoutSet || f.Name == "init-timeout" })
	switch c.approve {
	case ApproveAsk, ApproveAll, ApproveReads, ApproveNone:
	default:
		return e.usageErr("--approve must be ask, all, reads or none, not %q", c.approve)
	}
	text := strings.Join(words, " ")
	if text == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return e.fail(exitUsage, fmt.Errorf("read the prompt from stdin: %w", err))
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		fs.Usage()
		return exitUsage
	}
	return c.run(e, text)
}

func (c *promptCmd) run(e *env, text string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl+C (or SIGTERM) stops cleanly; a second one kills.
	context.AfterFunc(ctx, stop)

	var out *lineWriter = newLineWriter(e.stdout)
	defer out.Flush()
	var obs chat.Observer
	if c.jsonOut {
		obs = &jsonObserver{out: out}
	} else {
		obs = &textObserver{out: out, color: isTerminal(e.stdout)}
	}
	// The agent and what it was started with, once known: an agent that
	// asks to log in is told of the keys it did not get (authHint).
	var rt runtimes.Runtime
	var resolved runtimes.Resolved
	fail := func(code int, err error) int {
		held := heldBackFor(err, resolved)
		if c.jsonOut {
			var j jsonLine
			j.start("error")
			j.str("message", err.Error())
			if len(held) > 0 {
				j.value("heldBack", held)
			}
			out.write(j.end(), true)
		}
		code = e.fail(code, err)
		e.authHint(held, rt)
		return code
	}

	st, err := e.openStore()
	if err != nil {
		return fail(exitAgent, err)
	}
	defer st.Close()

	// Continue a session, or start one. A shared session's log is
	// recorded here first; its turn runs under the session's lease.
	var prior *priorSession
	var shared *sharedTurn
	if c.session != "" {
		if shared, err = e.openSharedTurn(ctx, st, c.session, c.cwd); err != nil {
			var sre *sharedRunError
			if errors.As(err, &sre) {
				err = explainSharedRun(sre.err)
			}
			return fail(exitAgent, err)
		}
		if shared != nil {
			c.session = shared.id
			defer shared.close() // after the session let go of the transcript
		}
		prior, err = st.continuePrior(c.session)
		if err != nil {
			return fail(exitUsage, err)
		}
		defer prior.close()
		if c.agent == "" && c.agentCmd == "" {
			c.agentCmd = prior.command
			if prior.runtime != "" && prior.runtime != "custom" {
				c.agent = prior.runtime
				c.agentCmd = ""
			}
		}
		if c.cwd == "" {
			c.cwd = prior.workspace
		}
	}
	rt, err = e.runtime(c.agent, c.agentCmd)
	if err != nil {
		return fail(exitUsage, err)
	}
	cwd, err := absDir(c.cwd)
	if err != nil {
		return fail(exitUsage, err)
	}
	// The agent's fs/* requests are confined to the folder as in the app
	// (paths outside, symlinks leading out, FIFOs, devices, /proc, hard
	// links and mnote's own folders refused and recorded); a folder that
	// cannot be confined is refused before anything starts.
	w, err := app.OpenWorkspace(cwd, e.paths, workspace.Options{Logger: e.log})
	if err != nil {
		return fail(exitUsage, fmt.Errorf("%w (give another folder with --cwd)", err))
	}
	defer w.Close()
	resolved, err = e.detector().Resolve(rt)
	if err != nil {
		return fail(exitAgent, err)
	}

	broker := &policyBroker{policy: c.approve, errOut: e.stderr}
	if c.approve == ApproveAsk {
		if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil && isTerminal(e.stdout) {
			broker.tty = tty
			defer tty.Close()
		}
	}

	if shared != nil {
		obs = shared.observer(obs)
	}
	sess, err := st.openSession(prior, cwd, text, rt.Name, obs, broker)
	if err != nil {
		return fail(exitAgent, err)
	}
	defer func() {
		if err := sess.Close(); err != nil {
			e.warn("closing the session: %v", err)
		}
	}()

	spec := acp.ProcSpec{
		Path: resolved.Path, Args: resolved.Args, Env: resolved.Env, Dir: cwd,
		LogFile: filepath.Join(e.paths.LogDir, runtimes.LogFileName(rt.Name)),
	}
	if !c.initTimeoutSet {
		c.initTimeout = initTimeout(rt, c.initTimeout)
	}
	opts := acp.Options{InitTimeout: c.initTimeout, NewSessionTimeout: c.initTimeout, ClientVersion: Version, Logger: e.log}
	agent, err := acp.Start(ctx, spec, opts)
	if err != nil {
		return fail(agentExit(err), fmt.Errorf("%s did not start: %w", rt.Title, err))
	}
	defer agent.Stop()

	agentSession := ""
	if prior != nil {
		agentSession = prior.agentSessionID
	}
	agentFS := app.SessionFS(w, sess)
	// mnote's notes tools, as in the window: edit_note's permission
	// request goes to the same broker as the agent's own (the terminal,
	// or --approve).
	tools := e.startNotesTools(rt, c.noNotesTools, w, sess, agentFS, st.ix)
	defer tools.close()
	cfg, err := e.config()
	if err != nil {
		e.warn("config.json: %v (its context_servers are not passed to the agent)", err)
	}
	binding, err := sess.Bind(ctx, agent, chat.BindOptions{
		Runtime: rt.Name, Command: runtimes.CommandLine(resolved.Path, resolved.Args),
		AgentSessionID: agentSession, Cwd: cwd, FS: agentFS,
		McpServers: app.MCPServers(cfg, rt, agent, tools.entry(), e.log),
	})
	if err != nil {
		return fail(agentExit(err), err)
	}
	if binding.Note != "" {
		e.warn("%s", binding.Note)
	}
	if c.jsonOut {
		var j jsonLine
		j.start("session")
		j.str("sessionId", sess.ID)
		j.str("agentSessionId", binding.AgentSessionID)
		j.str("runtime", rt.Name)
		j.str("how", binding.How)
		if info := agent.Init.AgentInfo; info != nil {
			j.str("agent", info.Name)
			j.str("agentVersion", info.Version)
		}
		j.str("transcript", st.transcriptPath(sess.ID))
		out.write(j.end(), true)
	}
	for _, o := range c.options {
		if err := sess.SetConfigOption(ctx, o[0], o[1]); err != nil {
			return fail(agentExit(err), fmt.Errorf("--option %s=%s: %w", o[0], o[1], err))
		}
	}

	turnCtx := ctx
	if c.timeout > 0 {
		var cancel context.CancelFunc
		turnCtx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	blocks := chat.TextPrompt(text)
	if shared != nil {
		// The member's own agent: session/load when it holds the
		// session, else the earlier turns of the shared projection.
		held := binding.How == store.HowLoad || binding.How == store.HowResume
		loc := l10n.FromEnv()
		shared.thoughts, shared.summaries = c.shareThoughts, c.shareToolSummaries
		mode, earlier, err := shared.start(ctx, text, held, func(pos int) {
			if c.jsonOut {
				var j jsonLine
				j.start("queued")
				j.int("position", int64(pos))
				out.write(j.end(), true)
			}
			e.say(loc.T("cli.collab_queued", pos))
		})
		if err != nil {
			return fail(exitAgent, err)
		}
		blocks = promptBlocks(text, earlier)
		if c.jsonOut {
			var j jsonLine
			j.start("shared")
			j.str("sessionId", shared.id)
			j.str("runId", shared.run.ID)
			j.str("context", mode)
			out.write(j.end(), true)
		}
		var cancel context.CancelFunc
		turnCtx, cancel = context.WithCancel(turnCtx)
		defer cancel()
		go shared.run.Watch(turnCtx, cancel)
	}
	tools.setTurn(turnCtx)
	res, err := sess.Prompt(turnCtx, blocks)
	tools.setTurn(nil)
	out.Flush()
	if shared != nil {
		failed := err != nil || res.StopReason == acp.StopCancelled
		if serr := shared.finish(ctx, failed); serr != nil {
			return fail(exitAgent, serr)
		}
	}
	if err != nil {
		return fail(agentExit(err), err)
	}
	if c.jsonOut {
		var j jsonLine
		j.start("stop")
		j.str("stopReason", res.StopReason)
		j.str("sessionId", sess.ID)
		j.int("turn", int64(res.Turn))
		j.int("updates", sess.Updates())
		if len(res.Usage) > 0 {
			j.raw("usage", res.Usage)
		}
		out.write(j.end(), true)
	}
	if res.StopReason == acp.StopCancelled {
		if c.timeout > 0 && errors.Is(turnCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			e.warn("the turn was cancelled after --timeout %s", c.timeout)
		}
		return exitCancelled
	}
	if !c.jsonOut {
		var usage thread.Usage
		sess.Thread(func(th *thread.Thread) { usage = th.Snapshot().Usage })
		if line := costLine(l10n.FromEnv(), usage); line != "" {
			fmt.Fprintf(e.stderr, "%s\n", dimIf(isTerminal(e.stderr), line))
		}
		fmt.Fprintf(e.stderr, "%s\n", dimIf(isTerminal(e.stderr), fmt.Sprintf("[%s · session %s]", termLine(res.StopReason), sess.ID)))
	}
	return exitOK
}

// heldBackFor names the key-looking variables of mnote's environment the
// agent did not get, when err says it needs a login (none otherwise).
func heldBackFor(err error, res runtimes.Resolved) []string {
	if !errors.Is(err, acp.ErrAuthRequired) {
		return nil
	}
	return res.HeldBack
}

// authHint tells, after an agent asked to log in, which variables that
// look like keys it did not get from mnote's environment, and how to give
// it one: `mnote agents --set-key`, or the entry's env in config.json.
func (e *env) authHint(held []string, rt runtimes.Runtime) {
	if len(held) == 0 {
		return
	}
	loc := l10n.FromEnv()
	name := rt.Name
	if name == runtimes.CustomName {
		name = "NAME" // --agent-cmd: a config.json entry would be named
	}
	fmt.Fprintln(e.stderr, loc.T("cli.auth_held_back", termLine(rt.Title), strings.Join(held, ", ")))
	example := "NAME"
	if len(held) == 1 {
		example = held[0]
	}
	fmt.Fprintln(e.stderr, loc.T("cli.auth_give_key", name, example, e.paths.ConfigFile))
}

func agentExit(err error) int {
	if errors.Is(err, acp.ErrAuthRequired) {
		return exitAuth
	}
	return exitAgent
}

func absDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("--cwd: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("--cwd %s is not a folder", abs)
	}
	return abs, nil
}

func dimIf(on bool, s string) string {
	if on {
		return "\x1b[2m" + s + "\x1b[0m"
	}
	return s
}
