package app_test

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"mnote/app"
	"mnote/cloudsync"
	"mnote/cloudsync/cloudsynctest"
)

// Sync through the app: off by default (nothing sent), on after the user
// sets it up; a session's record reaches the control plane without any of
// its words; a share is published redacted and revoked; exports from the
// window are redacted by default.
func TestSyncSharesAndExports(t *testing.T) {
	t.Parallel()
	cp := cloudsynctest.New(t)
	token := cp.AddUser("ann")
	h := newHarness(t)

	var st cloudsync.Status
	h.mustCall("sync.status", struct{}{}, &st)
	if st.Enabled || st.Configured {
		t.Fatalf("sync is on by default: %+v", st)
	}
	const canary = "zebra-canary-8411"
	sum := h.create("test")
	h.answer(sum.ID, canary+" answer")
	if n := len(cp.Requests()); n != 0 {
		t.Fatalf("%d requests to the control plane with sync off", n)
	}

	h.mustCall("sync.configure", map[string]any{"url": cp.URL, "token": token, "allowTitles": false}, &st)
	h.mustCall("sync.enable", map[string]any{"on": true}, &st)
	if !st.Enabled || !st.Configured {
		t.Fatalf("after enabling: %+v", st)
	}
	h.answer(sum.ID, "more "+canary)
	if err := eventually(testWait, func() bool {
		h.mustCall("sync.now", struct{}{}, &st)
		return st.Pending == 0 && cp.Count("PUT", "/v1/sessions/"+sum.ID) > 0
	}); err != nil {
		t.Fatalf("the session was not synced: %+v, requests %d", st, len(cp.Requests()))
	}
	if sent := cp.Sent(); bytes.Contains(sent, []byte(canary)) || bytes.Contains(sent, []byte(h.ws)) {
		t.Fatalf("a prompt's words or a local path reached the control plane")
	}

	var sh struct{ ID, URL string }
	h.mustCall("shares.publish", map[string]any{"id": sum.ID, "expiresInDays": 7}, &sh)
	if sh.ID == "" || !strings.Contains(sh.URL, "/s/") {
		t.Fatalf("share: %+v", sh)
	}
	var list []struct{ ID string }
	h.mustCall("shares.list", struct{}{}, &list)
	if len(list) != 1 || list[0].ID != sh.ID {
		t.Fatalf("shares: %+v", list)
	}
	h.mustCall("shares.revoke", map[string]any{"id": sh.ID}, nil)
	h.mustCall("shares.list", struct{}{}, &list)
	if len(list) != 0 {
		t.Fatalf("after revoke: %+v", list)
	}

	// Turning sync off stops all traffic.
	h.mustCall("sync.enable", map[string]any{"on": false}, &st)
	before := len(cp.Requests())
	h.answer(sum.ID, "after off")
	time.Sleep(300 * time.Millisecond)
	if after := len(cp.Requests()); after != before {
		t.Fatalf("%d requests after sync was turned off", after-before)
	}

	// Exports: md redacted by default (the workspace path is gone), jsonl raw.
	var md app.Exported
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "md"}, &md)
	if !strings.Contains(md.Content, canary) || md.Mime != "text/markdown" || !strings.HasSuffix(md.Filename, ".md") {
		t.Fatalf("md export: %+v", md)
	}
	var html app.Exported
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "html"}, &html)
	if !strings.Contains(html.Content, "<html") || strings.Contains(html.Content, "<script") {
		t.Fatalf("html export: %.200s", html.Content)
	}
	var jl app.Exported
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "jsonl"}, &jl)
	if !strings.Contains(jl.Content, `"kind":"session"`) || !strings.Contains(jl.Content, h.ws) {
		t.Fatalf("jsonl export (raw): %.200s", jl.Content)
	}
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "jsonl", "redact": true}, &jl)
	if strings.Contains(jl.Content, h.ws) {
		t.Fatalf("a redacted jsonl export keeps the workspace path")
	}
	if e := h.call("sessions.export", map[string]any{"id": sum.ID, "format": "pdf"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("pdf: %v", e)
	}
}

// Sync and share failures carry the control plane's meaning, not all
// bad_request (which `mnote serve` made a 400 even for a network error):
// a refused token is sync_auth, a failing, busy or unreachable control
// plane unavailable, an unknown share not_found, and a bad setup
// bad_request; each message says what to do next.
func TestSyncErrorCodes(t *testing.T) {
	t.Parallel()
	cp := cloudsynctest.New(t)
	token := cp.AddUser("ann")
	h := newHarness(t)
	want := func(method string, args any, code, next string) {
		t.Helper()
		e := h.call(method, args, nil)
		if e == nil || e.Code != code || !strings.Contains(e.Message, next) {
			t.Fatalf("%s: %+v; want %s saying %q", method, e, code, next)
		}
	}
	want("sync.now", struct{}{}, app.CodeBadRequest, "turn it on")
	want("sync.configure", map[string]any{"url": "ftp://cp.example", "token": token}, app.CodeBadRequest, "https://")

	h.mustCall("sync.configure", map[string]any{"url": cp.URL, "token": token}, nil)
	h.mustCall("sync.enable", map[string]any{"on": true}, nil)
	h.mustCall("shares.list", struct{}{}, nil)

	cp.Inject(cloudsynctest.Fault{Method: "GET", PathPrefix: "/v1/shares", Status: 401})
	want("shares.list", struct{}{}, app.CodeSyncAuth, "set a new one in Settings")
	cp.Inject(cloudsynctest.Fault{Method: "GET", PathPrefix: "/v1/shares", Status: 503})
	want("shares.list", struct{}{}, app.CodeUnavailable, "try again later")
	cp.Inject(cloudsynctest.Fault{Method: "GET", PathPrefix: "/v1/shares", Status: 429, RetryAfter: 7})
	want("shares.list", struct{}{}, app.CodeUnavailable, "try again in 7s")
	want("shares.revoke", map[string]any{"id": "shr_missing"}, app.CodeNotFound, "no such")

	// A control plane that does not answer: a loopback port nobody
	// listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	// Pointed at it first: a record made before could already have gone to
	// the working control plane, leaving sync.now nothing to send.
	h.mustCall("sync.configure", map[string]any{"url": dead, "token": token}, nil)
	h.create("test") // a record to send
	want("shares.list", struct{}{}, app.CodeUnavailable, "check the URL in Settings")
	want("sync.now", struct{}{}, app.CodeUnavailable, "check the URL in Settings")
}
