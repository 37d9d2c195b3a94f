package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// setCookieRecorder is a browser's network stack that notes every
// Set-Cookie the server sends.
type setCookieRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *setCookieRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.seen = append(r.seen, resp.Header.Values("Set-Cookie")...)
		r.mu.Unlock()
	}
	return resp, err
}

// Cookies are not port-scoped: every other web server on 127.0.0.1 gets
// the ones mnote serve sets. The browser here loads the page (and its
// assets), exchanges the code, calls the API and opens the event stream,
// then visits a second loopback server with its cookie jar; nothing that
// server received, nor any Set-Cookie mnote sent, works as a credential
// on /api/call or /api/events.
func TestServeCookiesGrantNothing(t *testing.T) {
	h := newHarness(t)
	uiServe(t, h) // a stand-in UI shaped like the built page: no need for the UI build
	_, u, _, _ := startServe(t, h, nil, "--no-open", "--workspace", h.ws)
	base := "http://" + u.Host
	rec := &setCookieRecorder{}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, Transport: rec}
	get := func(rawURL string) []byte {
		t.Helper()
		resp, err := browser.Get(rawURL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", rawURL, resp.StatusCode)
		}
		return b
	}

	// The page load: the URL with its code, then every asset it names.
	page := get(u.String())
	assets := regexp.MustCompile(`(?:src|href)="\./(assets/[^"]+)"`).FindAllSubmatch(page, -1)
	if len(assets) == 0 {
		t.Fatalf("the page names no assets:\n%s", page)
	}
	for _, a := range assets {
		get(base + "/" + string(a[1]))
	}
	// The page's exchange of the code, from its own origin.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/exchange", strings.NewReader(`{"code":"`+u.Query().Get("code")+`"}`))
	req.Header.Set("Origin", base)
	req.Header.Set("Content-Type", "application/json")
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Token string `json:"token"`
	}
	json.NewDecoder(resp.Body).Decode(&ex)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || ex.Token == "" {
		t.Fatalf("exchange: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	// What the page does with the token; the same requests built by
	// callWith and eventsWith below, so their 401s are not a wrong request.
	if st := callWith(t, browser, base, http.Header{"Authorization": {"Bearer " + ex.Token}}, ""); st != http.StatusOK {
		t.Fatalf("the page's call with the token: %d", st)
	}
	if st := eventsWith(ctx, t, browser, u.Host, nil, "", ex.Token); st != http.StatusSwitchingProtocols {
		t.Fatalf("the page's event stream with the token: %d", st)
	}
	get(base + "/") // a reload

	// The browser visits another local web server.
	var mu sync.Mutex
	var leaked []*http.Cookie
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Cookies()...)
		mu.Unlock()
		io.WriteString(w, "hello")
	}))
	defer other.Close()
	get(other.URL + "/")

	mu.Lock()
	candidates := append([]*http.Cookie(nil), leaked...)
	mu.Unlock()
	rec.mu.Lock()
	for _, sc := range rec.seen {
		if c, err := http.ParseSetCookie(sc); err == nil {
			candidates = append(candidates, c)
		}
	}
	rec.mu.Unlock()
	t.Logf("cookies set by mnote serve: %d, received by the other server: %d", len(candidates)-len(leaked), len(leaked))

	// The other server's owner tries each value every way it could.
	plain := &http.Client{}
	var all []string
	for _, c := range candidates {
		all = append(all, c.Name+"="+c.Value)
		tries := []struct {
			what string
			hdr  http.Header
			q    string
		}{
			{"cookie", http.Header{"Cookie": {c.Name + "=" + c.Value}}, ""},
			{"bearer", http.Header{"Authorization": {"Bearer " + c.Value}}, ""},
			{"query", nil, c.Value},
		}
		for _, try := range tries {
			if st := callWith(t, plain, base, try.hdr, try.q); st != http.StatusUnauthorized && st != http.StatusForbidden {
				t.Errorf("cookie %s as %s on /api/call: %d", c.Name, try.what, st)
			}
			if st := eventsWith(ctx, t, plain, u.Host, try.hdr, try.q, ""); st != http.StatusUnauthorized && st != http.StatusForbidden {
				t.Errorf("cookie %s as %s on /api/events: %d", c.Name, try.what, st)
			}
			if try.q != "" {
				if st := eventsWith(ctx, t, plain, u.Host, nil, "", try.q); st != http.StatusUnauthorized && st != http.StatusForbidden {
					t.Errorf("cookie %s as the subprotocol on /api/events: %d", c.Name, st)
				}
			}
		}
	}
	if len(all) > 0 {
		hdr := http.Header{"Cookie": {strings.Join(all, "; ")}}
		if st := callWith(t, plain, base, hdr, ""); st != http.StatusUnauthorized {
			t.Errorf("all cookies on /api/call: %d", st)
		}
		if st := eventsWith(ctx, t, plain, u.Host, hdr, "", ""); st != http.StatusUnauthorized {
			t.Errorf("all cookies on /api/events: %d", st)
		}
	}
}

// callWith POSTs sessions.list to /api/call with these headers (and
// ?token= when q is set); it returns the status.
func callWith(t *testing.T, c *http.Client, base string, hdr http.Header, q string) int {
	t.Helper()
	target := base + "/api/call"
	if q != "" {
		target += "?token=" + url.QueryEscape(q)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, target, strings.NewReader(`{"method":"sessions.list","args":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// eventsWith opens /api/events from the page's origin with these headers
// (and ?token= when q is set, the subprotocols mnote.v1 and
// mnote.token.PROTO when proto is); it returns the handshake's status.
func eventsWith(ctx context.Context, t *testing.T, c *http.Client, host string, hdr http.Header, q, proto string) int {
	t.Helper()
	h := http.Header{"Origin": {"http://" + host}}
	for k, v := range hdr {
		h[k] = v
	}
	target := "ws://" + host + "/api/events"
	if q != "" {
		target += "?token=" + url.QueryEscape(q)
	}
	var protos []string
	if proto != "" {
		protos = []string{"mnote.v1", "mnote.token." + proto}
	}
	conn, resp, err := websocket.Dial(ctx, target, &websocket.DialOptions{HTTPClient: c, HTTPHeader: h, Subprotocols: protos})
	if conn != nil {
		conn.CloseNow()
	}
	if resp == nil {
		t.Fatalf("websocket %s: %v", target, err)
	}
	return resp.StatusCode
}

// fakeLauncher puts a fake xdg-open first on PATH that writes its argv
// into a FIFO, then stays (its command line readable in /proc, as a real
// launcher's is) until the test ends; the returned channel gets the argv
// lines. It returns the environment to give serve.
func fakeLauncher(t *testing.T) ([]string, <-chan []string) {
	t.Helper()
	bin := t.TempDir()
	fifo, hold := filepath.Join(bin, "argv"), filepath.Join(bin, "hold")
	for _, f := range []string{fifo, hold} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\"; done >'" + fifo + "'\nread x <'" + hold + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	argvc := make(chan []string, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until the launcher writes
		argvc <- strings.Split(strings.TrimSpace(string(b)), "\n")
	}()
	t.Cleanup(func() {
		// Unblocks the reader if nothing was launched, and lets the
		// launcher go (its read of hold ends).
		for _, f := range []string{fifo, hold} {
			if w, err := os.OpenFile(f, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	})
	return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "DISPLAY=:99"}, argvc
}

// launchedPage waits for the fake launcher's argv and checks it: the
// launcher and one argument, the path of a launch page in a private
// folder of mnote's state folder (mode 0700), itself mode 0600. It
// returns the page's path and the URL the page sends the browser to.
func launchedPage(t *testing.T, h *harness, argvc <-chan []string) (string, *url.URL) {
	t.Helper()
	var argv []string
	select {
	case argv = <-argvc:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not run xdg-open")
	}
	if len(argv) != 2 || filepath.Base(argv[0]) != "xdg-open" {
		t.Fatalf("launcher argv %q", argv)
	}
	page := argv[1]
	dir := filepath.Join(h.home, "state", "serve")
	if filepath.Dir(page) != dir || !strings.HasSuffix(page, ".html") {
		t.Fatalf("the launcher was given %q, want a page in %s", page, dir)
	}
	for p, want := range map[string]os.FileMode{page: 0o600, dir: 0o700} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm() != want || fi.Mode()&os.ModeSymlink != 0 {
			t.Fatalf("%s: %v (want mode %v): %v", p, fi.Mode(), want, err)
		}
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<meta http-equiv="refresh" content="0;url=([^"]+)">`).FindSubmatch(b)
	link := regexp.MustCompile(`<a href="([^"]+)"`).FindSubmatch(b)
	if m == nil || link == nil || string(m[1]) != string(link[1]) {
		t.Fatalf("the page sends the browser nowhere:\n%s", b)
	}
	target, err := url.Parse(html.UnescapeString(string(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	return page, target
}

// The browser launcher's command line (readable by every local user in
// /proc) carries no secret: not the token, not a one-time code. It is
// the path of a private page (0600 in a 0700 folder) that sends the
// browser to the URL with a code of its own; that code works once, and
// the page is gone as soon as it was used.
func TestServeLaunchArgv(t *testing.T) {
	h := newHarness(t)
	env, argvc := fakeLauncher(t)
	_, u, _, _ := startServe(t, h, env, "--workspace", h.ws)
	s := &served{t: t, base: "http://" + u.Host, host: u.Host}
	page, launched := launchedPage(t, h, argvc)
	printed := u.Query().Get("code")
	st, token := s.exchange(printed)
	if st != http.StatusOK || token == "" {
		t.Fatalf("exchange of the printed code: %d", st)
	}
	code := launched.Query().Get("code")
	if launched.Host != u.Host || launched.Path != "/" || code == "" || code == printed {
		t.Fatalf("the page sends the browser to %s (printed %s)", launched, u)
	}
	for _, secret := range []string{token, code, printed, "code="} {
		if strings.Contains(page, secret) {
			t.Fatalf("the launcher's argv %q carries %q", page, secret)
		}
	}
	if st, got := s.exchange(code); st != http.StatusOK || got != token {
		t.Fatalf("exchange of the launched code: %d", st)
	}
	if _, err := os.Stat(page); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the page is still there once its code was used: %v", err)
	}
	if st, got := s.exchange(code); st != http.StatusUnauthorized || got != "" {
		t.Fatalf("second exchange of the launched code: %d %q", st, got)
	}
}

// A launch page whose code was never used is removed when serve stops.
func TestServeLaunchPageRemovedOnExit(t *testing.T) {
	h := newHarness(t)
	env, argvc := fakeLauncher(t)
	cmd, _, _, exited := startServe(t, h, env, "--workspace", h.ws)
	page, _ := launchedPage(t, h, argvc)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if _, err := os.Stat(page); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the page outlived serve: %v", err)
	}
}
