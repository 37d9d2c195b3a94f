package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"mnote/controlplane/api"
)

// Config configures a Server.
type Config struct {
	Store Store
	// BaseURL prefixes share links (BaseURL + "/s/" + token). Empty: the
	// scheme and Host of the request that creates the share.
	BaseURL string
	// RatePerSecond is each token's sustained request rate, Burst its
	// bucket size (0: the rate rounded up). RatePerSecond <= 0: no limit.
	// On PostgreSQL the limit holds across all the servers on the
	// database; on SQLite (one server) it is kept in memory.
	RatePerSecond float64
	Burst         int
	// FailedAuthPerMinute limits the requests with a missing or bad token
	// per client address (an IPv6 address by its /64): a bucket of that
	// many, refilled at that many a minute; beyond it they answer 429
	// with Retry-After instead of 401. A good token is never refused by
	// it. 0: DefaultFailedAuthPerMinute; < 0: no limit.
	FailedAuthPerMinute int
	// LeaseTTL is how long a shared session's lease lasts unless its
	// holder renews it (0: DefaultLeaseTTL): a member that crashed holds
	// it no longer than that.
	LeaseTTL time.Duration
	// LiveKeepalive is how often a live stream sends a keepalive,
	// refreshes its presence and reads the session again even without
	// a ring (0: DefaultLiveKeepalive).
	LiveKeepalive time.Duration
	Logger        *slog.Logger     // nil: slog.Default()
	Now           func() time.Time // nil: time.Now (tests move the clock)
}

// Server is the control plane's HTTP API and share pages. It keeps no
// state of its own besides the store (and, on SQLite, the rate limiter's
// buckets and the live streams' doorbell).
type Server struct {
	store   Store
	baseURL string
	log     *slog.Logger
	now     func() time.Time
	limit   *limiter
	badAuth *limiter // per client address, failed authentications only
	mux     *http.ServeMux

	hub       *hub // the doorbell of shared sessions' live streams
	leaseTTL  time.Duration
	keepalive time.Duration
	liveDone  chan struct{} // closed by CloseLive
	closeOnce sync.Once
}

// Defaults of Config.
const (
	DefaultLeaseTTL      = 30 * time.Second
	DefaultLiveKeepalive = 15 * time.Second
)

// DefaultFailedAuthPerMinute is Config.FailedAuthPerMinute's default.
const DefaultFailedAuthPerMinute = 30

// NewServer returns the server for cfg.
func NewServer(cfg Config) *Server {
	s := &Server{
		store:   cfg.Store,
		baseURL: strings.TrimSuffix(cfg.BaseURL, "/"),
		log:     cfg.Logger,
		now:     cfg.Now,
		limit:   newLimiter(cfg.RatePerSecond, cfg.Burst),
		badAuth: newFailedAuthLimiter(cfg.FailedAuthPerMinute),
		mux:     http.NewServeMux(),

		leaseTTL:  cfg.LeaseTTL,
		keepalive: cfg.LiveKeepalive,
		liveDone:  make(chan struct{}),
	}
	if s.leaseTTL <= 0 {
		s.leaseTTL = DefaultLeaseTTL
	}
	if s.keepalive <= 0 {
		s.keepalive = DefaultLiveKeepalive
	}
	// On PostgreSQL the buckets are shared by every server on it.
	if rs, ok := cfg.Store.(interface{ sharedRates() rateTaker }); ok {
		s.limit.share(rs.sharedRates(), "tok:", s.log)
		s.badAuth.share(rs.sharedRates(), "net:", s.log)
	}
	// The store's doorbell reaches the other servers on one PostgreSQL;
	// a store without one (a test's wrapper) gets this server's own.
	if hs, ok := cfg.Store.(interface{ sharedHub() *hub }); ok && hs.sharedHub() != nil {
		s.hub = hs.sharedHub()
	} else {
		s.hub = newHub()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.routes()
	return s
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /healthz", s.healthz)

	m.HandleFunc("GET /v1/me", s.api(s.me))
	m.HandleFunc("GET /v1/sessions", s.api(s.listSessions))
	m.HandleFunc("GET /v1/sessions/{id}", s.api(s.getSession))
	m.HandleFunc("PUT /v1/sessions/{id}", s.api(s.putSession))
	m.HandleFunc("DELETE /v1/sessions/{id}", s.api(s.deleteSession))
	m.HandleFunc("POST /v1/shares", s.api(s.createShare))
	m.HandleFunc("GET /v1/shares", s.api(s.listShares))
	m.HandleFunc("DELETE /v1/shares/{id}", s.api(s.deleteShare))
	m.HandleFunc("POST /v1/shares/{token}/copy", s.api(s.copyShare))
	s.sharedRoutes()
	// The method-less patterns answer the other methods of the same paths
	// with a JSON 405 (ServeMux's own is plain text).
	for path, allow := range map[string]string{
		"/healthz":                "GET",
		"/v1/me":                  "GET",
		"/v1/sessions":            "GET",
		"/v1/sessions/{id}":       "GET, PUT, DELETE",
		"/v1/shares":              "GET, POST",
		"/v1/shares/{id}":         "DELETE",
		"/v1/shares/{token}/copy": "POST",
		"/s/{token}":              "GET, HEAD",
	} {
		m.HandleFunc(path, methodNotAllowed(allow))
	}
	for path, allow := range sharedPaths {
		m.HandleFunc(path, methodNotAllowed(allow))
	}
	m.HandleFunc("GET /s/{token}", s.sharePage)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &httpError{http.StatusNotFound, api.CodeNotFound, "no such endpoint"})
	})
}

// methodNotAllowed answers 405, saying which methods the path takes.
func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, &httpError{http.StatusMethodNotAllowed, api.CodeMethodNotAllowed, fmt.Sprintf("%s is not allowed here; allowed: %s", r.Method, allow)})
	}
}

// ServeHTTP serves the API and the share pages, with an access log.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	info := &requestInfo{}
	lw := &logWriter{ResponseWriter: w, status: http.StatusOK}
	h := lw.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
	s.mux.ServeHTTP(lw, r) // sets r.Pattern
	// The access log names the route pattern, never the path (a share
	// token is in the path of /s/{token}), and never headers or bodies.
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("route", r.Pattern),
		slog.Int("status", lw.status),
		slog.Int64("bytes", lw.bytes),
		slog.Float64("ms", math.Round(float64(time.Since(start).Microseconds()))/1000),
		slog.String("remote", r.RemoteAddr),
	}
	if info.user != "" {
		attrs = append(attrs, slog.String("user", info.user))
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
}

type requestInfoKey struct{}

// requestInfo carries what the access log learns during the request.
type requestInfo struct {
	user string
}

func infoOf(r *http.Request) *requestInfo {
	if i, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		return i
	}
	return &requestInfo{}
}

type logWriter struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (w *logWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// httpError is an answer other than success, in the contract's shape.
type httpError struct {
	status  int
	code    string
	message string
}

func (e *httpError) Error() string { return e.message }

func badRequest(format string, a ...any) error {
	return &httpError{http.StatusBadRequest, api.CodeBadRequest, fmt.Sprintf(format, a...)}
}

func notFound(what string) *httpError {
	return &httpError{http.StatusNotFound, api.CodeNotFound, "no such " + what}
}

// apiHandler serves one /v1 call for an authenticated caller.
type apiHandler func(w http.ResponseWriter, r *http.Request, p Principal) error

// api wraps h with authentication, the rate limit and error answers.
func (s *Server) api(h apiHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r)
		w.Header().Set("Cache-Control", "no-store")
		p, err := s.authenticate(r)
		if errors.Is(err, errUnauthorized) {
			// Only failures count, so a hostile page or neighbour sending
			// junk tokens from the user's address cannot lock the user's
			// good token out; guessing a 256-bit token is hopeless anyway,
			// and this keeps scanners slow and the log short.
			if ok, wait := s.badAuth.allow(r.Context(), clientNet(r.RemoteAddr), s.now()); !ok {
				tooMany(w, wait, "too many requests with a missing or invalid token from this address")
				return
			}
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		info.user = p.ID
		if ok, wait := s.limit.allow(r.Context(), p.TokenID, s.now()); !ok {
			tooMany(w, wait, "too many requests for this token")
			return
		}
		if err := h(w, r, p); err != nil {
			s.fail(w, r, err)
		}
	}
}

// tooMany answers 429 with Retry-After (whole seconds, at least 1).
func tooMany(w http.ResponseWriter, wait time.Duration, why string) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, &httpError{http.StatusTooManyRequests, api.CodeRateLimited, fmt.Sprintf("%s; retry in %d s", why, secs)})
}

var errUnauthorized = &httpError{http.StatusUnauthorized, api.CodeUnauthorized, "a valid bearer token is required (Authorization: Bearer <token>; `mnote-controlplane user add NAME` makes one)"}

// authenticate finds the caller from the bearer token alone.
func (s *Server) authenticate(r *http.Request) (Principal, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || len(token) > 256 {
		return Principal{}, errUnauthorized
	}
	p, err := s.store.Authenticate(r.Context(), HashToken(token))
	if errors.Is(err, ErrNotFound) {
		return Principal{}, errUnauthorized
	}
	return p, err
}

// fail answers err: the contract's errors as they are, the store's
// sentinels as 404/409, anything else as 500 (and logged).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var (
		he    *httpError
		stale *StaleError
		head  *HeadConflictError
		input *inputError
	)
	switch {
	case errors.As(err, &head):
		writeJSON(w, http.StatusConflict, api.ErrorBody{
			Error: api.ErrorDetail{Code: api.CodeConflict, Message: head.Error() + " (read the entries after your last one first)"},
			Head:  &head.Head,
		})
	case errors.As(err, &input):
		writeError(w, &httpError{http.StatusBadRequest, api.CodeBadRequest, input.msg})
	case errors.Is(err, ErrForbidden):
		writeError(w, &httpError{http.StatusForbidden, api.CodeForbidden, "your role in this session does not allow this"})
	case errors.Is(err, ErrLeaseRequired):
		writeError(w, &httpError{http.StatusConflict, api.CodeLeaseRequired, "this run does not hold the session's lease (POST /v1/sessions/{id}/lease first, and renew it)"})
	case errors.Is(err, ErrGone):
		writeError(w, &httpError{http.StatusGone, api.CodeGone, "expired or used up; start again"})
	case errors.As(err, &he):
		if he.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnote-controlplane"`)
		}
		writeError(w, he)
	case errors.As(err, &stale):
		cur := stale.Current
		writeJSON(w, http.StatusConflict, api.ErrorBody{
			Error:   api.ErrorDetail{Code: api.CodeStale, Message: fmt.Sprintf("the server holds version %d of this session, newer than the one sent; merge and send a higher version", cur.Version)},
			Session: &cur,
		})
	case errors.Is(err, ErrNotFound):
		writeError(w, notFound("resource"))
	case isDataError(err):
		// Input the decoder let through and the store still refuses:
		// retrying cannot help, so it is the client's 400, not a 500
		// that would be retried for ever.
		s.log.Warn("store refused the data", "route", r.Pattern, "err", err)
		writeError(w, &httpError{http.StatusBadRequest, api.CodeBadRequest,
			fmt.Sprintf("the store cannot keep a value of this request (%s); change it and send it again", dataErrorText(err))})
	case r.Context().Err() != nil:
		// The client went away; nobody reads the answer.
		s.log.Debug("request cancelled", "route", r.Pattern, "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		s.log.Error("store failure", "route", r.Pattern, "err", err)
		writeError(w, &httpError{http.StatusInternalServerError, api.CodeInternal, "the store failed; nothing was saved; try again later"})
	}
}

// isDataError reports whether err is PostgreSQL refusing a value (SQLSTATE
// class 22, data exception: invalid byte sequence, value too long, out of
// range …), which no retry fixes.
func isDataError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.HasPrefix(pe.Code, "22")
}

// dataErrorText is the store's own words for a data error (they name the
// problem, not the data).
func dataErrorText(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return "invalid value"
}

func writeError(w http.ResponseWriter, e *httpError) {
	writeJSON(w, e.status, api.ErrorBody{Error: api.ErrorDetail{Code: e.code, Message: e.message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Our own types always encode; this would be a bug.
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"could not encode the answer"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Error("health check: store failure", "err", err)
		writeError(w, &httpError{http.StatusServiceUnavailable, api.CodeInternal, "the store does not answer"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// PurgeExpiredShares deletes expired shares every interval until ctx
// ends. Expired shares are refused on read anyway; this only frees space.
// Several servers may run it at once.
func (s *Server) PurgeExpiredShares(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		n, err := s.store.PurgeExpired(ctx, s.now())
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("purge expired shares", "err", err)
		case n > 0:
			s.log.Info("purged expired shares", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
