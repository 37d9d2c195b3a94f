package shared

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"mnote/collab/client"
	"mnote/collab/keys"
	"mnote/collab/roster"
	"mnote/controlplane/api"
	"mnote/store"
)

// EventName is the event the page gets for everything shared: a
// session's entries, lease, queue and presence, a revoked member, and the
// steps of pairing (API.md "Events").
const EventName = "shared:event"

// Event types (Event.Type).
const (
	EvEntry     = "entry"     // Entry: an entry of the log, with its actor
	EvLease     = "lease"     // Lease, Queue: who runs now, who waits
	EvPresence  = "presence"  // Viewers, Running
	EvQueued    = "queued"    // Position: this machine's prompt waits
	EvGranted   = "granted"   // this machine's prompt runs now
	EvRevoked   = "revoked"   // this account is no longer a member
	EvMembers   = "members"   // the members changed: read them again
	EvReconnect = "reconnect" // the live stream broke and is opened again
	EvPair      = "pair"      // Pair: a step of pairing or joining
	EvRun       = "run"       // Run: this machine's turn sent as a run
)

// RunLink is a run of the shared log that is one of this machine's turns
// (its number in the transcript's thread).
type RunLink struct {
	RunID string `json:"runId"`
	Turn  int    `json:"turn"`
}

// Event is the payload of EventName.
type Event struct {
	SessionID string          `json:"sessionId,omitempty"`
	Type      string          `json:"type"`
	Entry     *Entry          `json:"entry,omitempty"`
	Lease     *api.Lease      `json:"lease,omitempty"`
	Queue     []api.QueuedRun `json:"queue,omitempty"`
	Viewers   []api.Viewer    `json:"viewers,omitempty"`
	Running   string          `json:"running,omitempty"`
	Position  int             `json:"position,omitempty"`
	Pair      *PairStep       `json:"pair,omitempty"`
	Run       *RunLink        `json:"run,omitempty"`
}

// Entry is one entry of a shared session's log as the page shows it.
type Entry = client.Opened

// Config connects the service to the app.
type Config struct {
	// Dir keeps this machine's device key, pins and shared-session state.
	Dir string
	// API is the control plane's client; it fails while sync is off.
	API func() (*api.Client, error)
	// Transcript is a session's transcript path.
	Transcript func(id string) string
	// Record runs fn with the session's transcript open for appending (the
	// live session's writer when it is open).
	Record func(id string, fn func(w *store.Writer) error) error
	// Adopted is told of a transcript made here for a session shared with
	// this account (the app indexes it and tells the page).
	Adopted func(ctx context.Context, id string)
	// Workspace is the folder a member's own agent works in (the open one).
	Workspace func() string
	// Clean is the redactor of what a run sends to the members: the
	// secrets mnote knows and local paths hidden (export.RedactorFor of
	// the folder the agent works in). Nil sends texts as they are.
	Clean func() (func(string) string, error)
	// SendSession sends the session's record to the control plane (Share).
	SendSession func(ctx context.Context, id string) error
	// Reason names a failure that is not this package's (a sync
	// failure) for a pairing event.
	Reason func(err error) (reason string, params map[string]string)
	Emit   func(name string, data any)
	Logger *slog.Logger
}

// Service is the window's shared sessions.
type Service struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	ac      *api.Client
	c       *client.Client
	follows map[string]*follow
	pairing *pairing

	recMu sync.Mutex       // reading a head and appending after it
	heads map[string]int64 // the shared head each transcript holds
	// unopened: whether a transcript holds entries not opened for want
	// of their epoch's key (absent: not read yet); with recMu.
	unopened map[string]bool
}

// New makes the service.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Emit == nil {
		cfg.Emit = func(string, any) {}
	}
	return &Service{cfg: cfg, log: cfg.Logger, follows: map[string]*follow{}, heads: map[string]int64{}, unopened: map[string]bool{}}
}

// client is this machine's engine for the sync account, opened on first
// use and again when the sync settings change.
func (s *Service) client(ctx context.Context) (*client.Client, error) {
	ac, err := s.cfg.API()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.c != nil && s.ac == ac {
		c := s.c
		s.mu.Unlock()
		return c, nil
	}
	s.mu.Unlock()
	c, err := client.Open(ctx, client.Options{Dir: s.cfg.Dir, API: ac, Logger: s.log})
	if err != nil {
		return nil, err
	}
	// The account's first device starts its device list; a later one
	// waits to be paired (Join).
	if _, err := c.Register(ctx); err != nil && !errors.Is(err, client.ErrNotPaired) {
		return nil, err
	}
	s.mu.Lock()
	s.ac, s.c = ac, c
	s.mu.Unlock()
	return c, nil
}

// IsShared says whether the session is shared with members as far as
// this machine knows (no call to the control plane).
func (s *Service) IsShared(id string) bool {
	if client.KnownSession(s.cfg.Dir, id) {
		return true
	}
	recs, err := store.ReadSharedEntries(s.cfg.Transcript(id))
	return err == nil && len(recs) > 0
}

// OwnedElsewhere says whether the session is shared by another account
// (this machine has a transcript of it as a member): its record is that
// account's, not one this machine syncs.
func (s *Service) OwnedElsewhere(id string) bool {
	owner := client.SessionOwner(s.cfg.Dir, id)
	if owner == "" {
		return false
	}
	s.mu.Lock()
	c := s.c
	s.mu.Unlock()
	if c != nil {
		return c.Account() != owner
	}
	d, err := keys.LoadDevice(filepath.Join(s.cfg.Dir, "device.key"))
	return err == nil && d.Public().Account != owner
}

// ---- members -------------------------------------------------------------

// IDArgs name a session.
type IDArgs struct {
	ID string `json:"id"`
}

// MemberArgs name a member of a session and a role.
type MemberArgs struct {
	ID      string `json:"id"`
	Account string `json:"account"`
	Role    string `json:"role,omitempty"`
}

// Members is the result of shared.members.
type Members struct {
	Account string          `json:"account"` // this machine's account
	Owner   string          `json:"owner"`
	Role    string          `json:"role"`
	Members []client.Member `json:"members"`
}

// Members lists the session's members from its verified roster.
func (s *Service) Members(ctx context.Context, a IDArgs) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return s.members(ctx, c, a.ID)
}

func (s *Service) members(ctx context.Context, c *client.Client, id string) (*Members, error) {
	ms, err := c.Members(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &Members{Account: c.Account(), Members: ms}
	if out.Members == nil {
		out.Members = []client.Member{}
	}
	for _, m := range ms {
		if m.Role == string(roster.Owner) {
			out.Owner = m.Account
		}
		if m.Account == c.Account() {
			out.Role = m.Role
		}
	}
	return out, nil
}

// Share turns a session of this account into one shared with members
// (its owner: this account).
func (s *Service) Share(ctx context.Context, a IDArgs) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if s.cfg.SendSession != nil {
		if err := s.cfg.SendSession(ctx, a.ID); err != nil {
			return nil, err
		}
	}
	if err := c.Share(ctx, a.ID); err != nil {
		return nil, err
	}
	return s.members(ctx, c, a.ID)
}

// role checks a role a member may be given.
func role(r string) (roster.Role, error) {
	switch rr := roster.Role(r); rr {
	case roster.Editor, roster.Commenter, roster.Viewer:
		return rr, nil
	}
	return "", fail(CodeBadRequest, ReasonBadRole, fmt.Errorf("role %q: not editor, commenter or viewer", r), "role", r)
}

// ownerClient is the client when this account owns the session.
func (s *Service) ownerClient(ctx context.Context, id string) (*client.Client, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.members(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if ms.Owner != c.Account() {
		return nil, fail(CodeForbidden, ReasonNotOwner, client.ErrNotOwner)
	}
	return c, nil
}

// SetRole adds a member with a role or changes a member's role (owner only).
func (s *Service) SetRole(ctx context.Context, a MemberArgs) (any, error) {
	r, err := role(a.Role)
	if err != nil {
		return nil, err
	}
	account := strings.TrimSpace(a.Account)
	if account == "" {
		return nil, fail(CodeBadRequest, ReasonBadRole, errors.New("which account?"), "role", a.Role)
	}
	c, err := s.ownerClient(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	if err := c.SetMember(ctx, a.ID, account, r); err != nil {
		return nil, err
	}
	s.emit(Event{SessionID: a.ID, Type: EvMembers})
	return s.members(ctx, c, a.ID)
}

// Remove revokes a member (owner only): a new key from now on.
func (s *Service) Remove(ctx context.Context, a MemberArgs) (any, error) {
	c, err := s.ownerClient(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	if err := c.RemoveMember(ctx, a.ID, a.Account); err != nil {
		return nil, err
	}
	s.emit(Event{SessionID: a.ID, Type: EvMembers})
	return s.members(ctx, c, a.ID)
}

// CommentArgs are a comment on a session.
type CommentArgs struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Comment adds a comment to the session's log (a commenter's, or any
// member's who may run turns).
func (s *Service) Comment(ctx context.Context, a CommentArgs) (any, error) {
	if strings.TrimSpace(a.Text) == "" {
		return nil, fail(CodeBadRequest, "prompt_empty", errors.New("the comment is empty"))
	}
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	seq, err := c.Comment(ctx, a.ID, a.Text)
	if err != nil {
		return nil, err
	}
	return map[string]int64{"seq": seq}, nil
}

// ---- a session's state ---------------------------------------------------

// State is what a shared session's tab shows (shared.state).
type State struct {
	Shared  bool            `json:"shared"`
	Account string          `json:"account,omitempty"`
	Device  string          `json:"device,omitempty"`
	Owner   string          `json:"owner,omitempty"`
	Role    string          `json:"role,omitempty"`
	Members []client.Member `json:"members"`
	Entries []Entry         `json:"entries"`
	// Runs are this machine's turns by the run they were sent as: the
	// window shows them from the transcript's full entries.
	Runs map[string]int `json:"runs,omitempty"`
	// Offline: the control plane could not be reached; Entries are what
	// this machine has. Revoked: this account is no longer a member.
	Offline bool   `json:"offline,omitempty"`
	Revoked bool   `json:"revoked,omitempty"`
	Error   string `json:"error,omitempty"`
}

// SharedSessions lists the sessions shared with this account and its role.
func (s *Service) SharedSessions(ctx context.Context, _ struct{}) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	ss, err := c.SharedSessions(ctx)
	if err != nil {
		return nil, err
	}
	if ss == nil {
		ss = []api.SharedSession{}
	}
	return ss, nil
}

// StateArgs name a session; Quiet: record its log here without following
// it (the session list finding the sessions shared with this account: no
// live stream, no presence, until its tab opens).
type StateArgs struct {
	ID    string `json:"id"`
	Quiet bool   `json:"quiet,omitempty"`
}

// GetState brings the session's transcript up to date with its log (a
// member's first time makes the transcript), starts following it, and
// returns what the tab shows. A session that is not shared answers
// Shared false; offline, what this machine has.
func (s *Service) GetState(ctx context.Context, a StateArgs) (any, error) {
	st := &State{Members: []client.Member{}, Entries: []Entry{}}
	path := s.cfg.Transcript(a.ID)
	_, statErr := os.Stat(path)
	local := statErr == nil
	if local && !s.IsShared(a.ID) {
		// Private, as far as this machine knows; ask only when sync is on.
		if _, err := s.cfg.API(); err != nil {
			return st, nil
		}
	}
	c, err := s.client(ctx)
	if err != nil {
		if !local {
			return nil, err
		}
		if s.IsShared(a.ID) {
			st.Shared, st.Offline, st.Error = true, true, err.Error()
			st.Entries, st.Runs, _ = s.localEntries(a.ID)
		}
		return st, nil
	}
	st.Account, st.Device = c.Account(), c.Device().DeviceID
	if !s.IsShared(a.ID) {
		ok, err := c.Shared(ctx, a.ID)
		if err != nil || !ok {
			if !local {
				return nil, fail(CodeNotFound, ReasonNotShared, fmt.Errorf("session %s is not shared with %s", a.ID, c.Account()))
			}
			return st, nil
		}
	}
	st.Shared = true
	if err := s.pull(ctx, c, a.ID); err != nil {
		if errors.Is(err, client.ErrRevoked) || isGone(err) {
			st.Revoked = true
		} else {
			st.Offline, st.Error = true, err.Error()
		}
	}
	if !local {
		if _, err := os.Stat(path); err == nil && s.cfg.Adopted != nil {
			s.cfg.Adopted(ctx, a.ID)
		}
	}
	if !st.Revoked {
		if ms, err := s.members(ctx, c, a.ID); err == nil {
			st.Owner, st.Role, st.Members = ms.Owner, ms.Role, ms.Members
		} else if errors.Is(err, client.ErrRevoked) || isGone(err) {
			st.Revoked = true
		}
	}
	if st.Entries, st.Runs, err = s.localEntries(a.ID); err != nil {
		return nil, err
	}
	if !st.Revoked && !st.Offline && !a.Quiet {
		s.startFollow(a.ID)
	}
	return st, nil
}

func isGone(err error) bool { return api.IsNotFound(err) }

// localEntries are the shared entries the transcript holds, and this
// machine's turns by the run they were sent as.
func (s *Service) localEntries(id string) ([]Entry, map[string]int, error) {
	recs, runs, err := store.ReadShared(s.cfg.Transcript(id))
	if err != nil {
		return nil, nil, err
	}
	out := client.FromRecords(recs)
	if out == nil {
		out = []Entry{}
	}
	return out, runs, nil
}

// Close stops following the session (its tab closed).
func (s *Service) Close(_ context.Context, a IDArgs) (any, error) {
	s.StopFollow(a.ID)
	return struct{}{}, nil
}

func (s *Service) emit(ev Event) { s.cfg.Emit(EventName, ev) }

// mentionNames are the base names of the notes a prompt mentions.
func mentionNames(rels []string) []string {
	var out []string
	for _, r := range rels {
		out = append(out, path.Base(r))
	}
	return out
}
