package app

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mnote/app/export"
	"mnote/app/shared"
	"mnote/cloudsync"
	"mnote/controlplane/api"
	"mnote/store"
	"mnote/thread"
)

// Sync, shares and exports from the window (API.md "Sync and exports").
// Sync is off until the user turns it on; with it off, nothing here opens
// a connection (cloudsync's own guarantee, proven in its tests).

// openSync opens the sync client (its outbox only once sync is on).
func (s *Services) openSync() {
	sy, err := cloudsync.Open(cloudsync.Options{
		Paths: s.paths, Logger: s.log, Sessions: s.ix,
		TitleFilter: func(t string) string {
			if r, err := export.TitleRedactor(s.paths); err == nil {
				return r.String(t)
			}
			return ""
		},
	})
	if err != nil {
		// The app works without sync; the settings screen shows why.
		s.log.Warn("sync is unavailable", "err", err)
		s.syncErr = err
		return
	}
	s.sync = sy
}

// enqueueSync queues a session's new metadata (nothing when sync is off).
func (s *Services) enqueueSync(row *store.SessionRow, removedID string) {
	if s.sync == nil {
		return
	}
	if id := removedID; row != nil || id != "" {
		if row != nil {
			id = row.ID
		}
		if s.shared != nil && s.shared.OwnedElsewhere(id) {
			return // a session another account shared with this one: its record is theirs
		}
	}
	var err error
	if row != nil {
		err = s.sync.Enqueue(context.Background(), cloudsync.MetaFromRow(*row))
	} else {
		err = s.sync.EnqueueDelete(context.Background(), removedID)
	}
	if err != nil {
		s.log.Warn("session not queued for sync", "err", err)
	}
}

// syncError classifies a failure of sync or shares. The control plane's
// answers keep their meaning: 401/403 is CodeSyncAuth (the sync token,
// not `mnote serve`'s), 5xx, 429 and a control plane that cannot be
// reached are CodeUnavailable, 404 is not_found, other 4xx bad_request;
// sync off or not set up and a bad URL are bad_request; anything else
// (the outbox, a file) goes through errorFrom. The message carries the
// next step (cloudsync adds it: "check the URL in Settings", "set a new
// token in Settings").
func syncError(what string, err error) *Error {
	if err == nil {
		return nil
	}
	var (
		ae *api.Error
		ue *url.Error
	)
	code, reason := "", ""
	var kv []string
	switch {
	case errors.As(err, &ae):
		kv = []string{"status", strconv.Itoa(ae.Status)}
		switch {
		case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
			code, reason = CodeSyncAuth, ReasonSyncTokenRefused
		case ae.Status == http.StatusTooManyRequests:
			code, reason = CodeUnavailable, ReasonSyncRateLimited
		case ae.Status >= 500:
			code, reason = CodeUnavailable, ReasonSyncServerFailed
		case ae.Status == http.StatusNotFound:
			code, reason = CodeNotFound, ReasonSyncNotFound
		default:
			code, reason = CodeBadRequest, ReasonSyncRefused
		}
	case errors.Is(err, cloudsync.ErrRateLimited):
		code, reason = CodeUnavailable, ReasonSyncRateLimited
	case errors.As(err, &ue):
		code, reason = CodeUnavailable, ReasonSyncUnreachable
	case errors.Is(err, cloudsync.ErrDisabled):
		code, reason = CodeBadRequest, ReasonSyncDisabled
	case errors.Is(err, cloudsync.ErrNotConfigured):
		code, reason = CodeBadRequest, ReasonSyncNotConfigured
	case errors.Is(err, cloudsync.ErrBadURL):
		code, reason = CodeBadRequest, ReasonSyncBadURL
	default:
		return errorFrom(what, err)
	}
	if what != "" {
		return newError(code, "%s: %w", what, err).why(reason, kv...)
	}
	return newError(code, "%w", err).why(reason, kv...)
}

func (s *Services) syncer() (*cloudsync.Syncer, *Error) {
	if s.sync == nil {
		msg := "sync is unavailable"
		if s.syncErr != nil {
			msg += ": " + s.syncErr.Error()
		}
		return nil, &Error{Code: CodeInternal, Reason: ReasonSyncUnavailable, Message: msg}
	}
	return s.sync, nil
}

func (s *Services) syncStatus(ctx context.Context, _ struct{}) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	st, err := sy.Status(ctx)
	if err != nil {
		return nil, syncError("sync status", err)
	}
	return st, nil
}

type syncConfigArgs struct {
	URL         string  `json:"url"`
	Token       *string `json:"token"` // nil keeps the saved one
	AllowTitles bool    `json:"allowTitles"`
}

func (s *Services) syncConfigure(ctx context.Context, a syncConfigArgs) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	if err := sy.Configure(ctx, a.URL, a.Token, a.AllowTitles); err != nil {
		return nil, syncError("", err)
	}
	return s.syncStatus(ctx, struct{}{})
}

type enableArgs struct {
	On bool `json:"on"`
}

func (s *Services) syncEnable(ctx context.Context, a enableArgs) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	var err error
	if a.On {
		err = sy.Enable(ctx)
	} else {
		err = sy.Disable()
	}
	if err != nil {
		return nil, syncError("", err)
	}
	return s.syncStatus(ctx, struct{}{})
}

type allowTitlesArgs struct {
	Allow bool `json:"allow"`
}

func (s *Services) syncAllowTitles(ctx context.Context, a allowTitlesArgs) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	if err := sy.SetAllowTitles(ctx, a.Allow); err != nil {
		return nil, syncError("sync titles", err)
	}
	return s.syncStatus(ctx, struct{}{})
}

func (s *Services) syncNow(ctx context.Context, _ struct{}) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	if err := sy.SyncNow(ctx); err != nil {
		return nil, syncError("", err)
	}
	return s.syncStatus(ctx, struct{}{})
}

func (s *Services) syncRemoveMyData(ctx context.Context, _ struct{}) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	r, err := sy.RemoveMyData(ctx)
	if err != nil {
		return nil, syncError("", err)
	}
	return r, nil
}

// ---- exports and shares -----------------------------------------------------------

type exportArgs struct {
	ID              string `json:"id"`
	Format          string `json:"format"`
	Redact          *bool  `json:"redact"`       // default: on for md and html, off for jsonl
	RedactEmails    *bool  `json:"redactEmails"` // with redact; default off
	IncludeThoughts bool   `json:"includeThoughts"`
	IncludeToolIO   bool   `json:"includeToolIO"`
	Locale          string `json:"locale"` // the export's words: "en" (default) or "zh-CN"
	Images          bool   `json:"images"` // md, html: the user's images (images.go)
	StrictBreaks    bool   `json:"strictBreaks"`
}

// Exported is an export's file (sessions.export).
type Exported struct {
	Filename string `json:"filename"`
	Mime     string `json:"mime"`
	Content  string `json:"content"`
	// Path is where the window saved it (a save dialog); Content is then
	// empty. "" with empty Content: the dialog was cancelled.
	Path string `json:"path,omitempty"`
}

func (s *Services) sessionsExport(ctx context.Context, a exportArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	mime := map[string]string{export.FormatMarkdown: "text/markdown", export.FormatHTML: "text/html", export.FormatJSONL: "application/x-ndjson"}[a.Format]
	if mime == "" {
		return nil, badRequest("format must be md, html or jsonl, not %q", a.Format)
	}
	redact := a.Format != export.FormatJSONL
	if a.Redact != nil {
		redact = *a.Redact
	}
	var buf bytes.Buffer
	if e := s.export(ctx, &buf, a, redact); e != nil {
		return nil, e
	}
	out := Exported{Filename: s.exportFilename(ctx, a.ID, a.Format, redact), Mime: mime}
	if s.cfg.SaveFile != nil {
		path, err := s.cfg.SaveFile(ctx, a.Locale, s.exportDir(ctx, a.ID), out.Filename)
		if err != nil {
			return nil, errorFrom("save dialog", err)
		}
		if path != "" {
			if err := writeFileAtomic(path, buf.Bytes()); err != nil {
				return nil, newError(CodeWriteFailed, "save the export: %w", err).why(ReasonExportNotSaved, "path", path)
			}
		}
		out.Path = path
		return out, nil
	}
	out.Content = buf.String()
	return out, nil
}

// export writes one session: the transcript itself for jsonl (redacted
// line by line when asked), else the thread rendered.
func (s *Services) export(ctx context.Context, w *bytes.Buffer, a exportArgs, redact bool) *Error {
	id, format, emails := a.ID, a.Format, a.RedactEmails
	sess, snap, e := s.exportSource(ctx, id)
	if e != nil {
		return e
	}
	o := export.Options{Redact: redact, RedactEmails: emails, IncludeThoughts: a.IncludeThoughts, IncludeToolIO: a.IncludeToolIO,
		Locale: a.Locale, StrictBreaks: a.StrictBreaks}
	if a.Images {
		o.Images, o.Image = true, s.exportImages(ctx, id)
	}
	if redact {
		r, err := export.RedactorFor(s.paths, sess.Workspace)
		if err != nil {
			return newError(CodeBadRequest, "%w", err).why(ReasonRedactionRulesInvalid)
		}
		o.Redactor = r.WithEmails(emails != nil && *emails)
	}
	var err error
	switch format {
	case export.FormatJSONL:
		f, ferr := os.Open(s.paths.TranscriptPath(id))
		if ferr != nil {
			return notFound(id, ferr)
		}
		defer f.Close()
		err = export.JSONL(w, f, o.Redactor)
	case export.FormatHTML:
		err = export.HTML(w, sess, snap, o)
	default:
		err = export.Markdown(w, sess, snap, o)
	}
	if err != nil {
		return errorFrom("export "+id, err)
	}
	return nil
}

// exportSource is a session's description and thread, from the live
// session or its transcript.
func (s *Services) exportSource(ctx context.Context, id string) (export.Session, thread.Snapshot, *Error) {
	sum, e := s.summary(ctx, id)
	if e != nil {
		return export.Session{}, thread.Snapshot{}, e
	}
	var snap thread.Snapshot
	if l := s.liveOf(id); l != nil {
		l.sess.Thread(func(th *thread.Thread) { snap = th.Snapshot() })
	} else {
		th, _, _, err := store.LoadThread(s.paths.TranscriptPath(id))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return export.Session{}, thread.Snapshot{}, notFound(id, err)
			}
			return export.Session{}, thread.Snapshot{}, errorFrom("read session "+id, err)
		}
		snap = th.Snapshot()
	}
	return export.Session{ID: id, Title: sum.Title, Runtime: sum.Agent, Workspace: sum.Workspace,
		CreatedMs: sum.CreatedMs, UpdatedMs: sum.UpdatedMs, Turns: sum.Turns}, snap, nil
}

type publishArgs struct {
	ID              string `json:"id"`
	ExpiresInDays   int    `json:"expiresInDays"` // 0: until revoked
	IncludeThoughts bool   `json:"includeThoughts"`
	IncludeToolIO   bool   `json:"includeToolIO"`
	RedactEmails    *bool  `json:"redactEmails"` // default on
	StrictBreaks    bool   `json:"strictBreaks"`
}

func (s *Services) sharesPublish(ctx context.Context, a publishArgs) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if a.ExpiresInDays < 0 || a.ExpiresInDays > 3650 {
		return nil, badRequest("expiresInDays must be between 0 (never) and 3650")
	}
	sess, snap, e := s.exportSource(ctx, a.ID)
	if e != nil {
		return nil, e
	}
	r, err := export.RedactorFor(s.paths, sess.Workspace)
	if err != nil {
		return nil, newError(CodeBadRequest, "%w", err).why(ReasonRedactionRulesInvalid)
	}
	// A share is always redacted.
	shot, err := export.Share(sess, snap, export.Options{Redact: true, Redactor: r, RedactEmails: a.RedactEmails,
		IncludeThoughts: a.IncludeThoughts, IncludeToolIO: a.IncludeToolIO, StrictBreaks: a.StrictBreaks})
	if err != nil {
		return nil, errorFrom("prepare the share", err)
	}
	row, err := s.ix.GetSession(ctx, a.ID)
	if err != nil {
		return nil, errorFrom("read session "+a.ID, err)
	}
	var expires time.Time
	if a.ExpiresInDays > 0 {
		expires = time.Now().Add(time.Duration(a.ExpiresInDays) * 24 * time.Hour)
	}
	sh, err := sy.Publish(ctx, shot, cloudsync.MetaFromRow(row), expires)
	if err != nil {
		return nil, syncError("", err)
	}
	return sh, nil
}

func (s *Services) sharesList(ctx context.Context, _ struct{}) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	list, err := sy.Shares(ctx)
	if err != nil {
		return nil, syncError("", err)
	}
	return list, nil
}

func (s *Services) sharesRevoke(ctx context.Context, a idArgs) (any, *Error) {
	sy, e := s.syncer()
	if e != nil {
		return nil, e
	}
	if strings.TrimSpace(a.ID) == "" {
		return nil, badRequest("which share?")
	}
	if err := sy.Unshare(ctx, a.ID); err != nil {
		return nil, syncError("", err)
	}
	return nil, nil
}

// ---- shared sessions (package app/shared) -------------------------------------

// openShared makes the window's side of shared sessions; its methods
// need sync on (the control plane, its token, the account).
func (s *Services) openShared() {
	s.shared = shared.New(shared.Config{
		Dir: filepath.Join(filepath.Dir(s.paths.ConfigFile), "collab"),
		API: func() (*api.Client, error) {
			if s.sync == nil {
				return nil, cloudsync.ErrDisabled
			}
			return s.sync.Client()
		},
		Transcript: s.paths.TranscriptPath,
		Record:     s.recordShared,
		Adopted: func(ctx context.Context, id string) {
			if err := s.ix.ReindexFile(ctx, s.paths.TranscriptPath(id)); err != nil {
				s.log.Warn("shared session not indexed", "session", id, "err", err)
			}
			s.emitChanged(id)
		},
		Workspace: func() string {
			if w := s.ws.get(); w != nil {
				return w.Dir()
			}
			return ""
		},
		Clean: func() (func(string) string, error) {
			ws := ""
			if w := s.ws.get(); w != nil {
				ws = w.Dir()
			}
			r, err := export.RedactorFor(s.paths, ws)
			if err != nil {
				return nil, err
			}
			return r.String, nil
		},
		SendSession: func(ctx context.Context, id string) error {
			row, err := s.ix.GetSession(ctx, id)
			if err != nil {
				return err
			}
			return s.sync.SendSession(ctx, cloudsync.MetaFromRow(row))
		},
		Reason: func(err error) (string, map[string]string) {
			e := syncError("", err)
			return e.Reason, e.Params
		},
		Emit:   s.emit,
		Logger: s.log,
	})
}

// recordShared runs fn on the session's transcript: the live session's
// writer while it is open, else the file opened for it.
func (s *Services) recordShared(id string, fn func(w *store.Writer) error) error {
	if l := s.liveOf(id); l != nil && l.rec != nil {
		return fn(l.rec)
	}
	w, err := store.OpenTranscript(s.paths.TranscriptPath(id), store.WriterOptions{})
	if err != nil {
		return err
	}
	if err := fn(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// sharedMethod adapts a method of the shared sessions.
func sharedMethod[A any](fn func(*shared.Service, context.Context, A) (any, error)) handler {
	return method(func(s *Services, ctx context.Context, a A) (any, *Error) {
		res, err := fn(s.shared, ctx, a)
		if err != nil {
			return nil, sharedError(err)
		}
		return res, nil
	})
}

// sharedError classifies a failure of a shared session: its own refusals
// (a role, an owner, a changed key…), else as a sync failure.
func sharedError(err error) *Error {
	if se, ok := shared.Classify(err); ok {
		e := &Error{Code: se.Code, Reason: se.Reason, Message: err.Error(), Params: se.Params, cause: err}
		return e
	}
	return syncError("", err)
}
