package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
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

func (s *served) dial(ctx context.Context, origin string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return websocket.Dial(ctx, "ws://"+s.host+"/api/events?token="+url.QueryEscape(s.token), &websocket.DialOptions{HTTPHeader: h})
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

// mnote serve as a real process: the URL line, the token on every
// request, the WebSocket's Origin check, the page, a turn's events, and
// a graceful stop that stops the agents.
func TestServe(t *testing.T) {
	h := newHarness(t)
	cmd := h.cmd("serve", "--no-open", "--workspace", h.ws)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(20 * time.Second):
		t.Fatalf("no URL printed; stderr: %s", stderr.String())
	}
	u, err := url.Parse(first)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") || u.Query().Get("token") == "" {
		t.Fatalf("first line %q (stderr %s)", first, stderr.String())
	}
	s := &served{t: t, base: "http://" + u.Host, host: u.Host, token: u.Query().Get("token")}
	if len(s.token) != 43 { // 32 bytes, base64url without padding
		t.Fatalf("token %q", s.token)
	}

	// The token is required.
	if code, out := s.call("", "sessions.list", map[string]any{}); code != http.StatusUnauthorized || !strings.Contains(string(out["error"]), "unauthorized") {
		t.Fatalf("without a token: %d %s", code, out["error"])
	}
	if code, _ := s.call("wrong"+s.token[5:], "sessions.list", map[string]any{}); code != http.StatusUnauthorized {
		t.Fatalf("with a wrong token: %d", code)
	}
	var list []map[string]any
	s.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 0 {
		t.Fatalf("sessions: %v", list)
	}
	if code, out := s.call(s.token, "sessions.open", map[string]any{"id": "01nosuchsession"}); code != http.StatusNotFound || !strings.Contains(string(out["error"]), "not_found") {
		t.Fatalf("missing session: %d %s", code, out["error"])
	}

	// The page: with the token (which then lives in a cookie for its
	// assets), not without.
	resp, err := http.Get(s.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("page without a token: %d", resp.StatusCode)
	}
	resp, err = http.Get(first)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(page)), "<html") || len(resp.Cookies()) != 1 {
		t.Fatalf("page: %d cookies %v\n%s", resp.StatusCode, resp.Cookies(), page)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatal("the page may leak its token in Referer")
	}
	// A foreign Host (DNS rebinding) is refused.
	req, _ := http.NewRequest(http.MethodGet, first, nil)
	req.Host = "evil.example:" + u.Port()
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign host: %v %v", resp, err)
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
	// The page's own origin gets the events.
	c, _, err := s.dial(ctx, "http://"+s.host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if c2, resp, err := websocket.Dial(ctx, "ws://"+s.host+"/api/events", nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		if c2 != nil {
			c2.CloseNow()
		}
		t.Fatalf("websocket without a token: %v %v", resp, err)
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
		stopped = true
		if err != nil {
			t.Fatalf("serve exited: %v\n%s", err, stderr.String())
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
