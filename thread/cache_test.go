package thread

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// reasonixStatus is the shape of Reasonix 1.38's status notification
// (trimmed), as recorded against the fake model.
func reasonixStatus(turnHit, turnMiss, cumHit, cumMiss int64, ratio string) json.RawMessage {
	return json.RawMessage(`{"schemaVersion":1,"sequence":6,"sessionId":"s1","event":"usage","status":{"state":"running",` +
		`"sandbox":{"mode":"enforce"},"usage":{"turn":{"totalTokens":2583,"promptTokens":2523,"cacheHitTokens":` + mustJSON(turnHit) +
		`,"cacheMissTokens":` + mustJSON(turnMiss) + `,"cacheHitRatio":` + ratio + `,"estimatedCost":null},` +
		`"cumulative":{"cacheHitTokens":` + mustJSON(cumHit) + `,"cacheMissTokens":` + mustJSON(cumMiss) + `,"cacheHitRatio":null}}}}`)
}

func TestReasonixCacheStatus(t *testing.T) {
	th := newTestThread()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "hi"}})
	ch, err := th.ApplyNotification(MethodReasonixStatus, reasonixStatus(1250, 1273, 1250, 1273, "0.49544193420531113"))
	if err != nil || ch != (Change{Op: OpMeta, Kind: MetaUsage}) {
		t.Fatalf("ApplyNotification = %+v, %v", ch, err)
	}
	c := th.Snapshot().Usage.Cache
	if c == nil || c.Turn != (CacheFigures{1250, 1273, 0.49544193420531113}) {
		t.Fatalf("turn figures = %+v", c)
	}
	// No ratio sent: computed from the tokens.
	if c.Session.HitTokens != 1250 || c.Session.MissTokens != 1273 || c.Session.HitRatio < 0.4954 || c.Session.HitRatio > 0.4955 {
		t.Errorf("session figures = %+v", c.Session)
	}
	// A later status replaces the figures; a repeated one counts nothing twice.
	for range 2 {
		if _, err := th.ApplyNotification(MethodReasonixStatus, reasonixStatus(2521, 1341, 2521, 1341, "null")); err != nil {
			t.Fatal(err)
		}
	}
	if c := th.Snapshot().Usage.Cache; c.Session.HitTokens != 2521 || c.Turn.MissTokens != 1341 {
		t.Errorf("after the last status: %+v", c)
	}
	// A new turn starts with no turn figures; the session keeps its own.
	th.AddUserPrompt(nil)
	if c := th.Snapshot().Usage.Cache; c.Turn != (CacheFigures{}) || c.Session.HitTokens != 2521 {
		t.Errorf("new turn: %+v", c)
	}
	// Reads are copies.
	s := th.Snapshot()
	s.Usage.Cache.Session.HitTokens = 1
	if th.Snapshot().Usage.Cache.Session.HitTokens != 2521 {
		t.Error("a snapshot shares the cache figures with the thread")
	}
}

func TestApplyNotificationOthers(t *testing.T) {
	th := newTestThread()
	// A status without usage (the phase events) keeps nothing.
	ch, err := th.ApplyNotification(MethodReasonixStatus, json.RawMessage(`{"status":{"state":"idle"}}`))
	if err != nil || ch.Op != "" || th.Snapshot().Usage.Cache != nil {
		t.Errorf("status without usage: %+v, %v", ch, err)
	}
	if _, err := th.ApplyNotification(MethodReasonixStatus, json.RawMessage(`{"status":{"usage":"lots"}}`)); !errors.Is(err, ErrInvalidUpdate) {
		t.Errorf("malformed status: %v", err)
	}
	if _, err := th.ApplyNotification("_zed.dev/whatever", json.RawMessage(`{}`)); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown notification: %v", err)
	}
	// Negative or absurd figures are not trusted.
	if _, err := th.ApplyNotification(MethodReasonixStatus, reasonixStatus(-5, 10, 0, 0, "7")); err != nil {
		t.Fatal(err)
	}
	if c := th.Snapshot().Usage.Cache; c.Turn != (CacheFigures{0, 10, 0}) {
		t.Errorf("clamped figures: %+v", c.Turn)
	}
}

// Each turn's figures are kept for the window's trend: the last report of
// a turn counts, turns without figures are skipped, and copies are copies.
func TestCacheTurns(t *testing.T) {
	th := newTestThread()
	// Before the first prompt (a replayed status): not a turn.
	th.ApplyNotification(MethodReasonixStatus, reasonixStatus(64, 36, 64, 36, "null"))
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "one"}})
	th.ApplyNotification(MethodReasonixStatus, reasonixStatus(100, 100, 100, 100, "null"))
	th.ApplyNotification(MethodReasonixStatus, reasonixStatus(300, 100, 300, 100, "null"))
	th.AddUserPrompt(nil) // turn 2 reports nothing
	th.AddUserPrompt(nil)
	th.ApplyNotification(MethodReasonixStatus, reasonixStatus(900, 100, 1200, 200, "null"))
	got := th.Snapshot().Usage.Cache.Turns
	if len(got) != 2 || got[0].Turn != 1 || got[0].HitTokens != 300 || got[0].HitRatio != 0.75 ||
		got[1].Turn != 3 || got[1].HitRatio != 0.9 {
		t.Fatalf("turns = %+v", got)
	}
	s := th.Snapshot()
	s.Usage.Cache.Turns[0].HitTokens = 1
	if th.Snapshot().Usage.Cache.Turns[0].HitTokens != 300 {
		t.Error("a snapshot shares the turns with the thread")
	}
	b, _ := json.Marshal(th.Snapshot().Usage.Cache)
	if want := `"turns":[{"turn":1,"hitTokens":300,"missTokens":100,"hitRatio":0.75},{"turn":3,`; !strings.Contains(string(b), want) {
		t.Errorf("JSON %s, want %s…", b, want)
	}
	// Bounded.
	for range MaxCacheTurns + 5 {
		th.AddUserPrompt(nil)
		th.ApplyNotification(MethodReasonixStatus, reasonixStatus(1, 1, 1, 1, "null"))
	}
	if n := len(th.Snapshot().Usage.Cache.Turns); n != MaxCacheTurns {
		t.Errorf("%d turns kept, want %d", n, MaxCacheTurns)
	}
}
