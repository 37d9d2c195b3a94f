package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"mnote/acp/runtimes"
	"mnote/app/shared"
	"mnote/cloudsync"
	"mnote/mcp"
	"mnote/store"
	"mnote/workspace"
)

// Config sets up the services.
type Config struct {
	Paths store.Paths // where config, transcripts and the index live
	// Workspace is the notes folder opened at start (mnote serve
	// --workspace). Empty: the last one used, if any. New sessions work in
	// the open workspace, else in the home folder.
	Workspace string
	// Select is a Markdown file in Workspace to open first (`mnote
	// ~/notes/todo.md`): the next workspace.get names it once.
	Select  string
	Emitter Emitter // nil drops events
	// Detector finds agents. Default: one that asks the user's login shell
	// for PATH once (the window is started from a desktop launcher, which
	// does not pass the terminal's PATH).
	Detector *runtimes.Detector
	Logger   *slog.Logger
	// ClientVersion is sent to agents as clientInfo.version.
	ClientVersion string
	// InitTimeout bounds an agent's initialize and session/new (default 90 s).
	InitTimeout time.Duration
	// CancelGrace is how long a cancelled turn may take before the agent
	// is killed (default 10 s).
	CancelGrace time.Duration
	// MaxAgents caps the agent processes running at once (default 6);
	// SessionsPerAgent is how many sessions share one process (default 8;
	// 1 gives every session its own); AgentIdle is how long a process no
	// session uses keeps running (default 5 min).
	MaxAgents        int
	SessionsPerAgent int
	AgentIdle        time.Duration
	// PickFolder shows the native folder dialog (the window's), worded in
	// the page's locale ("en", "zh-CN"; "" the system's); "" means
	// cancelled. nil: there is none (mnote serve), the page asks for a path.
	PickFolder func(ctx context.Context, locale string) (string, error)
	// SaveFile shows the native save dialog for an export named name,
	// opened in the folder dir ("" the dialog's default), worded in the
	// page's locale, and returns the chosen path ("" cancelled). nil
	// (mnote serve): exports are returned to the page, which downloads them.
	SaveFile func(ctx context.Context, locale, dir, name string) (string, error)
	// MCPCommand is the program agents start for the notes tools
	// (`MCPCommand mcp`); "" is this executable.
	MCPCommand string
	// OpenInApp opens a workspace file (its absolute path) in the
	// desktop's program for it (files.openInApp); nil: opener.Open.
	OpenInApp func(abs string) error
	// RegistryURL is the ACP Registry index agents.registry fetches; ""
	// is $MNOTE_REGISTRY_URL, else the ACP Registry's own (registry.go).
	RegistryURL string
}

// Services are the app's services and its live sessions.
type Services struct {
	cfg   Config
	log   *slog.Logger
	paths store.Paths
	ix    *store.Index
	det   *runtimes.Detector
	em    Emitter
	perms *permissions
	elic  elicitations // agents' questions waiting for the user (elicitation.go)
	pool  *agentPool
	ws    *workspaces
	// sync is the opt-in metadata sync (nil when it could not be opened:
	// syncErr says why).
	sync    *cloudsync.Syncer
	syncErr error
	// shared is the window's side of shared sessions (package app/shared).
	shared *shared.Service
	// mcp is the notes tools' socket (mcp.go); nil when it is off.
	mcp *mcp.Host

	// life is the services' lifetime: the window's calls run under it
	// (Bridge.Call), and Shutdown cancels it.
	life    context.Context
	endLife context.CancelFunc

	mu       sync.Mutex
	live     map[string]*liveSession
	opening  map[string]chan struct{} // closed when the opening ends
	seqs     map[string]uint64        // last seq of sessions no longer live
	agentSt  map[string]agentState    // what starting an agent last showed
	capsMu   sync.Mutex               // guards caps (agentcopy.go)
	caps     map[string]AgentCaps     // what agents last advertised; nil until read
	ops      agentOps                 // installs and starts in progress (install.go)
	shutdown bool
	turns    sync.WaitGroup
	pages    threadPages // sessions.open a slice at a time (sessionpage.go)
}

// New opens the data folder (creating it, and rebuilding the index from
// the transcripts when it is unreadable) and returns the services.
func New(cfg Config) (*Services, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Emitter == nil {
		cfg.Emitter = discardEmitter{}
	}
	if cfg.Detector == nil {
		cfg.Detector = runtimes.NewDetector(runtimes.DetectOptions{Logger: cfg.Logger})
	}
	cfg.Detector.SetAgentsDir(AgentsDir(cfg.Paths))
	if cfg.InitTimeout <= 0 {
		cfg.InitTimeout = 90 * time.Second
	}
	if err := cfg.Paths.Ensure(); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	ctx := context.Background()
	ix, err := store.OpenIndex(ctx, cfg.Paths.DB)
	if err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	if r := ix.Recovered(); r != "" {
		cfg.Logger.Warn("the session index was unreadable; rebuilding it from the transcripts", "movedTo", r)
		if err := ix.Rebuild(ctx, cfg.Paths.Transcripts, nil); err != nil {
			ix.Close()
			return nil, fmt.Errorf("rebuild the session index: %w", err)
		}
	} else if _, err := ix.Reconcile(ctx, cfg.Paths.Transcripts); err != nil {
		cfg.Logger.Warn("reconciling the index with the transcripts", "err", err)
	}
	s := &Services{
		cfg: cfg, log: cfg.Logger, paths: cfg.Paths, ix: ix, det: cfg.Detector, em: cfg.Emitter,
		live: make(map[string]*liveSession), opening: make(map[string]chan struct{}),
		seqs: make(map[string]uint64), agentSt: make(map[string]agentState),
	}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.perms = &permissions{s: s, pending: make(map[string]*parked)}
	s.pool = newAgentPool(s, cfg)
	s.ws = &workspaces{s: s, open: map[string]*workspace.Workspace{}}
	s.startWorkspace()
	s.openSync()
	s.openShared()
	s.startMCP()
	return s, nil
}

type discardEmitter struct{}

func (discardEmitter) Emit(string, any) {}

// Bridge is what the window binds: one method, Call.
func (s *Services) Bridge() *Bridge { return &Bridge{s: s} }

// Bridge is what the window's bound method (window.go.desktop.Bridge.Call,
// through `mnote window-services`) and `mnote serve` call.
// Wails binds every exported method of a bound struct, so Call is its only
// one; Services.Invoke is the same dispatch for `mnote serve`.
type Bridge struct {
	s *Services
}

// Call runs one method with its arguments as JSON and returns the result
// as JSON. A failure is an *Error whose message is its JSON.
//
// Wails gives a bound method no context, so the call runs under the
// services' lifetime: Shutdown cancels it, as the end of its request
// cancels a call in `mnote serve` (which passes the request's context to
// Invoke). Work that outlives a call never hangs on the call's context.
func (b *Bridge) Call(method string, args string) (string, error) {
	if b == nil || b.s == nil {
		return "", &Error{Code: CodeInternal, Reason: ReasonShuttingDown, Message: "mnote's services are not running"}
	}
	res, e := b.s.Invoke(b.s.life, method, json.RawMessage(args))
	if e != nil {
		return "", e
	}
	out, err := EncodeResult(res)
	if err != nil {
		return "", errorFrom("encode the result of "+method, err)
	}
	return string(out), nil
}

// Encoded is a method result that is JSON already (a snapshot read from
// the thread cache): it is sent as it is.
type Encoded []byte

// EncodeResult is a method result's JSON.
func EncodeResult(res any) ([]byte, error) {
	if b, ok := res.(Encoded); ok {
		return b, nil
	}
	return json.Marshal(res)
}

// handler runs one method.
type handler func(s *Services, ctx context.Context, args json.RawMessage) (any, *Error)

// method adapts a typed method: args decode strictly into A.
func method[A any](fn func(s *Services, ctx context.Context, a A) (any, *Error)) handler {
	return func(s *Services, ctx context.Context, raw json.RawMessage) (any, *Error) {
		var a A
		if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&a); err != nil {
				return nil, badRequest("the arguments do not fit: %w", err).why(ReasonInvalidArguments)
			}
		}
		return fn(s, ctx, a)
	}
}

// methods is the dispatch table (API.md, "Methods").
var methods map[string]handler

// Methods lists the names Invoke dispatches, sorted: the methods API.md
// documents.
func Methods() []string {
	return slices.Sorted(maps.Keys(methods))
}

func init() {
	methods = map[string]handler{
		"agents.list":              method((*Services).agentsList),
		"agents.check":             method((*Services).agentsCheck),
		"agents.saveCustom":        method((*Services).agentsSaveCustom),
		"agents.removeCustom":      method((*Services).agentsRemoveCustom),
		"sessions.list":            method((*Services).sessionsList),
		"sessions.create":          method((*Services).sessionsCreate),
		"sessions.open":            method((*Services).sessionsOpen),
		"sessions.prompt":          method((*Services).sessionsPrompt),
		"sessions.image":           method((*Services).sessionsImage),
		"sessions.fork":            method((*Services).sessionsFork),
		"sessions.cancel":          method((*Services).sessionsCancel),
		"sessions.killTerminal":    method((*Services).sessionsKillTerminal),
		"sessions.rename":          method((*Services).sessionsRename),
		"sessions.delete":          method((*Services).sessionsDelete),
		"sessions.restore":         method((*Services).sessionsRestore),
		"sessions.trash":           method((*Services).sessionsTrash),
		"sessions.purge":           method((*Services).sessionsPurge),
		"sessions.search":          method((*Services).sessionsSearch),
		"sessions.setMode":         method((*Services).sessionsSetMode),
		"sessions.setConfigOption": method((*Services).sessionsSetConfigOption),
		"sessions.setModel":        method((*Services).sessionsSetModel),
		"workspace.get":            method((*Services).workspaceGet),
		"workspace.open":           method((*Services).workspaceOpen),
		"workspace.pick":           method((*Services).workspacePick),
		"workspace.tree":           method((*Services).workspaceTree),
		"workspace.find":           method((*Services).workspaceFind),
		"notes.status":             method((*Services).notesStatus),
		"notes.search":             method((*Services).notesSearch),
		"notes.headings":           method((*Services).notesHeadings),
		"notes.tags":               method((*Services).notesTags),
		"notes.titles":             method((*Services).notesTitles),
		"notes.backlinks":          method((*Services).notesBacklinks),
		"notes.links":              method((*Services).notesLinks),
		"notes.unresolved":         method((*Services).notesUnresolved),
		"notes.outline":            method((*Services).notesOutline),
		"notes.read":               method((*Services).notesRead),
		"notes.resolve":            method((*Services).notesResolve),
		"notes.updateLinks":        method((*Services).notesUpdateLinks),
		"notes.undoUpdateLinks":    method((*Services).notesUndoUpdateLinks),
		"files.open":               method((*Services).filesOpen),
		"files.update":             method((*Services).filesUpdate),
		"files.save":               method((*Services).filesSave),
		"files.close":              method((*Services).filesClose),
		"files.diff":               method((*Services).filesDiff),
		"files.resolve":            method((*Services).filesResolve),
		"files.create":             method((*Services).filesCreate),
		"files.rename":             method((*Services).filesRename),
		"files.delete":             method((*Services).filesDelete),
		"files.restore":            method((*Services).filesRestore),
		"files.attach":             method((*Services).filesAttach),
		"files.image":              method((*Services).filesImage),
		"files.openInApp":          method((*Services).filesOpenInApp),
		"checkpoints.list":         method((*Services).checkpointsList),
		"checkpoints.changes":      method((*Services).checkpointsChanges),
		"checkpoints.revert":       method((*Services).checkpointsRevert),
		"checkpoints.undoRevert":   method((*Services).checkpointsUndoRevert),
		"checkpoints.hunks":        method((*Services).checkpointsHunks),
		"checkpoints.review":       method((*Services).checkpointsReview),
		"sessions.export":          method((*Services).sessionsExport),
		"sync.status":              method((*Services).syncStatus),
		"sync.configure":           method((*Services).syncConfigure),
		"sync.enable":              method((*Services).syncEnable),
		"sync.allowTitles":         method((*Services).syncAllowTitles),
		"sync.now":                 method((*Services).syncNow),
		"sync.removeMyData":        method((*Services).syncRemoveMyData),
		"shares.publish":           method((*Services).sharesPublish),
		"shares.list":              method((*Services).sharesList),
		"shares.revoke":            method((*Services).sharesRevoke),
		"agents.running":           method((*Services).agentsRunning),
		"agents.setKey":            method((*Services).agentsSetKey),
		"agents.setNotesTools":     method((*Services).agentsSetNotesTools),
		"agents.openTerminal":      method((*Services).agentsOpenTerminal),
		"agents.authenticate":      method((*Services).agentsAuthenticate),
		"agents.logout":            method((*Services).agentsLogout),
		"agents.install":           method((*Services).agentsInstall),
		"agents.cancelInstall":     method((*Services).agentsCancelInstall),
		"agents.registry":          method((*Services).agentsRegistry),
		"agents.registryIcon":      method((*Services).agentsRegistryIcon),
		"agents.registryInstall":   method((*Services).agentsRegistryInstall),
		"agents.cancelStart":       method((*Services).agentsCancelStart),
		"sessions.switchAgent":     method((*Services).sessionsSwitchAgent),
		"sessions.close":           method((*Services).sessionsClose),
		"permissions.decide":       method((*Services).permissionsDecide),
		"elicitations.answer":      method((*Services).elicitationsAnswer),
		"agents.listSessions":      method((*Services).agentsListSessions),
		"sessions.import":          method((*Services).sessionsImport),
		"permissions.rules":        method((*Services).permissionsRules),
		"permissions.revoke":       method((*Services).permissionsRevoke),
		"shared.state":             sharedMethod((*shared.Service).GetState),
		"shared.close":             sharedMethod((*shared.Service).Close),
		"shared.sessions":          sharedMethod((*shared.Service).SharedSessions),
		"shared.share":             sharedMethod((*shared.Service).Share),
		"shared.members":           sharedMethod((*shared.Service).Members),
		"shared.add":               sharedMethod((*shared.Service).SetRole),
		"shared.setRole":           sharedMethod((*shared.Service).SetRole),
		"shared.remove":            sharedMethod((*shared.Service).Remove),
		"shared.comment":           sharedMethod((*shared.Service).Comment),
		"shared.devices":           sharedMethod((*shared.Service).Devices),
		"shared.pair":              sharedMethod((*shared.Service).Pair),
		"shared.join":              sharedMethod((*shared.Service).Join),
		"shared.pairConfirm":       sharedMethod((*shared.Service).PairConfirm),
		"shared.removeDevice":      sharedMethod((*shared.Service).RemoveDevice),
		"shared.safetyNumber":      sharedMethod((*shared.Service).SafetyNumber),
		"shared.acceptKeys":        sharedMethod((*shared.Service).AcceptKeys),
	}
}

// Invoke runs one method. args is the JSON object of its arguments (empty
// or null means none). A result of nil is answered {}.
func (s *Services) Invoke(ctx context.Context, name string, args json.RawMessage) (res any, e *Error) {
	h, ok := methods[name]
	if !ok {
		return nil, badRequest("there is no method %q", name).why(ReasonUnknownMethod, "method", name)
	}
	s.mu.Lock()
	down := s.shutdown
	s.mu.Unlock()
	if down {
		return nil, shutdownError()
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("bridge method panicked", "method", name, "panic", r, "stack", string(debug.Stack()))
			res, e = nil, (&Error{Code: CodeInternal, Message: fmt.Sprintf("%s failed unexpectedly: %v", name, r)}).why(ReasonUnexpected, "method", name)
		}
	}()
	res, e = h(s, ctx, args)
	if e != nil {
		if e.Code == CodeInternal || e.Code == CodeWriteFailed {
			s.log.Error("bridge method failed", "method", name, "err", e.Message)
		} else {
			s.log.Debug("bridge method failed", "method", name, "code", e.Code, "err", e.Message)
		}
		return nil, e
	}
	if res == nil {
		res = struct{}{}
	}
	return res, nil
}

// Shutdown closes every live session (pending permission requests are
// answered cancelled, running turns cancelled, agents stopped gracefully)
// and closes the index. Later calls fail. Calling it twice is harmless.
func (s *Services) Shutdown() {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return
	}
	s.shutdown = true
	s.endLife() // calls in flight from the window see their context end
	lives := make([]*liveSession, 0, len(s.live))
	for _, l := range s.live {
		lives = append(lives, l)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range lives {
		wg.Go(func() { s.closeLive(l) })
	}
	wg.Wait()
	s.turns.Wait()
	if s.shared != nil {
		s.shared.StopAll()
	}
	s.pool.close()
	if s.mcp != nil {
		if err := s.mcp.Close(); err != nil {
			s.log.Debug("closing the notes tools' socket", "err", err)
		}
	}
	s.ws.closeAll()
	if s.sync != nil {
		if err := s.sync.Close(); err != nil {
			s.log.Warn("closing sync", "err", err)
		}
	}
	if err := s.ix.Close(); err != nil {
		s.log.Warn("closing the index", "err", err)
	}
}

// emit sends an event that belongs to no session.
func (s *Services) emit(name string, data any) { s.em.Emit(name, data) }

// errShutdown is returned by operations that raced with Shutdown.
var errShutdown = errors.New("mnote is shutting down")
