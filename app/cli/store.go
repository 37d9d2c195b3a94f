package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"mnote/acp"
	"mnote/app/chat"
	"mnote/store"
	"mnote/thread"
)

// sessionStore is the data folder as the commands use it.
type sessionStore struct {
	paths store.Paths
	ix    *store.Index
	e     *env
}

func (e *env) openStore() (*sessionStore, error) {
	if err := e.paths.Ensure(); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	ctx := context.Background()
	// A migration that re-reads every indexed message says how far it is,
	// at most once a second.
	var last time.Time
	ctx = store.WithProgress(ctx, func(step string, done, total int64) {
		if now := time.Now(); done == total || now.Sub(last) >= time.Second {
			last = now
			e.warn("updating the %s: %d of %d messages", step, done, total)
		}
	})
	ix, err := store.OpenIndex(ctx, e.paths.DB)
	if err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	if r := ix.Recovered(); r != "" {
		e.warn("the session index was unreadable; it was moved to %s and rebuilt from the transcripts", r)
		if err := ix.Rebuild(ctx, e.paths.Transcripts, nil); err != nil {
			ix.Close()
			return nil, err
		}
	} else if _, err := ix.Reconcile(ctx, e.paths.Transcripts); err != nil {
		e.warn("reconciling the index with the transcripts: %v", err)
	}
	return &sessionStore{paths: e.paths, ix: ix, e: e}, nil
}

func (st *sessionStore) Close() error { return st.ix.Close() }

func (st *sessionStore) transcriptPath(id string) string { return st.paths.TranscriptPath(id) }

// priorSession is a recorded session: read for show/export, or opened to
// continue (then w and x are set and hold the transcript).
type priorSession struct {
	id, workspace    string
	runtime, command string
	agentSessionID   string
	turns, bindings  int
	th               *thread.Thread
	info             *store.SessionInfo
	w                *store.Writer
	x                *store.Indexer
}

func (p *priorSession) fill(info *store.SessionInfo) {
	p.info, p.workspace, p.turns, p.bindings = info, info.Workspace, info.Turns, len(info.Bindings)
	if n := len(info.Bindings); n > 0 {
		b := info.Bindings[n-1]
		p.runtime, p.command, p.agentSessionID = b.Runtime, b.Command, b.AgentSessionID
	}
}

// close releases a continued session's transcript when it was not used.
func (p *priorSession) close() {
	if p != nil && p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// resolveID accepts a full session id or a unique prefix of one.
func (st *sessionStore) resolveID(id string) (string, error) {
	if _, err := os.Stat(st.paths.TranscriptPath(id)); err == nil {
		return id, nil
	}
	entries, err := os.ReadDir(st.paths.Transcripts)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", st.paths.Transcripts, err)
	}
	var found []string
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".jsonl")
		if name != e.Name() && strings.HasPrefix(strings.ToLower(name), strings.ToLower(id)) {
			found = append(found, name)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no session %q (see 'mnote sessions')", id)
	default:
		return "", fmt.Errorf("%q matches %d sessions; give more of the id", id, len(found))
	}
}

func (st *sessionStore) loadPrior(id string) (*priorSession, error) {
	id, err := st.resolveID(id)
	if err != nil {
		return nil, err
	}
	th, info, stats, err := store.LoadThread(st.paths.TranscriptPath(id))
	if err != nil {
		return nil, err
	}
	if stats.Corrupt > 0 {
		st.e.warn("session %s: %d corrupt transcript lines were skipped", id, stats.Corrupt)
	}
	p := &priorSession{id: id, th: th}
	p.fill(info)
	return p, nil
}

// continuePrior opens a recorded session to continue it: its transcript
// for appending (locked against other writers, a torn tail repaired) and
// its thread, rebuilt in the same pass that brings its index up to date.
func (st *sessionStore) continuePrior(id string) (*priorSession, error) {
	id, err := st.resolveID(id)
	if err != nil {
		return nil, err
	}
	path := st.paths.TranscriptPath(id)
	w, err := store.OpenTranscript(path, store.WriterOptions{})
	if err != nil {
		return nil, err
	}
	x, err := st.ix.ResumeStreamIndexer(context.Background(), path)
	if err != nil {
		w.Close()
		return nil, err
	}
	x.Share()
	info := x.Info()
	p := &priorSession{id: id, th: x.Thread(), w: w, x: x}
	p.fill(&info)
	return p, nil
}

// openSession opens the transcript (a new one, or the prior session's for
// appending) and makes the chat session around it.
func (st *sessionStore) openSession(prior *priorSession, cwd, title, runtime string, obs chat.Observer, broker acp.PermissionBroker) (*chat.Session, error) {
	cfg := chat.Config{Workspace: cwd, Observer: obs, Broker: broker, Logger: st.e.log}
	if prior != nil {
		cfg.ID, cfg.Recorder, cfg.Indexer = prior.id, prior.w, prior.x
		cfg.Thread, cfg.Turns, cfg.Bindings = prior.th, prior.turns, prior.bindings
		cfg.Workspace = prior.workspace
		if cwd != "" {
			cfg.Workspace = cwd
		}
		prior.w = nil            // the session owns it now
		prior.th.SetForgetDone() // only streamed: see thread.SetForgetDone
		return chat.New(cfg), nil
	}
	id := strings.ToLower(ulid.Make().String())
	if os.Getenv("MNOTE_BENCH_NO_PERSIST") != "" {
		// Benchmarks only (bench/ingest): measure the cost of persistence.
		th := thread.New()
		th.SetForgetDone()
		cfg.ID, cfg.Recorder, cfg.Thread = id, discardRecorder{}, th
		return chat.New(cfg), nil
	}
	path := st.paths.TranscriptPath(id)
	w, err := store.CreateTranscript(path, store.WriterOptions{})
	if err != nil {
		return nil, err
	}
	th := thread.New()
	th.SetForgetDone() // only streamed: see thread.SetForgetDone
	x := st.ix.NewSharedIndexer(id, th)
	x.SetPath(path)
	cfg.ID, cfg.Recorder, cfg.Indexer, cfg.Thread = id, w, x, th
	s := chat.New(cfg)
	if err := s.Start(chat.TitleFromPrompt(title)); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func fmtTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04")
}

// discardRecorder records nothing; see MNOTE_BENCH_NO_PERSIST.
type discardRecorder struct{}

func (discardRecorder) AppendRecord(dir, kind string, data []byte) (store.Record, error) {
	return store.Record{Dir: dir, Kind: kind, Data: data}, nil
}
func (discardRecorder) Sync() error  { return nil }
func (discardRecorder) Close() error { return nil }
