package cloudsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"mnote/controlplane/api"
	"mnote/store"
)

// Errors callers test for.
var (
	// ErrDisabled: sync is off, so nothing is sent.
	ErrDisabled = errors.New("sync is off; turn it on in Settings (or with 'mnote sync on')")
	// ErrNotConfigured: no control plane URL or token yet.
	ErrNotConfigured = errors.New("sync is not set up; give the control plane's URL and your token in Settings (or with 'mnote sync set --url URL --token-stdin')")
	// ErrRateLimited: the control plane's Retry-After has not passed yet
	// (errors.Is matches the error SyncNow returns then).
	ErrRateLimited = errors.New("the control plane asked to wait (rate limited)")
)

// SessionLister lists the local sessions (a *store.Index), for sending
// every session's record when sync is turned on or titles are allowed.
type SessionLister interface {
	ListSessions(ctx context.Context, opt store.ListOptions) ([]store.SessionRow, error)
}

// Options configure a Syncer.
type Options struct {
	// Paths locate the settings (beside config.json) and the outbox
	// (<data>/sync.db).
	Paths  store.Paths
	Logger *slog.Logger
	// HTTP sends the requests; nil means a client with a 30 s timeout on a
	// transport of its own (closed when sync is turned off).
	HTTP *http.Client
	// Sessions, when set, lets Enable and SetAllowTitles queue the record
	// of every local session.
	Sessions SessionLister
	// TitleFilter, when set, redacts titles further before they are sent
	// (the app passes its export redactor's String).
	TitleFilter func(string) string
	// Backoff is the retry schedule after failures (zero: DefaultBackoff).
	Backoff Backoff
	// Now and Rand are the clock and the jitter source (tests).
	Now  func() time.Time
	Rand func() float64
	// Manual runs no worker: records are sent only by SyncNow, on the
	// caller's goroutine (for one-shot commands such as `mnote sync
	// status`, which must not start sending on their own).
	Manual bool
}

// Status is what the settings screen and `mnote sync status` show.
type Status struct {
	Enabled     bool      `json:"enabled"`
	Configured  bool      `json:"configured"` // a URL and a token are set
	URL         string    `json:"url,omitempty"`
	AllowTitles bool      `json:"allowTitles"`
	LastSync    time.Time `json:"lastSync,omitzero"` // the last time a record was acknowledged
	Pending     int       `json:"pending"`           // records waiting to be sent
	// Parked counts the records the control plane refused for good (a
	// 400, say); ParkedRecords are the newest of them (up to
	// maxParkedShown), each with the refusal. They wait until their
	// session changes again or the URL or token changes.
	Parked        int      `json:"parked"`
	ParkedRecords []Parked `json:"parkedRecords,omitempty"`
	LastError     string   `json:"lastError,omitempty"`
	// NextAttempt is when the worker tries again after failures or a
	// rate limit (zero: as soon as there is something to send).
	NextAttempt time.Time `json:"nextAttempt,omitzero"`
}

// maxParkedShown is how many parked records Status lists.
const maxParkedShown = 20

// Syncer is the desktop side of sync: settings, the outbox and the worker
// that empties it. It is safe for concurrent use.
//
// While sync is off (the default) a Syncer opens no connection and starts
// no goroutine; Enqueue does nothing. Turning it off stops the worker and
// cancels a request in flight before Disable returns.
type Syncer struct {
	opt   Options
	files files
	log   *slog.Logger
	http  *http.Client
	now   func() time.Time
	rand  func() float64

	passMu sync.Mutex // one pass at a time in Manual mode

	mu       sync.Mutex
	settings Settings
	token    string
	salt     []byte // the workspace id salt, read when first needed
	ob       *outbox
	w        *worker
	closed   bool
}

// Open reads the sync settings and, when sync is on, opens the outbox and
// starts the worker.
func Open(opt Options) (*Syncer, error) {
	s := &Syncer{opt: opt, files: filesFor(opt.Paths), log: opt.Logger, http: opt.HTTP, now: opt.Now, rand: opt.Rand}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = randFloat
	}
	if s.opt.Backoff == (Backoff{}) {
		s.opt.Backoff = DefaultBackoff
	}
	if s.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		s.http = &http.Client{Transport: tr, Timeout: 30 * time.Second}
	}
	var err error
	if s.settings, s.token, err = s.files.load(); err != nil {
		return nil, err
	}
	if s.settings.Enabled {
		if s.settings.URL == "" || s.token == "" {
			s.log.Warn("sync is on but not set up; it stays off until 'mnote sync set' is run")
			return s, nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.startLocked(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Close stops the worker and closes the outbox.
func (s *Syncer) Close() error {
	s.mu.Lock()
	w := s.w
	s.w, s.closed = nil, true
	ob := s.ob
	s.ob = nil
	s.mu.Unlock()
	w.stop()
	s.closeIdle()
	if ob != nil {
		return ob.Close()
	}
	return nil
}

// Settings returns the current settings.
func (s *Syncer) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// outboxPath is <data>/sync.db.
func (s *Syncer) outboxPath() string { return filepath.Join(s.opt.Paths.DataDir, "sync.db") }

// outboxLocked opens the outbox if it is not open yet.
func (s *Syncer) outboxLocked() (*outbox, error) {
	if s.closed {
		return nil, errors.New("sync: closed")
	}
	if s.ob == nil {
		ob, err := openOutbox(context.Background(), s.outboxPath())
		if err != nil {
			return nil, err
		}
		s.ob = ob
	}
	return s.ob, nil
}

// startLocked opens the outbox and starts the worker.
func (s *Syncer) startLocked() error {
	if s.closed {
		return errors.New("sync: closed")
	}
	if _, err := s.outboxLocked(); err != nil {
		return err
	}
	if s.w == nil && !s.opt.Manual {
		s.w = s.startWorker()
	}
	return nil
}

// client is the API client for the current settings.
func (s *Syncer) clientLocked() (*api.Client, error) {
	if s.settings.URL == "" || s.token == "" {
		return nil, ErrNotConfigured
	}
	return &api.Client{BaseURL: s.settings.URL, Token: s.token, HTTP: s.http}, nil
}

// closeIdle drops the kept-alive connections, so that nothing of sync
// stays connected once it is off.
func (s *Syncer) closeIdle() { s.http.CloseIdleConnections() }

// Configure sets the control plane URL, the token (nil keeps the current
// one) and whether titles are synced. Changing the URL or the token
// forgets what was sent (the new control plane or account has none of it;
// waiting records stay) and, when sync is on, queues every session again.
func (s *Syncer) Configure(ctx context.Context, rawURL string, token *string, allowTitles bool) error {
	u, err := CheckURL(rawURL)
	if err != nil {
		return err
	}
	s.mu.Lock()
	changed := u != s.settings.URL || token != nil && *token != s.token
	titles := allowTitles != s.settings.AllowTitles
	next := s.settings
	next.URL, next.AllowTitles = u, allowTitles
	if token != nil {
		if err := s.files.saveToken(*token); err != nil {
			s.mu.Unlock()
			return err
		}
		s.token = *token
	}
	if err := s.files.saveSettings(next); err != nil {
		s.mu.Unlock()
		return err
	}
	s.settings = next
	enabled := next.Enabled
	if enabled && s.token != "" {
		if err := s.startLocked(); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	var ob *outbox
	if changed {
		if _, statErr := os.Stat(s.outboxPath()); s.ob != nil || statErr == nil {
			if ob, err = s.outboxLocked(); err != nil {
				s.mu.Unlock()
				return err
			}
		}
	}
	w := s.w
	s.mu.Unlock()
	if ob != nil {
		if err := ob.forget(ctx); err != nil {
			return err
		}
	}
	if enabled && (changed || titles) {
		err = s.Backfill(ctx)
	}
	w.wake()
	return err
}

// SetAllowTitles turns the syncing of titles on or off; when sync is on,
// every record is queued again (with or without its title).
func (s *Syncer) SetAllowTitles(ctx context.Context, allow bool) error {
	s.mu.Lock()
	if s.settings.AllowTitles == allow {
		s.mu.Unlock()
		return nil
	}
	next := s.settings
	next.AllowTitles = allow
	if err := s.files.saveSettings(next); err != nil {
		s.mu.Unlock()
		return err
	}
	s.settings = next
	s.mu.Unlock()
	if next.Enabled {
		return s.Backfill(ctx)
	}
	return nil
}

// Enable turns sync on: the setting is saved, the worker starts, and the
// record of every local session is queued (with Options.Sessions).
func (s *Syncer) Enable(ctx context.Context) error {
	s.mu.Lock()
	if s.settings.URL == "" || s.token == "" {
		s.mu.Unlock()
		return ErrNotConfigured
	}
	next := s.settings
	next.Enabled = true
	if err := s.files.saveSettings(next); err != nil {
		s.mu.Unlock()
		return err
	}
	s.settings = next
	err := s.startLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.log.Info("sync turned on", "host", hostOf(next.URL))
	return s.Backfill(ctx)
}

// Disable turns sync off at once: the worker stops and a request in
// flight is cancelled before it returns; nothing more is sent. Queued
// records stay in the outbox for when sync is turned on again.
func (s *Syncer) Disable() error {
	s.mu.Lock()
	w := s.w
	s.w = nil
	next := s.settings
	next.Enabled = false
	s.settings = next
	err := s.files.saveSettings(next)
	s.mu.Unlock()
	w.stop()
	s.closeIdle()
	s.log.Info("sync turned off")
	return err
}

// Backfill queues the record of every local session (Options.Sessions);
// records the control plane already has are skipped.
func (s *Syncer) Backfill(ctx context.Context) error {
	if s.opt.Sessions == nil {
		return nil
	}
	rows, err := s.opt.Sessions.ListSessions(ctx, store.ListOptions{Limit: 1 << 30})
	if err != nil {
		return fmt.Errorf("sync: list the local sessions: %w", err)
	}
	var errs []error
	for _, r := range rows {
		if err := s.Enqueue(ctx, MetaFromRow(r)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Enqueue queues a session's record, if sync is on and it changed since
// it was last queued or sent. Only the latest change of a session waits;
// the worker is woken. With sync off it does nothing.
func (s *Syncer) Enqueue(ctx context.Context, m SessionMeta) error {
	s.mu.Lock()
	enabled, allow, ob, w := s.settings.Enabled, s.settings.AllowTitles, s.ob, s.w
	if !enabled || ob == nil {
		s.mu.Unlock()
		return nil
	}
	salt, err := s.saltLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	rec, err := m.record(salt, allow, s.opt.TitleFilter)
	if err != nil {
		return err
	}
	queued, err := ob.put(ctx, rec, m.UpdatedMs, s.now().UnixMilli())
	if err != nil {
		return err
	}
	if queued {
		w.wake()
	}
	return nil
}

// saltLocked is the workspace id salt, made on first use (only once sync
// is on: while it is off nothing is written).
func (s *Syncer) saltLocked() ([]byte, error) {
	if s.salt == nil {
		salt, err := s.files.loadSalt()
		if err != nil {
			return nil, err
		}
		s.salt = salt
	}
	return s.salt, nil
}

// EnqueueDelete queues the deletion of a session's record (the session
// was deleted here), if sync is on and the record was ever queued.
func (s *Syncer) EnqueueDelete(ctx context.Context, id string) error {
	s.mu.Lock()
	enabled, ob, w := s.settings.Enabled, s.ob, s.w
	s.mu.Unlock()
	if !enabled || ob == nil || !validID(id) {
		return nil
	}
	queued, err := ob.del(ctx, id, s.now().UnixMilli())
	if queued {
		w.wake()
	}
	return err
}

// SyncNow sends everything waiting now, without waiting for the backoff
// after failures (a server's Retry-After is still honoured), and returns
// the first failure.
func (s *Syncer) SyncNow(ctx context.Context) error {
	s.mu.Lock()
	w, on, enabled := s.w, s.onLocked(), s.settings.Enabled
	s.mu.Unlock()
	switch {
	case !enabled:
		return ErrDisabled
	case !on:
		return ErrNotConfigured
	case w != nil:
		return w.syncNow(ctx)
	}
	s.passMu.Lock() // Manual
	defer s.passMu.Unlock()
	return s.pass(ctx, true)
}

// onLocked reports whether sync is on and can run.
func (s *Syncer) onLocked() bool {
	return s.settings.Enabled && s.settings.URL != "" && s.token != "" && s.ob != nil
}

// Status reports the settings and the outbox. With sync off it opens no
// connection (and creates no outbox file).
func (s *Syncer) Status(ctx context.Context) (Status, error) {
	s.mu.Lock()
	st := Status{Enabled: s.onLocked(), Configured: s.settings.URL != "" && s.token != "",
		URL: s.settings.URL, AllowTitles: s.settings.AllowTitles}
	ob := s.ob
	if ob == nil {
		if _, err := os.Stat(s.outboxPath()); err == nil {
			var oerr error
			if ob, oerr = s.outboxLocked(); oerr != nil {
				s.mu.Unlock()
				return st, oerr
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			s.mu.Unlock()
			return st, fmt.Errorf("sync outbox: %w", err)
		}
	}
	s.mu.Unlock()
	if ob == nil {
		return st, nil
	}
	var err error
	if st.Pending, err = ob.pending(ctx); err != nil {
		return st, err
	}
	if st.ParkedRecords, st.Parked, err = ob.parkedRows(ctx, maxParkedShown); err != nil {
		return st, err
	}
	kv, err := ob.getState(ctx)
	if err != nil {
		return st, err
	}
	if ms := stateInt(kv, stLastSync); ms > 0 {
		st.LastSync = time.UnixMilli(ms)
	}
	st.LastError = kv[stLastError]
	if ms := max(stateInt(kv, stRetryAt), stateInt(kv, stRateLimitEnd)); ms > s.now().UnixMilli() && st.Pending > 0 {
		st.NextAttempt = time.UnixMilli(ms)
	}
	return st, nil
}

// Removed counts what RemoveMyData deleted on the control plane.
type Removed struct {
	Sessions int `json:"sessions"`
	Shares   int `json:"shares"`
}

// RemoveMyData deletes every record and share of this account on the
// control plane, then forgets the local sync state (outbox, what was
// sent). Sync is turned off first, so nothing is sent again; the URL and
// token are kept. On a failure part way, what was deleted is reported,
// the local state is kept and running it again finishes the job.
func (s *Syncer) RemoveMyData(ctx context.Context) (Removed, error) {
	var done Removed
	s.mu.Lock()
	c, err := s.clientLocked()
	if err != nil {
		s.mu.Unlock()
		return done, err
	}
	s.mu.Unlock()
	if err := s.Disable(); err != nil {
		return done, err
	}
	shares, err := c.ListShares(ctx)
	if err != nil {
		return done, fmt.Errorf("remove my data: list shares: %w", explain(err))
	}
	for _, sh := range shares {
		if err := c.DeleteShare(ctx, sh.ID); err != nil && !api.IsNotFound(err) {
			return done, fmt.Errorf("remove my data: delete share %s: %w", sh.ID, explain(err))
		}
		done.Shares++
	}
	deleted := map[string]bool{}
	for {
		page, err := c.ListSessions(ctx, 1000, "")
		if err != nil {
			return done, fmt.Errorf("remove my data: list sessions: %w", explain(err))
		}
		if len(page.Sessions) == 0 {
			break
		}
		progress := false
		for _, rec := range page.Sessions {
			if deleted[rec.ID] {
				continue
			}
			if err := c.DeleteSession(ctx, rec.ID); err != nil && !api.IsNotFound(err) {
				return done, fmt.Errorf("remove my data: delete session %s: %w", rec.ID, explain(err))
			}
			deleted[rec.ID], progress = true, true
			done.Sessions++
		}
		if !progress {
			return done, errors.New("remove my data: the control plane still lists deleted sessions; try again later")
		}
	}
	s.mu.Lock()
	ob, oerr := s.outboxLocked()
	s.mu.Unlock()
	if oerr != nil {
		return done, oerr
	}
	if err := ob.clear(ctx); err != nil {
		return done, err
	}
	s.log.Info("sync: removed this account's data from the control plane", "sessions", done.Sessions, "shares", done.Shares)
	return done, nil
}

// Me asks the control plane whose token this is (to check the settings).
func (s *Syncer) Me(ctx context.Context) (api.Me, error) {
	s.mu.Lock()
	c, err := s.clientLocked()
	s.mu.Unlock()
	if err != nil {
		return api.Me{}, err
	}
	me, err := c.Me(ctx)
	return me, explain(err)
}

// hostOf is the host of a URL, for logs (never the token).
func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Host
	}
	return ""
}

func msString(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
