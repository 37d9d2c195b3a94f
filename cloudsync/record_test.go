package cloudsync

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/store"
)

// SessionMeta can only ever carry metadata: its fields are exactly these.
// A new field must be added here on purpose, after checking that it is
// not content (message text, tool I/O, file contents) or a local path
// other than the workspace (which is hashed).
func TestSessionMetaHasNoRoomForContent(t *testing.T) {
	want := []string{"CreatedMs", "ID", "Messages", "Runtime", "Status", "Title", "ToolCalls", "Turns", "UpdatedMs", "Workspace"}
	var got []string
	for f := range reflect.TypeFor[SessionMeta]().Fields() {
		got = append(got, f.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("SessionMeta fields %v, want %v", got, want)
	}
}

func TestRecordFromRow(t *testing.T) {
	home, _ := os.UserHomeDir()
	ws := "/srv/notes/acme"
	row := store.SessionRow{ID: "01jdzq3k5m8xv2n4p6r8t0w2y4", Title: "Fix " + ws + "/plan.md and " + home + "/x", Workspace: ws,
		Runtime: "claude-code", CreatedMs: 1_700_000_000_000, UpdatedMs: 1_700_000_360_000, Status: "running",
		Turns: 3, Messages: 6, ToolCalls: 4, Updates: 99, LastStopReason: "end_turn",
		TranscriptPath: "/home/jane/.local/share/mnote/transcripts/x.jsonl", TranscriptBytes: 1234}
	m := MetaFromRow(row)
	salt := []byte("0123456789abcdef0123456789abcdef")
	rec, err := m.record(salt, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	var fields map[string]any
	json.Unmarshal(b, &fields)
	keys := slices.Sorted(maps.Keys(fields))
	if strings.Join(keys, ",") != "createdAt,id,messages,runtime,status,toolCalls,turns,updatedAt,version,workspaceId" {
		t.Errorf("record fields %v", keys)
	}
	// The workspace id is keyed with the salt: not the plain hash of the
	// path (which anyone guessing the path could confirm), different
	// under another salt, the same for the same salt and path.
	sum := sha256.Sum256([]byte(ws))
	if rec.WorkspaceID == hex.EncodeToString(sum[:]) || len(rec.WorkspaceID) != 64 || strings.Contains(string(b), "/") {
		t.Errorf("record %s", b)
	}
	if WorkspaceID(salt, ws+"/") != rec.WorkspaceID || WorkspaceID([]byte("another salt"), ws) == rec.WorkspaceID {
		t.Errorf("workspace id not a function of (salt, cleaned path)")
	}
	if rec.Status != "running" || rec.Turns != 3 || rec.Messages != 6 || rec.ToolCalls != 4 ||
		!rec.CreatedAt.Equal(time.UnixMilli(1_700_000_000_000)) || !rec.UpdatedAt.Equal(time.UnixMilli(1_700_000_360_000)) {
		t.Errorf("record %+v", rec)
	}
	// Titles only when allowed, with local paths taken out.
	rec, _ = m.record(salt, true, nil)
	if rec.Title != "Fix plan.md and ~/x" {
		t.Errorf("title %q", rec.Title)
	}
	rec, _ = m.record(salt, true, func(s string) string { return strings.ReplaceAll(s, "Fix", "[x]") })
	if rec.Title != "[x] plan.md and ~/x" {
		t.Errorf("filtered title %q", rec.Title)
	}
	m.Title = strings.Repeat("é", 500)
	if rec, _ = m.record(salt, true, nil); len([]rune(rec.Title)) != maxTitleRunes {
		t.Errorf("long title kept %d runes", len([]rune(rec.Title)))
	}
	for status, want := range map[string]string{"running": "running", "failed": "error", "needs_auth": "error", "deleted": "ended", "exited": "idle", "ready": "idle", "new": "idle", "": "idle"} {
		if got := wireStatus(status); got != want {
			t.Errorf("status %q → %q, want %q", status, got, want)
		}
	}
	for rt, want := range map[string]string{"codex": "codex", "": "custom", "/usr/bin/agent": "custom", "my agent --x": "custom"} {
		if got := runtimeLabel(rt); got != want {
			t.Errorf("runtime %q → %q", rt, got)
		}
	}
	for _, id := range []string{"", "a/b", "../x", strings.Repeat("a", 65), "id with space"} {
		if _, err := (SessionMeta{ID: id}).record(nil, false, nil); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Minute}
	prevHi := time.Duration(0)
	for n := 1; n <= 70; n++ {
		lo, hi := b.Delay(n, 0), b.Delay(n, 0.999999)
		d := time.Second
		for i := 1; i < n && d < time.Minute; i++ {
			d *= 2
		}
		d = min(d, time.Minute)
		if lo != d/2 || hi < d-d/1000 || hi > d {
			t.Fatalf("failure %d: delay in [%s, %s], want [%s, %s)", n, lo, hi, d/2, d)
		}
		if hi < prevHi {
			t.Fatalf("failure %d: the delay shrank", n)
		}
		prevHi = hi
	}
	if b.Delay(0, 0) != b.Delay(1, 0) {
		t.Fatal("n < 1")
	}
}

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://cp.example.org/":   "https://cp.example.org",
		"https://cp.example.org/mn": "https://cp.example.org/mn",
		"http://127.0.0.1:8080":     "http://127.0.0.1:8080",
		"http://localhost:9":        "http://localhost:9",
		"http://[::1]:9":            "http://[::1]:9",
	} {
		if got, err := CheckURL(raw); err != nil || got != want {
			t.Errorf("%q → %q, %v", raw, got, err)
		}
	}
	for _, raw := range []string{"http://cp.example.org", "ftp://x", "cp.example.org", "https://u:p@x.org", "https://x.org/?a=1", "https://"} {
		if _, err := CheckURL(raw); err == nil {
			t.Errorf("%q accepted", raw)
		}
	}
}
