package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"mnote/app"
	"mnote/internal/l10n"
	"mnote/internal/opener"
	"mnote/workspace"
)

// Assets is the UI (the contents of frontend/dist), set by main before
// Main. Without it `mnote serve` serves a placeholder page.
var Assets fs.FS

// Access (DESIGN.md §7). The API (/api/call, /api/events) needs the
// bearer token. The page and its assets are served to anyone who passes
// the Host check: they are public build output with nothing secret in
// them, and serving them openly means no cookie at all. A cookie would be
// the weak spot: cookies are not port-scoped, so every other web server
// on 127.0.0.1 the browser visits would receive it.
//
// The token never leaves the process in a URL: the browser is opened
// with a one-time code, which the page exchanges once, by POST
// /api/exchange, for the token, and keeps in sessionStorage (per origin,
// i.e. per port). The code is not in the launcher's command line either
// (every local user reads it in /proc): the launcher gets a private file
// that holds it (serve_open.go). The URL printed on stdout carries a
// code of its own; when it has been used or has expired, the next
// exchange attempt prints a fresh one.
const (
	// launchCodeTTL is how long the code handed to the browser launcher
	// is valid: long enough for a cold browser start.
	launchCodeTTL = 60 * time.Second
	// printedCodeTTL is how long the code printed on stdout is valid.
	printedCodeTTL = 10 * time.Minute
)

// pageCSP mirrors the page's <meta http-equiv="Content-Security-Policy">
// (frontend/vite.config.ts) and adds what only a header can say:
// frame-ancestors (no other page may frame this one).
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// maxCallBody bounds a POST /api/call body.
const maxCallBody = 32 << 20

// maxExchangeBody bounds a POST /api/exchange body.
const maxExchangeBody = 4 << 10

func (e *env) runServe(args []string) int {
	fs := e.flags("serve", "[--addr 127.0.0.1:0] [--workspace DIR|NOTE.md] [--allow-origin URL,…] [--no-open]")
	addr := fs.String("addr", "127.0.0.1:0", "listen on this `host:port` (loopback unless you mean otherwise)")
	wsFlag := fs.String("workspace", "", "folder new sessions work in, or a Markdown file to open in its folder (default: the current folder)")
	noOpen := fs.Bool("no-open", false, "do not open the browser")
	allowOrigin := fs.String("allow-origin", "", "also accept pages from these `origins` (comma-separated, e.g. https://notes.example.com for a TLS proxy in front)")
	words, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(words) > 0 {
		fs.Usage()
		return exitUsage
	}
	ws, sel, err := workspaceDir(*wsFlag)
	if err != nil {
		return e.usageErr("%v", err)
	}
	extra, err := parseOrigins(*allowOrigin)
	if err != nil {
		return e.usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return e.fail(exitUsage, fmt.Errorf("listen on %s: %w", *addr, err))
	}
	defer ln.Close()
	token, err := newToken()
	if err != nil {
		return e.fail(exitAgent, err)
	}

	hub := app.NewHub(e.log)
	svc, err := app.New(app.Config{Paths: e.paths, Workspace: ws, Select: sel, Emitter: hub, Detector: e.detector(), Logger: e.log, ClientVersion: Version})
	if err != nil {
		return e.fail(exitAgent, err)
	}
	defer svc.Shutdown()

	la := ln.Addr().(*net.TCPAddr)
	s := &server{svc: svc, hub: hub, token: token, assets: Assets, listen: la, loopback: la.IP.IsLoopback(), extra: extra,
		codes: &codes{now: time.Now}, stdout: e.stdout, log: e.log}
	if err := s.printCode(); err != nil {
		return e.fail(exitAgent, err)
	}
	if !s.loopback {
		e.warn("warning: serving on %s, which is not a loopback address: anyone who can reach it and has the token can use your agents and notes", la)
	}
	// Signals are caught before the browser is told of the page, so a stop
	// at once after it is a clean stop too (which removes the page).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl+C (or SIGTERM) stops cleanly; a second one kills.
	context.AfterFunc(ctx, stop)
	if !*noOpen {
		page, err := s.launch(filepath.Join(e.paths.StateDir, launchDirName), e)
		if err != nil {
			e.warn("could not open the browser (%v); open the URL above", err)
		}
		defer page.remove()
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	code := exitOK
	select {
	case <-ctx.Done():
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			e.warn("server: %v", err)
			code = exitAgent
		}
	}
	start := time.Now()
	hub.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		e.warn("server shutdown: %v", err)
	}
	e.log.Debug("http server stopped", "elapsed", time.Since(start))
	svc.Shutdown()
	e.log.Debug("sessions closed, agents stopped", "elapsed", time.Since(start))
	return code
}

// workspaceDir checks --workspace (default: the current folder).
// workspaceDir is the folder --workspace names and, when it names a
// Markdown file, that file (selected when the page opens).
func workspaceDir(dir string) (folder, note string, err error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("--workspace %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", "", fmt.Errorf("--workspace: %w", err)
	}
	switch {
	case st.IsDir():
		return abs, "", nil
	case st.Mode().IsRegular() && workspace.IsMarkdown(abs):
		return filepath.Dir(abs), abs, nil
	}
	return "", "", fmt.Errorf("--workspace %s is not a folder or a Markdown file", abs)
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the access token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// codes are the live one-time codes: each is exchanged for the token at
// most once, and only until it expires.
type codes struct {
	mu   sync.Mutex
	now  func() time.Time
	live []oneTimeCode
}

type oneTimeCode struct {
	value   string
	expires time.Time
	printed bool // the one on stdout (see printCode)
}

// issue makes a code valid for ttl.
func (c *codes) issue(ttl time.Duration, printed bool) (string, error) {
	v, err := newToken()
	if err != nil {
		return "", fmt.Errorf("make a one-time code: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = append(c.live, oneTimeCode{value: v, expires: c.now().Add(ttl), printed: printed})
	return v, nil
}

// redeem reports whether got is a live code, and if so uses it up.
// Every live code is compared, in constant time.
func (c *codes) redeem(got string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	found := -1
	kept := c.live[:0]
	for _, x := range c.live {
		if !now.Before(x.expires) {
			continue // expired: dropped
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(x.value)) == 1 {
			found = len(kept)
		}
		kept = append(kept, x)
	}
	if found >= 0 {
		kept = append(kept[:found], kept[found+1:]...)
	}
	clear(c.live[len(kept):])
	c.live = kept
	return found >= 0
}

// printedLive reports whether the code on stdout is still usable.
func (c *codes) printedLive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for _, x := range c.live {
		if x.printed && now.Before(x.expires) {
			return true
		}
	}
	return false
}

// server is the HTTP side of `mnote serve`.
type server struct {
	svc      *app.Services
	hub      *app.Hub
	token    string
	assets   fs.FS
	listen   *net.TCPAddr
	loopback bool
	// extra are origins given with --allow-origin (scheme://host[:port]),
	// e.g. a TLS reverse proxy's: their pages and Host names are accepted.
	extra []*url.URL
	codes *codes
	// launched is the page the browser launcher was given (nil: none);
	// it is removed once its code is used.
	launched *launchPage
	// printMu orders printCode's check and print; stdout gets the URLs.
	printMu sync.Mutex
	stdout  io.Writer
	log     *slog.Logger
}

// parseOrigins reads --allow-origin.
func parseOrigins(list string) ([]*url.URL, error) {
	var out []*url.URL
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("--allow-origin %q: give an origin like https://notes.example.com (scheme, host and optional port only)", o)
		}
		out = append(out, &url.URL{Scheme: u.Scheme, Host: strings.ToLower(u.Host)})
	}
	return out, nil
}

// extraOrigin reports whether u (scheme and host) is one of --allow-origin.
func (s *server) extraOrigin(u *url.URL) bool {
	for _, x := range s.extra {
		if x.Scheme == u.Scheme && strings.EqualFold(x.Host, u.Host) {
			return true
		}
	}
	return false
}

// pageURL is the URL to open with a one-time code (never the token).
func (s *server) pageURL(code string) string {
	host := s.listen.IP.String()
	if s.listen.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(host, fmt.Sprint(s.listen.Port)), Path: "/"}
	u.RawQuery = url.Values{"code": {code}}.Encode()
	return u.String()
}

// printCode prints the page's URL with a fresh code on stdout unless the
// last printed one is still usable: at most one printed code is live, so
// failed exchanges cannot flood the terminal.
func (s *server) printCode() error {
	s.printMu.Lock()
	defer s.printMu.Unlock()
	if s.codes.printedLive() {
		return nil
	}
	code, err := s.codes.issue(printedCodeTTL, true)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(s.stdout, s.pageURL(code)); err != nil {
		return fmt.Errorf("print the URL: %w", err)
	}
	return nil
}

// launch opens the browser on a launch page (see serve_open.go) in dir
// with a fresh code, when there is a display; the page is removed when
// its code is used or expires, or by the caller on exit. It returns nil
// when nothing was launched.
func (s *server) launch(dir string, e *env) (*launchPage, error) {
	if name, _ := opener.Command(); name == "" {
		return nil, nil
	}
	code, err := s.codes.issue(launchCodeTTL, false)
	if err != nil {
		return nil, err
	}
	page, err := writeLaunchPage(dir, s.pageURL(code), code, l10n.FromEnv())
	if err != nil {
		return nil, err
	}
	s.launched = page
	time.AfterFunc(launchCodeTTL, page.remove)
	if err := opener.Open(page.path); err != nil {
		e.warn("could not open the browser (%v); open the URL above", err)
		page.remove()
	}
	return page, nil
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer") // a one-time code is in the page's URL
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Frame-Options", "DENY") // frame-ancestors for older browsers
	if !s.hostAllowed(r.Host) {
		// A loopback server answers only to loopback names (DNS rebinding).
		writeError(w, http.StatusForbidden, &app.Error{Code: app.CodeBadRequest, Message: "unknown host " + r.Host})
		return
	}
	switch r.URL.Path {
	case "/api/call", "/api/events", "/api/exchange":
		if !s.originAllowed(r) {
			writeError(w, http.StatusForbidden, &app.Error{Code: app.CodeBadRequest, Message: "foreign origin"})
			return
		}
		if r.URL.Path == "/api/exchange" {
			s.exchange(w, r)
			return
		}
		// A token in the URL is refused outright, even a right one: URLs
		// end up in consoles, logs and histories.
		if r.URL.Query().Has("token") {
			writeError(w, http.StatusUnauthorized, &app.Error{Code: app.CodeUnauthorized, Reason: app.ReasonTokenRequired,
				Message: "the token never goes in a URL: send it as the header Authorization: Bearer TOKEN (the WebSocket: as its subprotocol " + wsTokenPrefix + "TOKEN, with " + wsProtocol + ")"})
			return
		}
		events := r.URL.Path == "/api/events"
		if !s.authorized(r, events) {
			writeError(w, http.StatusUnauthorized, &app.Error{Code: app.CodeUnauthorized, Reason: app.ReasonTokenRequired, Message: "a valid token is required"})
			return
		}
		if !events {
			s.call(w, r)
			return
		}
		// Only the protocol's name is echoed, never the token.
		s.hub.ServeWebSocket(w, r, &websocket.AcceptOptions{OriginPatterns: s.originHosts(), Subprotocols: []string{wsProtocol}})
	default:
		if strings.HasPrefix(r.URL.Path, "/api/") {
			writeError(w, http.StatusNotFound, &app.Error{Code: app.CodeNotFound, Message: "no such endpoint"})
			return
		}
		s.static(w, r)
	}
}

// The event stream's WebSocket subprotocols. Browsers cannot set headers
// on a WebSocket, so the page offers two protocols: wsProtocol, which the
// server echoes, and wsTokenPrefix+TOKEN, which carries the token and is
// never echoed (nor ever part of a URL).
const (
	wsProtocol    = "mnote.v1"
	wsTokenPrefix = "mnote.token."
)

// authorized checks the bearer token: the Authorization header, or (when
// ws is set) the WebSocket subprotocol wsTokenPrefix+TOKEN offered with
// wsProtocol. Cookies and URLs never count.
func (s *server) authorized(r *http.Request, ws bool) bool {
	var got string
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		got = strings.TrimPrefix(a, "Bearer ")
	} else if ws {
		got = subprotocolToken(r.Header.Values("Sec-WebSocket-Protocol"))
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// subprotocolToken is the token of the offered subprotocols (header
// values, each a comma-separated list), or "" when they do not include
// wsProtocol (whose echo the page needs) or name no token.
func subprotocolToken(values []string) string {
	var tok string
	named := false
	for _, v := range values {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			switch {
			case p == wsProtocol:
				named = true
			case strings.HasPrefix(p, wsTokenPrefix):
				tok = strings.TrimPrefix(p, wsTokenPrefix)
			}
		}
	}
	if !named {
		return ""
	}
	return tok
}

// exchange trades a one-time code ({"code": ...}) for the token
// ({"token": ...}). A used, expired or wrong code gets 401, and stdout a
// fresh URL if its printed one is no longer usable.
func (s *server) exchange(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, &app.Error{Code: app.CodeBadRequest, Message: "use POST"})
		return
	}
	var req struct {
		Code string `json:"code"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxExchangeBody)).Decode(&req); err != nil || req.Code == "" {
		writeError(w, http.StatusBadRequest, &app.Error{Code: app.CodeBadRequest, Message: `the body must be {"code": "..."}`})
		return
	}
	ok := s.codes.redeem(req.Code)
	if ok && s.launched != nil && req.Code == s.launched.code {
		s.launched.remove() // used: nothing in it works any more
	}
	if err := s.printCode(); err != nil {
		s.log.Warn("could not print a fresh URL", "err", err)
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, &app.Error{Code: app.CodeUnauthorized, Reason: app.ReasonCodeRefused,
			Message: "this link was used already or has expired: open the latest URL mnote serve printed"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": s.token})
}

// hostAllowed: any Host when serving beyond loopback, else loopback names.
func (s *server) hostAllowed(hostport string) bool {
	if !s.loopback {
		return true
	}
	for _, x := range s.extra {
		if strings.EqualFold(x.Host, hostport) || strings.EqualFold(x.Hostname(), hostport) {
			return true
		}
	}
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originHosts are the host:port values a page of ours has as origin.
func (s *server) originHosts() []string {
	port := fmt.Sprint(s.listen.Port)
	hosts := []string{net.JoinHostPort(s.listen.IP.String(), port)}
	if s.loopback || s.listen.IP.IsUnspecified() {
		hosts = append(hosts, net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("localhost", port), net.JoinHostPort("::1", port))
	}
	for _, x := range s.extra {
		hosts = append(hosts, x.Host)
	}
	return hosts
}

// originAllowed: no Origin (not a browser), or the server's own origin.
// Browsers do not apply the same-origin policy to WebSockets, so a page
// from anywhere could otherwise connect.
func (s *server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if s.extraOrigin(u) {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, h := range s.originHosts() {
		if strings.EqualFold(u.Host, h) {
			return true
		}
	}
	return false
}

type callRequest struct {
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args"`
}

func (s *server) call(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, &app.Error{Code: app.CodeBadRequest, Message: "use POST"})
		return
	}
	var req callRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxCallBody))
	if err := dec.Decode(&req); err != nil || req.Method == "" {
		msg := "the body must be {\"method\": ..., \"args\": {...}}"
		if err != nil {
			msg += ": " + err.Error()
		}
		writeError(w, http.StatusBadRequest, &app.Error{Code: app.CodeBadRequest, Message: msg})
		return
	}
	res, e := s.svc.Invoke(r.Context(), req.Method, req.Args)
	if e != nil {
		writeError(w, statusOf(e.Code), e)
		return
	}
	b, err := app.EncodeResult(res)
	if err != nil {
		writeError(w, http.StatusInternalServerError, &app.Error{Code: app.CodeInternal, Message: "unencodable result: " + err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(`{"result":`))
	w.Write(b)
	w.Write([]byte("}"))
}

// statusOf maps an error code to an HTTP status.
func statusOf(code string) int {
	switch code {
	case app.CodeBadRequest:
		return http.StatusBadRequest
	case app.CodeUnauthorized:
		return http.StatusUnauthorized
	case app.CodeNotFound:
		return http.StatusNotFound
	case app.CodeBusy, app.CodeConflict:
		return http.StatusConflict
	case app.CodeAgentMissing, app.CodeAgentFailed, app.CodeNeedsAuth, app.CodeSyncAuth:
		return http.StatusFailedDependency
	case app.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, status int, e *app.Error) {
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"unencodable result"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
}

const placeholderPage = `<!doctype html><meta charset="utf-8"><title>mnote</title>
<p>mnote is running; this build has no UI assets.</p>`

// static serves the UI. A path that names no file and has no extension
// gets index.html (the page routes itself).
func (s *server) static(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if s.assets == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, placeholderPage)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if st, err := fs.Stat(s.assets, name); err != nil || st.IsDir() {
		if path.Ext(name) != "" {
			http.NotFound(w, r)
			return
		}
		name = "index.html"
	}
	if name == "index.html" {
		w.Header().Set("Cache-Control", "no-store")
	}
	http.ServeFileFS(w, r, s.assets, name)
}
