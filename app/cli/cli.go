// Package cli runs mnote's headless subcommands (mnote prompt, mnote agents,
// mnote sessions, ...). main calls Main whenever the binary is started with
// arguments; none of these commands needs a display.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mnote/store/sqlitedb"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"mnote/acp/procguard"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/store"
)

// Version is the mnote version, set at build time with
// -ldflags "-X mnote/app/cli.Version=...".
var Version = "dev"

// Main runs the subcommand named by args[0] and returns the process exit code.
func Main(args []string) int {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	return e.run(args)
}

// env is what every command shares: streams, paths, logger, config.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	paths          store.Paths
	log            *slog.Logger

	detOnce sync.Once
	det     *runtimes.Detector
}

const usage = `mnote — chat with local AI agents over a folder of Markdown notes.

With no arguments mnote opens its window; 'mnote FOLDER' opens it on that
folder, 'mnote NOTE.md' on the note's folder. Commands (no display needed):
  prompt     send a prompt to an agent and stream the answer
  agents     list the agents mnote knows, installed or not (--check NAME); the ACP Registry's agents (--registry), one installed or updated from it (--install ID)
  sessions   list recorded sessions (sessions delete ID: like rm)
  show       print a session's thread
  search     full-text search over sessions
  notes      search a folder's notes, list backlinks, links and headings
  export     export a session as Markdown or JSONL
  rm         move a session to the trash (restore brings it back; --agent-copy: the agent deletes its own copy too)
  restore    bring a session back from the trash
  reindex    rebuild the session index from the transcripts
  share      share a session with members (--members), each on their own agent
  members    list, add or remove a shared session's members and their roles
  devices    this account's devices: list, pair a new machine, remove one
  serve      serve the UI to a browser (loopback, with an access token)
  mcp        the notes tools over MCP (stdio), started by agents mnote runs
  version    print the version

Run 'mnote COMMAND -h' for a command's options. MNOTE_HOME=DIR keeps all
data, config and logs under DIR.
`

func (e *env) run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	e.paths = store.DefaultPaths()
	level := slog.LevelWarn
	if os.Getenv("MNOTE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(e.log)

	if path := os.Getenv("MNOTE_CPUPROFILE"); path != "" {
		if stop, err := startCPUProfile(path); err != nil {
			e.warn("cpu profile: %v", err)
		} else {
			defer stop()
		}
	}
	if path := os.Getenv("MNOTE_MEMPROFILE"); path != "" {
		defer func() {
			if err := writeHeapProfile(path); err != nil {
				e.warn("heap profile: %v", err)
			}
		}()
	}
	if os.Getenv("MNOTE_MEMSTATS") != "" {
		defer printMemStats(e.stderr)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "prompt", "agents", "serve", windowServicesCmd: // the commands that start agents
		e.guardProcesses()
	}
	switch cmd {
	case "version", "--version":
		fmt.Fprintf(e.stdout, "mnote %s\n", Version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usage)
		return exitOK
	case "prompt":
		return e.runPrompt(rest)
	case "agents":
		return e.runAgents(rest)
	case "serve":
		return e.runServe(rest)
	case "mcp":
		return e.runMCP(rest)
	case windowServicesCmd:
		return e.runWindowServices(rest)
	default:
		if h, ok := sessionCommands[cmd]; ok {
			return h(e, rest)
		}
		fmt.Fprintf(e.stderr, "mnote: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

// IsCommand reports whether Main knows name as a command or a top-level flag
// (main opens the window for a folder argument only when it is not one).
func IsCommand(name string) bool {
	switch name {
	case "version", "--version", "help", "-h", "--help", "prompt", "agents", "serve", "mcp", windowServicesCmd:
		return true
	}
	_, ok := sessionCommands[name]
	return ok
}

// guardProcesses makes the agents and terminals this command starts end
// with it, even if it is killed (package procguard), and ends those an
// earlier mnote that was killed left behind.
func (e *env) guardProcesses() {
	if err := procguard.Enable(filepath.Join(e.paths.StateDir, "procs"), e.log); err != nil {
		e.warn("agents started now may outlive mnote if it is killed: %v", err)
	}
}

func (e *env) usageErr(format string, a ...any) int {
	fmt.Fprintf(e.stderr, "mnote: "+format+"\n", a...)
	return exitUsage
}

func (e *env) fail(code int, err error) int {
	e.say(err.Error()) // errors quote agents
	return code
}

func (e *env) warn(format string, a ...any) {
	e.say(fmt.Sprintf(format, a...))
}

// say prints one of mnote's messages on stderr: "mnote: " and the message
// on one line (termLine: what an agent put in it starts no line of its
// own), then the agent's stderr tail an error may end with, a line at a
// time, each marked "  | ".
func (e *env) say(msg string) {
	msg, tail := cutStderrTail(msg)
	fmt.Fprintf(e.stderr, "mnote: %s\n", termLine(msg))
	for _, l := range tail {
		fmt.Fprintf(e.stderr, "  | %s\n", termLine(l))
	}
}

func (e *env) detector() *runtimes.Detector {
	e.detOnce.Do(func() {
		// Commands run from a terminal already have the user's PATH;
		// MNOTE_DETECT_LOGIN_SHELL=1 asks the login shell anyway.
		e.det = runtimes.NewDetector(runtimes.DetectOptions{Logger: e.log, Inherited: os.Getenv("MNOTE_DETECT_LOGIN_SHELL") == ""})
		e.det.SetAgentsDir(app.AgentsDir(e.paths)) // agents installed from the window
	})
	return e.det
}

func (e *env) config() (runtimes.Config, error) {
	return runtimes.LoadConfig(e.paths.ConfigFile)
}

// runtime finds the agent named by --agent, or makes one from --agent-cmd.
func (e *env) runtime(name, cmdline string) (runtimes.Runtime, error) {
	switch {
	case name != "" && cmdline != "":
		return runtimes.Runtime{}, errors.New("give --agent or --agent-cmd, not both")
	case cmdline != "":
		return runtimes.FromCommandLine(cmdline)
	case name == "":
		return runtimes.Runtime{}, errors.New("which agent? give --agent NAME (see 'mnote agents') or --agent-cmd 'CMD ARG…'")
	}
	cfg, err := e.config()
	if err != nil {
		return runtimes.Runtime{}, err
	}
	rts := cfg.Runtimes()
	rt, ok := runtimes.Lookup(rts, name)
	if !ok {
		names := make([]string, len(rts))
		for i, r := range rts {
			names[i] = r.Name
		}
		return runtimes.Runtime{}, fmt.Errorf("no agent named %q; known agents: %s", name, strings.Join(names, ", "))
	}
	return rt, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// parseArgs parses flags wherever they appear among the arguments (so
// `mnote prompt "text" --json` works) and returns the other arguments.
// Everything after "--" is an argument.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		if args[0] == "--" {
			return append(rest, args[1:]...), nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// printMemStats prints what the Go runtime holds (MNOTE_MEMSTATS=1), to
// tell its memory from SQLite's and the libraries' in a process's RSS.
func printMemStats(w io.Writer) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	fmt.Fprintf(w, "memstats: sys %.1f MB (heap sys %.1f, released %.1f, in use %.1f; stacks %.1f; other %.1f), GCs %d, total alloc %.1f MB\n",
		mb(m.Sys), mb(m.HeapSys), mb(m.HeapReleased), mb(m.HeapInuse), mb(m.StackSys), mb(m.OtherSys+m.MSpanSys+m.MCacheSys+m.BuckHashSys+m.GCSys), m.NumGC, mb(m.TotalAlloc))
	now, peak := sqlitedb.MemoryUsed()
	fmt.Fprintf(w, "memstats: SQLite holds %.1f MB (at most %.1f)\n", float64(now)/(1<<20), float64(peak)/(1<<20))
}
