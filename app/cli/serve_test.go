package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// served is a running `mnote serve`.
type served struct {
	t     *testing.T
	base  string // http://127.0.0.1:PORT
	host  string
	token string
}

func (s *served) call(token, method string, args any) (int, map[string]json.RawMessage) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"method": method, "args": args})
	req, err := http.NewRequestWithContext(s.t.Context(), http.MethodPost, s.base+"/api/call", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	return resp.StatusCode, out
}

func (s *served) mustCall(method string, args any, result any) {
	s.t.Helper()
	code, out := s.call(s.token, method, args)
	if code != http.StatusOK {
		s.t.Fatalf("%s: %d %s", method, code, out["error"])
	}
	if result != nil {
		if err := json.Unmarshal(out["result"], result); err != nil {
			s.t.Fatal(err)
		}
	}
}

// dial opens the event stream the way the page does: the token as the
// subprotocol mnote.token.TOKEN beside mnote.v1.
func (s *served) dial(ctx context.Context, origin string) (*websocket.Conn, *http.Response, error) {
	return s.dialWith(ctx, origin, "", []string{"mnote.v1", "mnote.token." + s.token})
}

// dialWith opens the event stream with this URL query and these
// subprotocols.
func (s *served) dialWith(ctx context.Context, origin, query string, protocols []string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return websocket.Dial(ctx, "ws://"+s.host+"/api/events"+query, &websocket.DialOptions{HTTPHeader: h, Subprotocols: protocols})
}

// wsEvent is one frame of /api/events.
type wsEvent struct {
	Name string          `json:"name"`
	Data json.RawMessage `json:"data"`
}

func readUntil(ctx context.Context, t *testing.T, c *websocket.Conn, match func(wsEvent) bool) {
	t.Helper()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("websocket: %v", err)
		}
		var ev wsEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("frame %s: %v", b, err)
		}
		if match(ev) {
			return
		}
	}
}

// startServe runs `mnote serve` (args after "serve") as a real process
// and returns it once it printed its URL; urls gets every later stdout
// line. env is added to the process's environment.
func startServe(t *testing.T, h *harness, env []string, args ...string) (cmd *exec.Cmd, first *url.URL, urls <-chan string, exited <-chan error) {
	t.Helper()
	cmd = h.cmd(append([]string{"serve"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, waited := make(chan error, 1), make(chan struct{})
	go func() {
		done <- cmd.Wait()
		close(waited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() // an error once it has exited
		<-waited
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- strings.TrimSpace(sc.Text())
		}
		close(lines)
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(20 * time.Second):
		t.Fatalf("no URL printed; stderr: %s", stderr.String())
	}
	first, err = url.Parse(line)
	if err != nil || first.Scheme != "http" || !strings.HasPrefix(first.Host, "127.0.0.1:") || first.Query().Get("code") == "" {
		t.Fatalf("first line %q (stderr %s)", line, stderr.String())
	}
	return cmd, first, lines, done
}

// exchange POSTs a one-time code to /api/exchange from the page's origin.
func (s *served) exchange(code string) (int, string) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]string{"code": code})
	req, err := http.NewRequestWithContext(s.t.Context(), http.MethodPost, s.base+"/api/exchange", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Origin", s.base)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Token
}

// nextURL is the next URL serve printed on stdout.
func nextURL(t *testing.T, urls <-chan string) *url.URL {
	t.Helper()
	select {
	case line := <-urls:
		u, err := url.Parse(line)
		if err != nil || u.Query().Get("code") == "" {
			t.Fatalf("stdout line %q", line)
		}
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("serve printed no fresh URL")
	}
	return nil
}

// mnote serve as a real process: the URL line with a one-time code, its
// exchange for the token, the token on every API request, the
// WebSocket's Origin check, the page, a turn's events, and a graceful
// stop that stops the agents.
func TestServe(t *testing.T) {
	h := newHarness(t)
	uiServe(t, h) // a stand-in UI: no need for the UI build
	cmd, u, urls, exited := startServe(t, h, nil, "--no-open", "--workspace", h.ws)
	s := &served{t: t, base: "http://" + u.Host, host: u.Host}
	code := u.Query().Get("code")
	if code, token := s.exchange(code); code != http.StatusOK || len(token) != 43 { // 32 bytes, base64url without padding
		t.Fatalf("exchange: %d %q", code, token)
	} else {
		s.token = token
	}
	if strings.Contains(u.String(), s.token) {
		t.Fatal("the printed URL carries the token")
	}
	// The code works once; a fresh URL is printed for the next tab.
	if code, token := s.exchange(code); code != http.StatusUnauthorized || token != "" {
		t.Fatalf("second exchange of a code: %d %q", code, token)
	}
	u2 := nextURL(t, urls)
	if u2.Query().Get("code") == code {
		t.Fatal("the fresh URL has the used code")
	}
	if code, token := s.exchange(u2.Query().Get("code")); code != http.StatusOK || token != s.token {
		t.Fatalf("exchange of the fresh code: %d", code)
	}

	// The token is required, in the Authorization header.
	if code, out := s.call("", "sessions.list", map[string]any{}); code != http.StatusUnauthorized || !strings.Contains(string(out["error"]), "unauthorized") {
		t.Fatalf("without a token: %d %s", code, out["error"])
	}
	if code, _ := s.call("wrong"+s.token[5:], "sessions.list", map[string]any{}); code != http.StatusUnauthorized {
		t.Fatalf("with a wrong token: %d", code)
	}
	if resp, err := http.Post(s.base+"/api/call?token="+url.QueryEscape(s.token), "application/json", strings.NewReader(`{"method":"sessions.list","args":{}}`)); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("token in the query of /api/call: %v %v", resp, err)
	}
	var list []map[string]any
	s.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 0 {
		t.Fatalf("sessions: %v", list)
	}
	if code, out := s.call(s.token, "sessions.open", map[string]any{"id": "01nosuchsession"}); code != http.StatusNotFound || !strings.Contains(string(out["error"]), "not_found") {
		t.Fatalf("missing session: %d %s", code, out["error"])
	}

	// The page is public build output: served without a credential and
	// without cookies, with the page's CSP as a header that also forbids
	// framing.
	resp, err := http.Get(s.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(page)), "<html") || len(resp.Header.Values("Set-Cookie")) != 0 {
		t.Fatalf("page: %d cookies %v\n%s", resp.StatusCode, resp.Header.Values("Set-Cookie"), page)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatal("the page may leak its code in Referer")
	}
	meta := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]+)"`).FindSubmatch(page)
	if meta == nil {
		t.Fatalf("the page has no CSP meta element:\n%s", page)
	}
	if got, want := resp.Header.Get("Content-Security-Policy"), string(meta[1])+"; frame-ancestors 'none'"; got != want {
		t.Fatalf("CSP header %q, want the meta's plus frame-ancestors: %q", got, want)
	}
	// A foreign Host (DNS rebinding) is refused.
	req, _ := http.NewRequest(http.MethodGet, s.base+"/", nil)
	req.Host = "evil.example:" + u.Port()
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign host: %v %v", resp, err)
	}
	// So is an exchange from a foreign page.
	body := strings.NewReader(`{"code":"` + nextURL(t, urls).Query().Get("code") + `"}`)
	req, _ = http.NewRequest(http.MethodPost, s.base+"/api/exchange", body)
	req.Header.Set("Origin", "http://127.0.0.1:1")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("exchange from a foreign origin: %v %v", resp, err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	// A foreign Origin gets 403, even with the token.
	if c, resp, err := s.dial(ctx, "http://evil.example"); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		if c != nil {
			c.CloseNow()
		}
		t.Fatalf("foreign origin: %v %v", resp, err)
	}
	// The page's own origin gets the events; the server echoes the
	// protocol's name, never the token.
	c, resp, err := s.dial(ctx, "http://"+s.host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if c.Subprotocol() != "mnote.v1" || resp.Header.Get("Sec-WebSocket-Protocol") != "mnote.v1" {
		t.Fatalf("subprotocol %q, answered %q", c.Subprotocol(), resp.Header.Values("Sec-WebSocket-Protocol"))
	}
	for _, bad := range []struct {
		what, query string
		protocols   []string
	}{
		{"no token", "", nil},
		{"the right token in the URL", "?token=" + url.QueryEscape(s.token), nil},
		{"the right token in the URL and as the subprotocol", "?token=" + url.QueryEscape(s.token), []string{"mnote.v1", "mnote.token." + s.token}},
		{"a wrong token as the subprotocol", "", []string{"mnote.v1", "mnote.token.wrong" + s.token[5:]}},
		{"the token as the subprotocol without mnote.v1", "", []string{"mnote.token." + s.token}},
	} {
		c2, resp, err := s.dialWith(ctx, "http://"+s.host, bad.query, bad.protocols)
		if c2 != nil {
			c2.CloseNow()
		}
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("websocket with %s: %v %v", bad.what, resp, err)
		}
	}

	s.mustCall("agents.saveCustom", map[string]any{"name": "test", "command": h.agent, "args": []string{"--state", h.state}}, nil)
	var sum struct {
		ID string `json:"id"`
	}
	s.mustCall("sessions.create", map[string]any{"agent": "test"}, &sum)
	readUntil(ctx, t, c, func(ev wsEvent) bool { return ev.Name == "sessions:changed" })
	s.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": "hello over the web"}, nil)
	var answer string
	readUntil(ctx, t, c, func(ev wsEvent) bool {
		var te struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Payload   struct {
				State string `json:"state"`
				Kind  string `json:"kind"`
				Text  string `json:"text"`
			} `json:"payload"`
		}
		if ev.Name != "thread:event" || json.Unmarshal(ev.Data, &te) != nil || te.SessionID != sum.ID {
			return false
		}
		if te.Type == "entry" && te.Payload.Kind == "assistant_message" {
			answer = te.Payload.Text
		}
		return te.Type == "turn" && te.Payload.State == "ended"
	})
	if answer != "echo: hello over the web" {
		t.Fatalf("answer %q", answer)
	}

	// SIGTERM: a graceful stop that stops the session's agent.
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
	r := h.run("sessions", "--json")
	var rows []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0].Status != "exited" {
		t.Fatalf("after serve stopped: %s (%v)", r.stdout, err)
	}
}
