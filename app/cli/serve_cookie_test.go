package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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
	if st := eventsWith(ctx, t, browser, u.Host, nil, ex.Token); st != http.StatusSwitchingProtocols {
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
			if st := eventsWith(ctx, t, plain, u.Host, try.hdr, try.q); st != http.StatusUnauthorized && st != http.StatusForbidden {
				t.Errorf("cookie %s as %s on /api/events: %d", c.Name, try.what, st)
			}
		}
	}
	if len(all) > 0 {
		hdr := http.Header{"Cookie": {strings.Join(all, "; ")}}
		if st := callWith(t, plain, base, hdr, ""); st != http.StatusUnauthorized {
			t.Errorf("all cookies on /api/call: %d", st)
		}
		if st := eventsWith(ctx, t, plain, u.Host, hdr, ""); st != http.StatusUnauthorized {
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
// (and ?token= when q is set); it returns the handshake's status.
func eventsWith(ctx context.Context, t *testing.T, c *http.Client, host string, hdr http.Header, q string) int {
	t.Helper()
	h := http.Header{"Origin": {"http://" + host}}
	for k, v := range hdr {
		h[k] = v
	}
	target := "ws://" + host + "/api/events"
	if q != "" {
		target += "?token=" + url.QueryEscape(q)
	}
	conn, resp, err := websocket.Dial(ctx, target, &websocket.DialOptions{HTTPClient: c, HTTPHeader: h})
	if conn != nil {
		conn.CloseNow()
	}
	if resp == nil {
		t.Fatalf("websocket %s: %v", target, err)
	}
	return resp.StatusCode
}

// The browser launcher's argv (readable by every local user in ps)
// carries a one-time code, never the token, and that code works once. A
// fake xdg-open first on PATH writes its argv into a FIFO.
func TestServeLaunchArgv(t *testing.T) {
	h := newHarness(t)
	bin := t.TempDir()
	fifo := filepath.Join(bin, "argv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\"; done >'" + fifo + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	argvc := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until the launcher writes
		argvc <- b
	}()
	t.Cleanup(func() {
		// Unblocks the reader if nothing was launched.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	_, u, _, _ := startServe(t, h, []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "DISPLAY=:99"}, "--workspace", h.ws)
	s := &served{t: t, base: "http://" + u.Host, host: u.Host}
	st, token := s.exchange(u.Query().Get("code"))
	if st != http.StatusOK || token == "" {
		t.Fatalf("exchange of the printed code: %d", st)
	}
	var argv []byte
	select {
	case argv = <-argvc:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not run xdg-open")
	}
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	if len(lines) != 2 || filepath.Base(lines[0]) != "xdg-open" {
		t.Fatalf("launcher argv %q", lines)
	}
	if bytes.Contains(argv, []byte(token)) || bytes.Contains(argv, []byte("token")) {
		t.Fatalf("the launcher's argv carries the token: %q", lines)
	}
	launched, err := url.Parse(lines[1])
	if err != nil || launched.Host != u.Host || launched.Query().Get("code") == "" || launched.Query().Get("code") == u.Query().Get("code") {
		t.Fatalf("launched URL %q (printed %s)", lines[1], u)
	}
	if st, got := s.exchange(launched.Query().Get("code")); st != http.StatusOK || got != token {
		t.Fatalf("exchange of the launched code: %d", st)
	}
	if st, got := s.exchange(launched.Query().Get("code")); st != http.StatusUnauthorized || got != "" {
		t.Fatalf("second exchange of the launched code: %d %q", st, got)
	}
}
