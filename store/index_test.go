package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"mnote/thread"
)

// testEnv is a data folder with an open index.
type testEnv struct {
	p  Paths
	ix *Index
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	t.Setenv("MNOTE_HOME", t.TempDir())
	p := DefaultPaths()
	if err := p.Ensure(); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenIndex(t.Context(), p.DB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &testEnv{p: p, ix: ix}
}

// liveSession writes a session the way the app does: Writer + live
// Indexer with hints, Sync and Flush at turn ends.
func (e *testEnv) liveSession(t *testing.T, id, title, ws string, turns int, v *vocab) {
	t.Helper()
	w, err := CreateTranscript(e.p.TranscriptPath(id), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := e.ix.NewIndexer(id)
	x.SetPath(e.p.TranscriptPath(id))
	writeSession(t, w, x, id, title, ws, turns, v)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
}

func (e *testEnv) list(t *testing.T) []SessionRow {
	t.Helper()
	rows, err := e.ix.ListSessions(t.Context(), ListOptions{Limit: 1000, IncludeDeleted: true})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

type indexDump struct {
	Sessions []SessionRow
	Bindings map[string][]Binding
	Turns    map[string][]Turn
	FTS      []string
}

func (e *testEnv) dump(t *testing.T) indexDump {
	t.Helper()
	ctx := t.Context()
	d := indexDump{Sessions: e.list(t), Bindings: map[string][]Binding{}, Turns: map[string][]Turn{}}
	for _, s := range d.Sessions {
		b, err := e.ix.Bindings(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		d.Bindings[s.ID] = b
		tr, err := e.ix.Turns(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		d.Turns[s.ID] = tr
	}
	rows, err := e.ix.r.QueryContext(ctx, `SELECT session_id, turn, role, entry, text FROM messages_fts ORDER BY session_id, entry`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid, role, entry, text string
		var turn int
		rows.Scan(&sid, &turn, &role, &entry, &text)
		d.FTS = append(d.FTS, fmt.Sprintf("%s/%d/%s/%s: %s", sid, turn, role, entry, text))
	}
	return d
}

func TestLiveIndexMatchesRebuild(t *testing.T) {
	e := newEnv(t)
	v := newVocab(1, 3000)
	for i := range 5 {
		e.liveSession(t, fmt.Sprintf("s%d", i), fmt.Sprintf("Session %d", i), "/ws/"+string(rune('a'+i%2)), 2+i, v)
	}
	live := e.dump(t)
	if len(live.Sessions) != 5 {
		t.Fatalf("%d sessions", len(live.Sessions))
	}
	s := live.Sessions[0]
	if s.Turns == 0 || s.Messages != 3*s.Turns || s.ToolCalls != s.Turns || s.Runtime != "claude-code" ||
		s.Status != "ready" || s.LastStopReason != "end_turn" || s.IndexedBytes != s.TranscriptBytes || s.IndexedBytes == 0 {
		t.Errorf("session row %+v", s)
	}
	if b := live.Bindings[s.ID]; len(b) != 1 || b[0].AgentSessionID != "agent-"+s.ID || b[0].Status != "ready" || b[0].How != HowNew {
		t.Errorf("bindings %+v", b)
	}
	if tr := live.Turns[s.ID]; len(tr) != s.Turns || tr[0].InputTokens != 1200 || tr[0].OutputTokens != 300 || tr[0].StopReason != "end_turn" {
		t.Errorf("turns %+v", tr)
	}

	// Delete the database: a rebuild gives the same rows.
	e.ix.Close()
	for _, f := range []string{e.p.DB, e.p.DB + "-wal", e.p.DB + "-shm"} {
		os.Remove(f)
	}
	ix, err := OpenIndex(t.Context(), e.p.DB)
	if err != nil {
		t.Fatal(err)
	}
	e.ix = ix
	defer ix.Close()
	if len(e.list(t)) != 0 {
		t.Fatal("new index not empty")
	}
	var calls int
	if err := ix.Rebuild(t.Context(), e.p.Transcripts, func(done, total int) { calls++ }); err != nil {
		t.Fatal(err)
	}
	if calls != 5 {
		t.Errorf("progress called %d times", calls)
	}
	rebuilt := e.dump(t)
	if !reflect.DeepEqual(live, rebuilt) {
		t.Errorf("rebuild differs from live index\nlive:    %+v\nrebuilt: %+v", live.Sessions, rebuilt.Sessions)
	}
	// Rebuilding twice is the same too.
	if err := ix.Rebuild(t.Context(), e.p.Transcripts, nil); err != nil {
		t.Fatal(err)
	}
	if again := e.dump(t); !reflect.DeepEqual(live, again) {
		t.Error("second rebuild differs")
	}
}

func TestReconcile(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	v := newVocab(2, 2000)
	for i := range 3 {
		e.liveSession(t, fmt.Sprintf("r%d", i), "", "/ws", 2, v)
	}
	if n, err := e.ix.Reconcile(ctx, e.p.Transcripts); err != nil || n != 0 {
		t.Fatalf("reconcile of a fresh index: %d, %v", n, err)
	}
	// Append a turn behind the index's back.
	w, err := OpenTranscript(e.p.TranscriptPath("r1"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "r1")
	s.turn = 2
	s.prompt("find the zanzibar notes")
	s.answer("agent_message_chunk", "The zanzibar notes are in notes/travel.md.", 10)
	s.end("end_turn", 10, 20)
	w.Close()
	// A transcript nobody indexed, and one that disappears.
	w, _ = CreateTranscript(e.p.TranscriptPath("new"), WriterOptions{})
	writeSession(t, w, nil, "new", "New one", "/ws", 1, v)
	w.Close()
	os.Remove(e.p.TranscriptPath("r2"))

	n, err := e.ix.Reconcile(ctx, e.p.Transcripts)
	if err != nil || n != 3 {
		t.Fatalf("reconcile: %d, %v", n, err)
	}
	r1, err := e.ix.GetSession(ctx, "r1")
	if err != nil || r1.Turns != 3 {
		t.Fatalf("r1 after reconcile: %+v %v", r1, err)
	}
	if _, err := e.ix.GetSession(ctx, "r2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("r2 still indexed: %v", err)
	}
	if _, err := e.ix.GetSession(ctx, "new"); err != nil {
		t.Error(err)
	}
	hits, err := e.ix.Search(ctx, "zanzibar", 10)
	if err != nil || len(hits) != 2 || hits[0].SessionID != "r1" {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	if n, err := e.ix.Reconcile(ctx, e.p.Transcripts); err != nil || n != 0 {
		t.Errorf("second reconcile: %d, %v", n, err)
	}
}

func TestSearch(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	w, err := CreateTranscript(e.p.TranscriptPath("q"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := e.ix.NewIndexer("q")
	s := newScript(w, "q")
	s.x = x
	s.start("Quoting", "/ws", 1)
	s.prompt(`How do I fix the foo-bar "x" error in café.md?`)
	s.answer("agent_message_chunk", "The foo-bar error comes from a stray quote. Rename the café file; déjà vu.", 9)
	s.toolCall("edit", "Edit café.md", "allow_once")
	s.answer("agent_message_chunk", "Done: the parser now accepts NEAR(a b) and col:value literally.", 9)
	s.end("end_turn", 1, 1)
	w.Close()
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	th, _, _, err := LoadThread(e.p.TranscriptPath("q"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`foo-bar "x`, `"`, `AND`, `OR NOT`, `NEAR(`, `*`, `col:value`, `-`, `^x`, `"unbalanced`, `a"b`, `)`, `{x}`, `+`, ``} {
		if _, err := e.ix.Search(ctx, q, 10); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	cases := []struct {
		q     string
		role  string
		count int
	}{
		{`foo-bar "x`, "user", 1},
		{`foo-bar`, "", 2},
		{`cafe`, "", 2},      // diacritics removed
		{`deja`, "", 1},      // prefix on last token
		{`stray quo`, "", 1}, // prefix
		{`col:value`, "assistant", 1},
		{`NEAR(a`, "assistant", 1},
		{`nothing-here`, "", 0},
	}
	for _, c := range cases {
		hits, err := e.ix.Search(ctx, c.q, 10)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if len(hits) != c.count {
			t.Errorf("%q: %d hits %+v", c.q, len(hits), hits)
			continue
		}
		for _, h := range hits {
			if c.role != "" && h.Role != c.role {
				t.Errorf("%q: role %s", c.q, h.Role)
			}
			if h.SessionID != "q" || h.Title != "Quoting" || h.Turn != 1 || !strings.Contains(h.Snippet, "«") || !strings.Contains(h.Snippet, "»") {
				t.Errorf("%q: hit %+v", c.q, h)
			}
			match := strings.Trim(h.Snippet[strings.Index(h.Snippet, "«")+len("«"):strings.Index(h.Snippet, "»")], " ")
			found := false
			for _, id := range h.Entries {
				ent, ok := th.Entry(id)
				found = found || (ok && strings.Contains(ent.Text, match))
			}
			if !found || h.Entry != h.Entries[0] {
				t.Errorf("%q: no entry of %v in the thread holds the match %q", c.q, h.Entries, match)
			}
		}
	}
	hits, _ := e.ix.Search(ctx, "stray", 10)
	if len(hits) != 1 || !strings.HasPrefix(hits[0].Snippet, "The foo-bar error comes from a «stray» quote. Rename the café file; déjà vu.") {
		t.Errorf("snippet %q", hits[0].Snippet)
	}
}

func TestIndexerStreamingFlush(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	w, _ := CreateTranscript(e.p.TranscriptPath("st"), WriterOptions{})
	defer w.Close()
	x := e.ix.NewIndexer("st")
	s := newScript(w, "st")
	s.x = x
	s.start("", "/ws", 1)
	s.prompt("tell me")
	s.answer("agent_message_chunk", "alpha beta ", 5)
	if err := x.Flush(); err != nil { // mid-message, as the 500 ms flush does
		t.Fatal(err)
	}
	if hits, _ := e.ix.Search(ctx, "alpha", 10); len(hits) != 1 {
		t.Fatalf("streaming message not searchable: %+v", hits)
	}
	s.answer("agent_message_chunk", "gamma delta", 5)
	s.end("end_turn", 1, 1)
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	hits, _ := e.ix.Search(ctx, "alpha", 10)
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "gamma delta") {
		t.Fatalf("after end: %+v", hits)
	}
	if n := e.count(t, "SELECT count(*) FROM messages_fts"); n != 2 {
		t.Errorf("%d FTS rows, want 2", n)
	}
	info := x.Info()
	if info.Messages != 2 || info.Turns != 1 || info.Status != "ready" {
		t.Errorf("info %+v", info)
	}
}

func (e *testEnv) count(t *testing.T, q string) int {
	var n int
	if err := e.ix.r.QueryRowContext(t.Context(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTrashRoundTrip(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	v := newVocab(3, 1000)
	e.liveSession(t, "keep", "Keep", "/ws", 1, v)
	e.liveSession(t, "del", "Delete me", "/ws", 1, v)

	// Busy while a writer holds it.
	w, err := OpenTranscript(e.p.TranscriptPath("del"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := MoveToTrash(e.p, "del"); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("trash while open: %v", err)
	}
	w.Close()
	for _, bad := range []string{"", "..", "a/b", "../x"} {
		if err := MoveToTrash(e.p, bad); err == nil {
			t.Errorf("id %q accepted", bad)
		}
	}
	if err := MoveToTrash(e.p, "del"); err != nil {
		t.Fatal(err)
	}
	if err := e.ix.Remove(ctx, "del"); err != nil {
		t.Fatal(err)
	}
	if rows := e.list(t); len(rows) != 1 || rows[0].ID != "keep" {
		t.Fatalf("after trash: %+v", rows)
	}
	if hits, _ := e.ix.Search(ctx, "Delete", 10); len(hits) != 0 {
		t.Errorf("trashed session searchable")
	}
	if n := e.count(t, "SELECT count(*) FROM turns WHERE session_id = 'del'"); n != 0 {
		t.Errorf("turns left: %d", n)
	}
	fi, err := os.Stat(e.p.TrashPath("del"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trash file: %v %v", fi, err)
	}
	// Listed as deleted when indexed from the trash.
	if err := e.ix.ReindexFile(ctx, e.p.TrashPath("del")); err != nil {
		t.Fatal(err)
	}
	if rows, _ := e.ix.ListSessions(ctx, ListOptions{}); len(rows) != 1 {
		t.Errorf("deleted session listed: %+v", rows)
	}
	if rows, _ := e.ix.ListSessions(ctx, ListOptions{IncludeDeleted: true}); len(rows) != 2 || rows[0].Status != StatusDeleted && rows[1].Status != StatusDeleted {
		t.Errorf("IncludeDeleted: %+v", rows)
	}
	// Reconcile keeps a row whose transcript is in the trash.
	if _, err := e.ix.Reconcile(ctx, e.p.Transcripts); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ix.GetSession(ctx, "del"); err != nil {
		t.Errorf("reconcile dropped the trashed row: %v", err)
	}
	// Refuse to overwrite.
	os.WriteFile(e.p.TranscriptPath("del"), []byte{}, 0o600)
	if err := RestoreFromTrash(e.p, "del"); !errors.Is(err, ErrExists) {
		t.Fatalf("restore over existing: %v", err)
	}
	os.Remove(e.p.TranscriptPath("del"))
	if err := RestoreFromTrash(e.p, "del"); err != nil {
		t.Fatal(err)
	}
	if err := e.ix.ReindexFile(ctx, e.p.TranscriptPath("del")); err != nil {
		t.Fatal(err)
	}
	row, err := e.ix.GetSession(ctx, "del")
	if err != nil || row.Status == StatusDeleted || row.Title != "Delete me" || row.TranscriptPath != e.p.TranscriptPath("del") {
		t.Fatalf("restored: %+v %v", row, err)
	}
	if _, err := os.Stat(e.p.TrashPath("del")); !os.IsNotExist(err) {
		t.Errorf("trash copy left: %v", err)
	}
}

func TestMigrationsIdempotent(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.liveSession(t, "m", "Mig", "/ws", 1, newVocab(4, 500))
	if err := e.ix.RememberRule(ctx, Rule{Agent: "codex", Workspace: "/ws", ToolKind: "edit", OptionKind: "allow_always"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		e.ix.Close()
		ix, err := OpenIndex(ctx, e.p.DB)
		if err != nil {
			t.Fatal(err)
		}
		e.ix = ix
		if v, err := ix.SchemaVersion(ctx); err != nil || v != 5 {
			t.Fatalf("version %d %v", v, err)
		}
		if rows := e.list(t); len(rows) != 1 {
			t.Fatalf("rows %+v", rows)
		}
		if ix.Recovered() != "" {
			t.Fatal("recovered a healthy index")
		}
	}
	for _, f := range []string{e.p.DB, e.p.DB + "-wal", e.p.DB + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", f, fi.Mode().Perm(), err)
		}
	}
	e.ix.Close()
}

func TestCorruptDatabaseMovedAside(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.liveSession(t, "c", "Corrupt", "/ws", 2, newVocab(5, 500))
	e.ix.Close()
	for _, f := range []string{e.p.DB + "-wal", e.p.DB + "-shm"} {
		os.Remove(f)
	}
	garbage := []byte(strings.Repeat("this is not a database ", 500))
	if err := os.WriteFile(e.p.DB, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenIndex(ctx, e.p.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e.ix = ix
	aside := ix.Recovered()
	if !strings.HasPrefix(aside, e.p.DB+".corrupt-") {
		t.Fatalf("recovered %q", aside)
	}
	if b, _ := os.ReadFile(aside); string(b) != string(garbage) {
		t.Error("corrupt file not kept")
	}
	if n, err := ix.Reconcile(ctx, e.p.Transcripts); err != nil || n != 1 {
		t.Fatalf("reconcile: %d %v", n, err)
	}
	if row, err := ix.GetSession(ctx, "c"); err != nil || row.Turns != 2 || row.Title != "Corrupt" {
		t.Errorf("rebuilt row %+v %v", row, err)
	}

	// A database whose header is fine but whose pages are damaged.
	ix.Close()
	raw, _ := os.ReadFile(e.p.DB)
	os.Remove(e.p.DB + "-wal")
	os.Remove(e.p.DB + "-shm")
	for i := 100; i < len(raw); i++ {
		raw[i] = 0xA5
	}
	os.WriteFile(e.p.DB, raw, 0o600)
	ix2, err := OpenIndex(ctx, e.p.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if ix2.Recovered() == "" {
		t.Error("damaged pages not detected")
	}
}

func TestRules(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if _, ok, err := e.ix.LookupRule(ctx, "codex", "/ws", "edit"); ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := e.ix.RememberRule(ctx, Rule{Agent: "codex", Workspace: "/ws", ToolKind: "edit", OptionKind: "allow_always"}); err != nil {
		t.Fatal(err)
	}
	if err := e.ix.RememberRule(ctx, Rule{Agent: "codex", Workspace: "/ws", ToolKind: "execute", OptionKind: "reject_always"}); err != nil {
		t.Fatal(err)
	}
	r, ok, err := e.ix.LookupRule(ctx, "codex", "/ws", "edit")
	if !ok || err != nil || r.Decision != "allow" || r.OptionKind != "allow_always" || r.CreatedMs == 0 {
		t.Fatalf("%+v %v %v", r, ok, err)
	}
	if err := e.ix.RememberRule(ctx, Rule{Agent: "codex", Workspace: "/ws", ToolKind: "edit", OptionKind: "reject_always"}); err != nil {
		t.Fatal(err)
	}
	r, _, _ = e.ix.LookupRule(ctx, "codex", "/ws", "edit")
	if r.Decision != "reject" {
		t.Errorf("replaced rule %+v", r)
	}
	if _, ok, _ := e.ix.LookupRule(ctx, "codex", "/other", "edit"); ok {
		t.Error("rule leaked to another workspace")
	}
	rules, _ := e.ix.ListRules(ctx)
	if len(rules) != 2 {
		t.Errorf("rules %+v", rules)
	}
	if err := e.ix.ForgetRule(ctx, "codex", "/ws", "edit"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := e.ix.LookupRule(ctx, "codex", "/ws", "edit"); ok {
		t.Error("forgotten rule still there")
	}
	// Rules survive a rebuild.
	if err := e.ix.Rebuild(ctx, e.p.Transcripts, nil); err != nil {
		t.Fatal(err)
	}
	if rules, _ := e.ix.ListRules(ctx); len(rules) != 1 {
		t.Errorf("after rebuild: %+v", rules)
	}
	// Outbox.
	id, err := e.ix.EnqueueSync(ctx, "s", "upsert", `{"id":"s"}`)
	if err != nil {
		t.Fatal(err)
	}
	e.ix.AckSync(ctx, id, errors.New("offline"))
	items, _ := e.ix.PendingSync(ctx, 10)
	if len(items) != 1 || items[0].Attempts != 1 || items[0].LastError != "offline" {
		t.Errorf("outbox %+v", items)
	}
	e.ix.AckSync(ctx, id, nil)
	if items, _ := e.ix.PendingSync(ctx, 10); len(items) != 0 {
		t.Errorf("outbox after ack %+v", items)
	}
}

func TestRenameAndListOptions(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	v := newVocab(6, 500)
	e.liveSession(t, "a", "A", "/one", 1, v)
	e.liveSession(t, "b", "B", "/two", 1, v)
	if err := e.ix.Rename(ctx, "a", "Renamed"); err != nil {
		t.Fatal(err)
	}
	if err := e.ix.Rename(ctx, "zz", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename missing: %v", err)
	}
	row, _ := e.ix.GetSession(ctx, "a")
	if row.Title != "Renamed" {
		t.Errorf("title %q", row.Title)
	}
	rows, _ := e.ix.ListSessions(ctx, ListOptions{Workspace: "/two"})
	if len(rows) != 1 || rows[0].ID != "b" {
		t.Errorf("workspace filter %+v", rows)
	}
	rows, _ = e.ix.ListSessions(ctx, ListOptions{Limit: 1, Offset: 1})
	if len(rows) != 1 {
		t.Errorf("paging %+v", rows)
	}
}

func TestResumeIndexer(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.liveSession(t, "res", "Resume", "/ws", 2, newVocab(7, 500))
	before, _ := e.ix.GetSession(ctx, "res")
	w, err := OpenTranscript(e.p.TranscriptPath("res"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := e.ix.ResumeIndexer(ctx, e.p.TranscriptPath("res"))
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "res")
	s.x, s.turn = x, 2
	s.prompt("one more question about kumquats")
	s.answer("agent_message_chunk", "Kumquats are small citrus fruits.", 8)
	s.end("end_turn", 5, 5)
	w.Close()
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	live := e.dump(t)
	after := live.Sessions[0]
	if after.Turns != 3 || after.Messages != before.Messages+2 || after.IndexedBytes != after.TranscriptBytes {
		t.Errorf("before %+v\nafter %+v", before, after)
	}
	if err := e.ix.Rebuild(ctx, e.p.Transcripts, nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := e.dump(t); !reflect.DeepEqual(live, rebuilt) {
		t.Errorf("resumed live index differs from rebuild\n%+v\n%+v", live.FTS, rebuilt.FTS)
	}
}

func TestLoadThread(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lt.jsonl")
	w, _ := CreateTranscript(path, WriterOptions{})
	s := newScript(w, "lt")
	s.start("Load me", "/ws", 42)
	s.prompt("first question")
	s.answer("agent_thought_chunk", "thinking hard", 4)
	s.answer("agent_message_chunk", "first answer", 4)
	s.toolCall("edit", "Edit a.md", "reject_once")
	s.update(`{"sessionUpdate":"brand_new_kind","x":1}`)
	s.update(`{"sessionUpdate":"plan","entries":[{"content":"step","priority":"high","status":"pending"}]}`)
	s.end("end_turn", 3, 4)
	s.app(KindTitle, TitleRecord{Title: "Renamed"})
	// A second binding that loads the agent session and replays history
	// the thread already has: dropped.
	s.app(KindRuntimeBound, RuntimeBoundRecord{Binding: 2, Runtime: "codex", AgentSessionID: "codex-1", How: HowLoad})
	s.app(KindReplay, ReplayRecord{Phase: "begin"})
	s.chunk("user_message_chunk", "first question")
	s.chunk("agent_message_chunk", "first answer")
	s.app(KindReplay, ReplayRecord{Phase: "end", Dropped: 2})
	s.prompt("second")
	s.toolCall("execute", "Run tests", "")
	s.raw(DirIn, KindMalformed, q("garbage line"))
	s.end("cancelled", 1, 1)
	w.Close()

	th, info, st, err := LoadThread(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Corrupt != 0 || int64(st.Records) != w.Seq() {
		t.Errorf("stats %+v", st)
	}
	var kinds []string
	for _, e := range th.Entries() {
		kinds = append(kinds, e.Kind)
	}
	// Binding 2 is another agent: a runtime entry says so.
	want := []string{thread.EntryUserMessage, thread.EntryThought, thread.EntryAssistantMessage, thread.EntryToolCall, thread.EntryPlan,
		thread.EntryRuntime, thread.EntryUserMessage, thread.EntryToolCall}
	if !slices.Equal(kinds, want) {
		t.Errorf("entries %v\nwant %v", kinds, want)
	}
	ents := th.Entries()
	if ents[0].Text != "first question" || ents[2].Text != "first answer" || ents[1].Text != "thinking hard" {
		t.Errorf("texts %+v", ents[:3])
	}
	if tc := ents[3].ToolCall; tc == nil || tc.Status != thread.StatusRejected || tc.Decision != "reject_once" || len(tc.Content) == 0 {
		t.Errorf("rejected tool call %+v", tc)
	}
	if rc := ents[5].Runtime; rc == nil || rc.Runtime != "codex" || rc.How != HowLoad {
		t.Errorf("runtime entry %+v", rc)
	}
	if tc := ents[7].ToolCall; tc == nil || tc.Status != thread.StatusCompleted {
		t.Errorf("second tool call %+v", tc)
	}
	if info.ID != "lt" || info.Title != "Renamed" || info.Workspace != "/ws" || info.CreatedMs != 42 || info.Turns != 2 ||
		info.LastStopReason != "cancelled" || len(info.Bindings) != 2 || info.Bindings[1].How != HowLoad ||
		info.Bindings[1].AgentSessionID != "codex-1" || info.Runtime != "codex" || info.Messages != 3 || info.ToolCalls != 2 {
		t.Errorf("info %+v", info)
	}
	snap := th.Snapshot()
	if snap.StopReason != "cancelled" || snap.CurrentModeID != "default" || snap.Usage.SessionTokens["inputTokens"] != 4 {
		t.Errorf("snapshot stop %q mode %q usage %+v", snap.StopReason, snap.CurrentModeID, snap.Usage)
	}
}

func TestOpenIndexContextAndPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "with space?#%")
	ix, err := OpenIndex(context.Background(), filepath.Join(dir, "mnote.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := os.Stat(filepath.Join(dir, "mnote.db")); err != nil {
		t.Fatal(err)
	}
}
