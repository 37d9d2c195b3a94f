package cli

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// A one-time code works once, until it expires, and only exactly.
func TestOneTimeCodes(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := &codes{now: clock.now}
	a, err := c.issue(time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.issue(time.Minute, false)
	for _, wrong := range []string{"", a[:len(a)-1], a + "x", strings.ToUpper(a)} {
		if wrong != a && c.redeem(wrong) {
			t.Errorf("code %q accepted", wrong)
		}
	}
	clock.t = clock.t.Add(59 * time.Second)
	if !c.redeem(a) {
		t.Fatal("a fresh code refused")
	}
	if c.redeem(a) {
		t.Fatal("a used code accepted again")
	}
	clock.t = clock.t.Add(time.Second) // exactly its lifetime
	if c.redeem(b) {
		t.Fatal("an expired code accepted")
	}
	if len(c.live) != 0 {
		t.Fatalf("codes kept: %d", len(c.live))
	}
}

// POST /api/exchange: the token for a live code, once; 401 after; a
// fresh URL on stdout only when the printed one is used or expired.
func TestExchange(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	var stdout bytes.Buffer
	s := &server{token: "the-token", listen: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4321}, loopback: true,
		codes: &codes{now: clock.now}, stdout: &stdout, log: slog.New(slog.DiscardHandler)}
	printed := func() []string {
		t.Helper()
		var codes []string
		for _, l := range strings.Fields(stdout.String()) {
			u, err := url.Parse(l)
			if err != nil || u.Host != "127.0.0.1:4321" || u.Query().Get("code") == "" || strings.Contains(l, s.token) {
				t.Fatalf("stdout line %q", l)
			}
			codes = append(codes, u.Query().Get("code"))
		}
		return codes
	}
	exchange := func(origin, method, body string) (int, string) {
		t.Helper()
		r := httptest.NewRequest(method, "http://127.0.0.1:4321/api/exchange", strings.NewReader(body))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var out struct {
			Token string `json:"token"`
		}
		json.Unmarshal(w.Body.Bytes(), &out)
		if w.Code != http.StatusOK && out.Token != "" {
			t.Fatalf("a %d carries the token", w.Code)
		}
		return w.Code, out.Token
	}
	codeBody := func(c string) string { return `{"code":"` + c + `"}` }
	const own = "http://127.0.0.1:4321"

	if err := s.printCode(); err != nil {
		t.Fatal(err)
	}
	if err := s.printCode(); err != nil { // still live: nothing new
		t.Fatal(err)
	}
	first := printed()
	if len(first) != 1 {
		t.Fatalf("printed %v", first)
	}
	launch, _ := s.codes.issue(launchCodeTTL, false)

	// Foreign pages, wrong methods and bodies get nothing and use nothing up.
	for _, c := range []struct {
		origin, method, body string
		want                 int
	}{
		{"http://127.0.0.1:1", http.MethodPost, codeBody(first[0]), http.StatusForbidden},
		{"null", http.MethodPost, codeBody(first[0]), http.StatusForbidden},
		{own, http.MethodGet, "", http.StatusMethodNotAllowed},
		{own, http.MethodPost, "code=" + first[0], http.StatusBadRequest},
		{own, http.MethodPost, `{"code":""}`, http.StatusBadRequest},
		{own, http.MethodPost, `{"code":"` + strings.Repeat("x", 8<<10) + `"}`, http.StatusBadRequest},
		{own, http.MethodPost, codeBody("nope"), http.StatusUnauthorized},
	} {
		if got, _ := exchange(c.origin, c.method, c.body); got != c.want {
			t.Errorf("%s %s %.40s: %d, want %d", c.origin, c.method, c.body, got, c.want)
		}
	}
	if n := len(printed()); n != 1 {
		t.Fatalf("failed exchanges printed %d URLs while the first was live", n)
	}

	// The launch code: once, within its minute.
	if st, tok := exchange(own, http.MethodPost, codeBody(launch)); st != http.StatusOK || tok != s.token {
		t.Fatalf("launch code: %d %q", st, tok)
	}
	if st, _ := exchange(own, http.MethodPost, codeBody(launch)); st != http.StatusUnauthorized {
		t.Fatalf("launch code again: %d", st)
	}
	late, _ := s.codes.issue(launchCodeTTL, false)
	clock.t = clock.t.Add(launchCodeTTL)
	if st, _ := exchange(own, http.MethodPost, codeBody(late)); st != http.StatusUnauthorized {
		t.Fatalf("expired launch code: %d", st)
	}
	if n := len(printed()); n != 1 {
		t.Fatalf("printed %d URLs while the first was live", n)
	}

	// The printed code: once (then a fresh one is printed) ...
	if st, tok := exchange("", http.MethodPost, codeBody(first[0])); st != http.StatusOK || tok != s.token {
		t.Fatalf("printed code: %d %q", st, tok)
	}
	second := printed()
	if len(second) != 2 || second[1] == second[0] {
		t.Fatalf("after the printed code was used: %v", second)
	}
	if st, _ := exchange(own, http.MethodPost, codeBody(first[0])); st != http.StatusUnauthorized {
		t.Fatalf("printed code again: %d", st)
	}
	// ... until it expires; the next attempt then prints a fresh one.
	clock.t = clock.t.Add(printedCodeTTL)
	if st, _ := exchange(own, http.MethodPost, codeBody(second[1])); st != http.StatusUnauthorized {
		t.Fatalf("expired printed code: %d", st)
	}
	third := printed()
	if len(third) != 3 {
		t.Fatalf("after the printed code expired: %v", third)
	}
	if st, tok := exchange(own, http.MethodPost, codeBody(third[2])); st != http.StatusOK || tok != s.token {
		t.Fatalf("fresh printed code: %d", st)
	}
}
