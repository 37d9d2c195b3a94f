package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"mnote/acp"
	"mnote/acp/acptest"
)

// elicitFunc adapts a function to acp.ElicitationBroker.
type elicitFunc func(ctx context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error)

func (f elicitFunc) RequestElicitation(ctx context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
	return f(ctx, req)
}

// rawTap is a recorder that also keeps every raw line it is shown and
// tells waiters when one matching a condition arrives.
type rawTap struct {
	*recorder
	mu    sync.Mutex
	raw   []string
	waits []rawWait
}

type rawWait struct {
	match func(dir acp.Dir, kind, line string) bool
	ch    chan string
}

func newRawTap() *rawTap { return &rawTap{recorder: newRecorder()} }

func (r *rawTap) Line(dir acp.Dir, kind string, line []byte) {
	r.recorder.Line(dir, kind, line)
	r.see(dir, kind, string(line))
}

func (r *rawTap) Notification(method string, params json.RawMessage, line []byte) {
	r.recorder.Notification(method, params, line)
	r.see(acp.DirIn, method, string(line))
}

func (r *rawTap) see(dir acp.Dir, kind, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, string(dir)+" "+kind+" "+line)
	keep := r.waits[:0]
	for _, w := range r.waits {
		if w.match(dir, kind, line) {
			w.ch <- line
			continue
		}
		keep = append(keep, w)
	}
	r.waits = keep
}

// await returns a channel that receives the first line (seen already or
// later) that matches.
func (r *rawTap) await(match func(dir acp.Dir, kind, line string) bool) <-chan string {
	ch := make(chan string, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.raw {
		dir, rest, _ := strings.Cut(l, " ")
		kind, line, _ := strings.Cut(rest, " ")
		if match(acp.Dir(dir), kind, line) {
			ch <- line
			return ch
		}
	}
	r.waits = append(r.waits, rawWait{match, ch})
	return ch
}

func (r *rawTap) lines(prefix string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.raw {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

const formSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","minLength":2},` +
	`"count":{"type":"integer","minimum":1,"maximum":5,"default":2},` +
	`"ok":{"type":"boolean"},` +
	`"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}},` +
	`"required":["name","count"]}`

func elicitStep(extra string) string {
	return `{"elicit":{"message":"Tell me","requestedSchema":` + formSchema + extra + `}}`
}

func elicitSession(t *testing.T, a *acp.Agent, h acp.SessionHandler, el acp.ElicitationBroker, b acp.PermissionBroker) *acp.Session {
	t.Helper()
	s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: h, Broker: b, Elicitor: el})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return s
}

// The client offers form elicitation and boolean config options.
func TestInitializeOffersElicitationAndBooleanOptions(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	var init struct {
		Params struct {
			ClientCapabilities struct {
				Fs          map[string]bool `json:"fs"`
				Elicitation struct {
					Form *struct{} `json:"form"`
					URL  *struct{} `json:"url"`
				} `json:"elicitation"`
				Session struct {
					ConfigOptions struct {
						Boolean *struct{} `json:"boolean"`
					} `json:"configOptions"`
				} `json:"session"`
			} `json:"clientCapabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal(a.InitLines[0], &init); err != nil {
		t.Fatalf("initialize line %s: %v", a.InitLines[0], err)
	}
	c := init.Params.ClientCapabilities
	if c.Elicitation.Form == nil || c.Elicitation.URL != nil {
		t.Fatalf("elicitation capabilities wrong: %s", a.InitLines[0])
	}
	if c.Session.ConfigOptions.Boolean == nil {
		t.Fatalf("boolean config options not offered: %s", a.InitLines[0])
	}
	if !c.Fs["readTextFile"] || !c.Fs["writeTextFile"] {
		t.Fatalf("fs capabilities lost: %s", a.InitLines[0])
	}
}

// An accepted form reaches the agent with its values; the broker sees the
// schema decoded and raw, in the agent's order.
func TestElicitationAccepted(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	var got *acp.ElicitationRequest
	el := elicitFunc(func(_ context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
		got = req
		return acp.ElicitationAnswer{Action: acp.ElicitAccept, Content: json.RawMessage(`{"name":"Ann","count":3,"ok":true,"color":"g"}`)}, nil
	})
	s := elicitSession(t, a, h, el, nil)
	res := prompt(t, s, acptest.Steps(elicitStep(""), `{"message":" done"}`))
	if res.StopReason != acp.StopEndTurn {
		t.Fatalf("result %+v", res)
	}
	if want := `elicit: accept {"name":"Ann","count":3,"ok":true,"color":"g"} done`; h.Text() != want {
		t.Fatalf("agent saw %q, want %q", h.Text(), want)
	}
	if got == nil || got.Message != "Tell me" || got.SessionID != s.ID() || got.Mode != "form" {
		t.Fatalf("request %+v", got)
	}
	if p := got.Schema.Properties["count"]; p.Type != "integer" || *p.Maximum != 5 || string(p.Default) != "2" {
		t.Fatalf("count property %+v", p)
	}
	if !strings.HasPrefix(string(got.RequestedSchema), `{"type":"object","properties":{"name"`) {
		t.Fatalf("raw schema not kept in order: %s", got.RequestedSchema)
	}
}

// Decline goes through; without a broker the request is declined; a
// URL-mode request (not offered) is refused as invalid params.
func TestElicitationDeclineAndRefusals(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	el := elicitFunc(func(context.Context, *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
		return acp.ElicitationAnswer{Action: acp.ElicitDecline, Content: json.RawMessage(`{"name":"leak"}`)}, nil
	})
	s := elicitSession(t, a, h, el, nil)
	prompt(t, s, acptest.Steps(elicitStep("")))
	if h.Text() != "elicit: decline" {
		t.Fatalf("agent saw %q", h.Text())
	}

	h2 := newRecorder()
	s2 := elicitSession(t, a, h2, nil, nil)
	prompt(t, s2, acptest.Steps(elicitStep(""), `{"elicit":{"message":"open","mode":"url"}}`,
		`{"elicit":{"message":"bad","requestedSchema":{"type":"object","properties":{"f":{"type":"object"}}}}}`))
	want := "elicit: decline" + "elicit error: -32602 invalid elicitation/create params: mode \"url\" is not supported (this client offers form mode only)" +
		"elicit error: -32602 invalid elicitation/create params: requestedSchema: property \"f\": type \"object\" is not one a form can ask"
	if h2.Text() != want {
		t.Fatalf("agent saw %q\nwant     %q", h2.Text(), want)
	}
}

// An answer that does not match the schema is never sent: the agent gets
// cancel, not the values.
func TestElicitationInvalidAnswerNotSent(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	el := elicitFunc(func(context.Context, *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
		return acp.ElicitationAnswer{Action: acp.ElicitAccept, Content: json.RawMessage(`{"name":"Ann","count":9}`)}, nil
	})
	s := elicitSession(t, a, h, el, nil)
	prompt(t, s, acptest.Steps(elicitStep("")))
	if h.Text() != "elicit: cancel" {
		t.Fatalf("agent saw %q", h.Text())
	}
}

// Cancelling the turn answers a waiting elicitation "cancel".
func TestElicitationCancelledWithTheTurn(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	var s *acp.Session
	el := elicitFunc(func(ctx context.Context, _ *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
		go s.Cancel()
		<-ctx.Done()
		return acp.ElicitationAnswer{Action: acp.ElicitAccept, Content: json.RawMessage(`{"name":"late","count":1}`)}, nil
	})
	s = elicitSession(t, a, h, el, nil)
	res := prompt(t, s, acptest.Steps(elicitStep(""), `{"message":" after"}`))
	if res.StopReason != acp.StopCancelled {
		t.Fatalf("result %+v", res)
	}
	if !strings.HasPrefix(h.Text(), "elicit: cancel") {
		t.Fatalf("agent saw %q", h.Text())
	}
}

// The agent's $/cancel_request withdraws a waiting elicitation or
// permission request: the broker's context ends and the request is
// answered as a cancelled one; the turn goes on.
func TestAgentWithdrawsRequests(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRawTap()
	var causes []error
	var mu sync.Mutex
	el := elicitFunc(func(ctx context.Context, _ *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
		<-ctx.Done()
		mu.Lock()
		causes = append(causes, context.Cause(ctx))
		mu.Unlock()
		return acp.ElicitationAnswer{Action: acp.ElicitAccept, Content: json.RawMessage(`{"name":"late","count":1}`)}, nil
	})
	b := brokerFunc(func(ctx context.Context, _ *acp.PermissionRequest) (acp.PermissionDecision, error) {
		<-ctx.Done()
		mu.Lock()
		causes = append(causes, context.Cause(ctx))
		mu.Unlock()
		return acp.PermissionDecision{OptionID: "allow"}, nil
	})
	s := elicitSession(t, a, h, el, b)
	res := prompt(t, s, acptest.Steps(elicitStep(`,"withdraw":true`), `{"message":" | "}`,
		`{"permission":{"withdraw":true}}`))
	if res.StopReason != acp.StopCancelled { // the test agent ends a turn on a cancelled permission
		t.Fatalf("result %+v", res)
	}
	if h.Text() != "elicit: cancel | permission: cancelled" {
		t.Fatalf("agent saw %q", h.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	// A request withdrawn before its turn in the queue is answered
	// without asking; one being asked sees why its context ended.
	for _, c := range causes {
		if c == nil || !strings.Contains(c.Error(), "$/cancel_request") {
			t.Fatalf("cause %v", c)
		}
	}
	if n := len(h.lines("in $/cancel_request")); n != 2 {
		t.Fatalf("the transcript tap saw %d $/cancel_request lines: %v", n, h.lines("in "))
	}
}

// A call mnote gives up on is withdrawn with $/cancel_request; the
// agent's late answer is recorded and not reported as unexpected.
func TestGivingUpWithdrawsTheRequest(t *testing.T) {
	a := startAgent(t, `{"loadSession":true,"load":[{"waitForCancel":true}]}`, acp.Options{})
	h := newRawTap()
	s := elicitSession(t, a, newRecorder(), nil, nil)
	id := s.ID()
	s.Close()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sent := h.await(func(dir acp.Dir, kind, _ string) bool { return dir == acp.DirOut && kind == "session/load" })
	go func() {
		<-sent
		cancel() // the user gave up
	}()
	_, err := a.LoadSession(ctx, id, acp.SessionConfig{Cwd: t.TempDir(), Handler: h})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("load: %v", err)
	}
	withdrawn := <-h.await(func(dir acp.Dir, kind, _ string) bool { return dir == acp.DirOut && kind == acp.MethodCancelRequest })
	if !strings.Contains(withdrawn, `"requestId":`) {
		t.Fatalf("cancel line %s", withdrawn)
	}
	late := <-h.await(func(dir acp.Dir, kind, _ string) bool { return dir == acp.DirIn && kind == acp.KindResponse })
	if !strings.Contains(late, "-32800") { // the test agent's answer to a withdrawn load
		t.Fatalf("late answer %s", late)
	}
	h.recorder.mu.Lock()
	bad := h.bad
	h.recorder.mu.Unlock()
	if len(bad) != 0 {
		t.Fatalf("late answer reported as bad: %v", bad)
	}
}

// additionalDirectories go to an agent that offers them, and only to one.
func TestAdditionalDirectories(t *testing.T) {
	dirs := []string{"/srv/one", "/srv/two"}
	for _, offer := range []bool{true, false} {
		sc := `{"additionalDirectories":false}`
		if offer {
			sc = `{"additionalDirectories":true,"loadSession":true}`
		}
		a := startAgent(t, sc, acp.Options{})
		h := newRawTap()
		s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: h, AdditionalDirectories: dirs})
		if err != nil {
			t.Fatal(err)
		}
		line := <-h.await(func(dir acp.Dir, kind, _ string) bool { return dir == acp.DirOut && kind == "session/new" })
		has := strings.Contains(line, `"additionalDirectories":["/srv/one","/srv/two"]`)
		if has != offer {
			t.Fatalf("offer=%v: session/new %s", offer, line)
		}
		if offer {
			s.Close()
			h2 := newRawTap()
			if _, err := a.LoadSession(t.Context(), s.ID(), acp.SessionConfig{Cwd: t.TempDir(), Handler: h2, AdditionalDirectories: dirs}); err != nil {
				t.Fatal(err)
			}
			load := <-h2.await(func(dir acp.Dir, kind, _ string) bool { return dir == acp.DirOut && kind == "session/load" })
			if !strings.Contains(load, `"additionalDirectories":["/srv/one","/srv/two"]`) {
				t.Fatalf("session/load %s", load)
			}
		}
	}
}

// session/list returns the agent's sessions of a folder.
func TestListSessions(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	dir := t.TempDir()
	var ids []string
	for range 2 {
		s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: dir, Handler: newRecorder()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
	}
	if _, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: newRecorder()}); err != nil {
		t.Fatal(err)
	}
	got, err := a.ListSessions(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].SessionID != ids[0] || got[1].SessionID != ids[1] || got[0].Cwd != dir {
		t.Fatalf("listed %+v, want %v in %s", got, ids, dir)
	}
}

// ValidateContent refuses every value that does not fit the schema.
func TestValidateContent(t *testing.T) {
	req, err := acp.ParseElicitation(json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{` +
		`"name":{"type":"string","minLength":2,"maxLength":4},` +
		`"code":{"type":"string","pattern":"^[a-z]+$"},` +
		`"mail":{"type":"string","format":"email"},` +
		`"day":{"type":"string","format":"date"},` +
		`"site":{"type":"string","format":"uri"},` +
		`"n":{"type":"integer","minimum":1,"maximum":5},` +
		`"x":{"type":"number","minimum":-1.5,"maximum":1.5},` +
		`"ok":{"type":"boolean"},` +
		`"pick":{"type":"string","enum":["a","b"]},` +
		`"color":{"type":"string","oneOf":[{"const":"r","title":"Red"}]},` +
		`"tags":{"type":"array","items":{"type":"string","enum":["p","q","s"]},"minItems":1,"maxItems":2}},` +
		`"required":["name"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	good := `{"name":"Ann","code":"abc","mail":"a@b.org","day":"2026-12-01","site":"https://x.org/","n":5,"x":-1.5,"ok":false,"pick":"b","color":"r","tags":["p","s"]}`
	if err := req.Schema.ValidateContent(json.RawMessage(good)); err != nil {
		t.Fatalf("good answer refused: %v", err)
	}
	for content, want := range map[string]string{
		`{}`:                                  "name: required",
		`{"name":null}`:                       "name: required",
		`{"name":"A"}`:                        "name: minLength",
		`{"name":"Annette"}`:                  "name: maxLength",
		`{"name":"日本語"}`:                      "",
		`{"name":5}`:                          "name: type",
		`{"name":"Ann","code":"AB"}`:          "code: pattern",
		`{"name":"Ann","mail":"nope"}`:        "mail: format",
		`{"name":"Ann","day":"1/2/26"}`:       "day: format",
		`{"name":"Ann","site":"x.org"}`:       "site: format",
		`{"name":"Ann","n":0}`:                "n: min",
		`{"name":"Ann","n":6}`:                "n: max",
		`{"name":"Ann","n":2.5}`:              "n: type",
		`{"name":"Ann","n":"2"}`:              "n: type",
		`{"name":"Ann","x":1.6}`:              "x: max",
		`{"name":"Ann","ok":"true"}`:          "ok: type",
		`{"name":"Ann","pick":"c"}`:           "pick: choice",
		`{"name":"Ann","color":"Red"}`:        "color: choice",
		`{"name":"Ann","tags":[]}`:            "tags: minItems",
		`{"name":"Ann","tags":["p","q","s"]}`: "tags: maxItems",
		`{"name":"Ann","tags":["p","p"]}`:     "tags: choice",
		`{"name":"Ann","tags":["z"]}`:         "tags: choice",
		`{"name":"Ann","tags":"p"}`:           "tags: type",
		`{"name":"Ann","extra":1}`:            "extra: unknown",
		`[1]`:                                 "the answer is not an object",
	} {
		err := req.Schema.ValidateContent(json.RawMessage(content))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", content, got, want)
		}
	}
}

// A form of more than 100 fields is refused before anyone is asked.
func TestElicitationFieldCap(t *testing.T) {
	var props []string
	for i := range 101 {
		props = append(props, `"f`+strings.Repeat("x", i)+`":{"type":"boolean"}`)
	}
	_, err := acp.ParseElicitation(json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}`))
	if err == nil || !strings.Contains(err.Error(), "at most 100") {
		t.Fatalf("101 fields: %v", err)
	}
}
