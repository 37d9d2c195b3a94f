package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mnote/thread"
)

type secretCase struct {
	Name    string   `json:"name"`
	In      string   `json:"in"`
	Secrets []string `json:"secrets"`
	Want    string   `json:"want"`
}

func loadJSON[T any](t *testing.T, name string) T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// Every secret of the corpus is gone and the text around it is kept
// exactly.
func TestRedactSecretCorpus(t *testing.T) {
	r := NewRedactor(RedactConfig{})
	cases := loadJSON[[]secretCase](t, "secrets.json")
	if len(cases) < 30 {
		t.Fatalf("corpus has only %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got := r.String(tc.In)
			for _, s := range tc.Secrets {
				if strings.Contains(got, s) {
					t.Errorf("secret %q left in %q", s, got)
				}
			}
			if got != tc.Want {
				t.Errorf("redacted\n got %q\nwant %q", got, tc.Want)
			}
			// Redacting twice changes nothing more.
			if again := r.String(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

// Ordinary text is left alone, hashes included: hex-only strings (git
// SHAs, sha256 sums), UUIDs and ULIDs are not secrets.
func TestRedactNoFalsePositives(t *testing.T) {
	r := NewRedactor(RedactConfig{})
	for _, s := range loadJSON[[]string](t, "plain.json") {
		if got := r.String(s); got != s {
			t.Errorf("changed:\n  in %q\n out %q", s, got)
		}
	}
}

// The values of agents' env vars and the sync token are hidden wherever
// they appear; short values and paths are not treated as secrets.
func TestRedactLiteralSecrets(t *testing.T) {
	r := NewRedactor(RedactConfig{Secrets: []string{"mnote-sync-Zk29xQ", "plainwordsecret", "1", "true", "/usr/local/bin", "mnote-sync-Zk29xQ"}})
	in := "token mnote-sync-Zk29xQ; custom plainwordsecret, DEBUG=1 true /usr/local/bin/agent"
	want := "token [redacted]; custom [redacted], DEBUG=1 true /usr/local/bin/agent"
	if got := r.String(in); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestRedactPaths(t *testing.T) {
	home := "/home/jane"
	r := NewRedactor(RedactConfig{Workspace: "/home/jane/notes", Home: home})
	outside := NewRedactor(RedactConfig{Workspace: "/srv/team-notes", Home: home})
	for _, tc := range []struct {
		r       *Redactor
		in, out string
	}{
		{r, "/home/jane/notes/ideas/a.md", "ideas/a.md"},
		{r, "edited /home/jane/notes/a.md and /home/jane/notes/b.md.", "edited a.md and b.md."},
		{r, "cwd is /home/jane/notes", "cwd is ."},
		{r, `"path":"/home/jane/notes/x.md"`, `"path":"x.md"`},
		{r, "file:///home/jane/notes/x.md", "x.md"},
		{r, "/home/jane/.ssh/config", "~/.ssh/config"},
		{r, "HOME=/home/jane PATH=/home/jane/bin:/usr/bin", "HOME=~ PATH=~/bin:/usr/bin"},
		{r, "/home/jane/notes2/x.md is another folder", "~/notes2/x.md is another folder"},
		{r, "/home/janet/x and /mnt/home/jane/y stay", "/home/janet/x and /mnt/home/jane/y stay"},
		{r, "/etc/hosts and /tmp/x stay", "/etc/hosts and /tmp/x stay"},
		{outside, "/srv/team-notes/a.md and /home/jane/dl/b.pdf", "a.md and ~/dl/b.pdf"},
		{outside, "/srv/team-notes-old/a.md", "/srv/team-notes-old/a.md"},
	} {
		if got := tc.r.String(tc.in); got != tc.out {
			t.Errorf("%q → %q, want %q", tc.in, got, tc.out)
		}
	}
	// A workspace reached through a symlink is recognised in both forms.
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	rl := NewRedactor(RedactConfig{Workspace: link})
	if got := rl.String(real + "/a.md " + link + "/b.md"); got != "a.md b.md" {
		t.Errorf("symlinked workspace: %q", got)
	}
	// "/" is never a root (it would make every path relative).
	if got := NewRedactor(RedactConfig{Workspace: "/", Home: "/"}).String("/etc/x"); got != "/etc/x" {
		t.Errorf("root: %q", got)
	}
}

// Structured JSON: secret keys' values, {"name","value"} pairs, every
// string; key order and numbers kept.
func TestRedactJSON(t *testing.T) {
	r := NewRedactor(RedactConfig{Workspace: "/w/ws"})
	in := `{"z":1,"a":1.50,"env":[{"name":"MY_DB_PASSWORD","value":"hunter2-x"},{"name":"LANG","value":"C.UTF-8"}],` +
		`"headers":[{"name":"Authorization","value":"Basic amFuZTpwdw=="}],"apiKey":"abc-def-ghi","cwd":"/w/ws/sub","note":"see /w/ws/a.md","n":null,"ok":true,"max_tokens":"4096"}`
	want := `{"z":1,"a":1.50,"env":[{"name":"MY_DB_PASSWORD","value":"[redacted]"},{"name":"LANG","value":"C.UTF-8"}],` +
		`"headers":[{"name":"Authorization","value":"[redacted]"}],"apiKey":"[redacted]","cwd":"sub","note":"see a.md","n":null,"ok":true,"max_tokens":"4096"}`
	got, err := r.JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := r.JSON([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated JSON accepted")
	}
}

// fill sets every string reachable from v to text, every json.RawMessage
// to a JSON object holding text, and gives every slice one element and
// every pointer a value, so that a test can see whether any field of a
// snapshot escapes redaction.
func fill(v reflect.Value, text string) {
	rawType := reflect.TypeOf(json.RawMessage(nil))
	switch {
	case v.Type() == rawType:
		b, _ := json.Marshal(map[string]any{"text": text, "nested": []any{text, map[string]string{"path": text}}})
		v.SetBytes(b)
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), text)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), text)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), text)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if v.Type().Key().Kind() == reflect.String {
			val := reflect.New(v.Type().Elem()).Elem()
			fill(val, text)
			m.SetMapIndex(reflect.ValueOf(text), val)
		}
		v.Set(m)
	}
}

// fullSnapshot is a thread with one entry of every kind and every string
// field of it holding text.
func fullSnapshot(text string) thread.Snapshot {
	var snap thread.Snapshot
	fill(reflect.ValueOf(&snap).Elem(), text)
	base := snap.Entries[0]
	snap.Entries = nil
	for _, kind := range []string{thread.EntryUserMessage, thread.EntryAssistantMessage, thread.EntryThought, thread.EntryToolCall, thread.EntryPlan} {
		en := base
		en.Kind = kind
		en.ID = "e-" + kind
		if kind == thread.EntryToolCall {
			tc := *base.ToolCall
			for _, typ := range []string{"content", "diff", "terminal"} {
				c := base.ToolCall.Content[0]
				c.Type = typ
				if typ == "content" {
					c.Content, _ = json.Marshal(thread.ContentBlock{Type: "text", Text: text})
				}
				tc.Content = append(tc.Content, c)
			}
			en.ToolCall = &tc
		}
		snap.Entries = append(snap.Entries, en)
	}
	return snap
}

// A secret and local paths placed in every text field of a thread are
// gone from the redacted snapshot and from every format rendered from it;
// the relative path and the text around them are kept.
func TestRedactEveryField(t *testing.T) {
	const ws, home = "/home/jane/notes", "/home/jane"
	key := "ghp_" + strings.Repeat("A1b2C3d4", 5)
	token := "mnote-sync-token-QwErTy123"
	text := "before " + key + " mid " + ws + "/deep/file.md near " + home + "/.config/x and " + token + " after"
	snap := fullSnapshot(text)
	r := NewRedactor(RedactConfig{Workspace: ws, Home: home, Secrets: []string{token}})
	red, err := r.Snapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(red)
	assertClean(t, "snapshot", string(b), key, token, ws, home)
	if !strings.Contains(string(b), "before [redacted] mid deep/file.md near ~/.config/x and [redacted] after") {
		t.Errorf("redacted text not as expected: %.400s", b)
	}
	// Every field that held text still holds (redacted) text.
	orig, _ := json.Marshal(snap)
	if n, m := strings.Count(string(orig), "before "), strings.Count(string(b), "before [redacted]"); n != m || n < 20 {
		t.Errorf("%d texts before redaction, %d after", n, m)
	}

	sess := Session{ID: "s1", Title: text, Runtime: text, Workspace: ws, CreatedMs: 1}
	o := Options{Redact: true, Redactor: r, IncludeThoughts: true, IncludeToolIO: true}
	for name, render := range map[string]func(*strings.Builder) error{
		"md":   func(w *strings.Builder) error { return Markdown(w, sess, snap, o) },
		"html": func(w *strings.Builder) error { return HTML(w, sess, snap, o) },
		"share": func(w *strings.Builder) error {
			s, err := Share(sess, snap, o)
			if err == nil {
				err = json.NewEncoder(w).Encode(s)
			}
			return err
		},
	} {
		var w strings.Builder
		if err := render(&w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		assertClean(t, name, w.String(), key, token, ws, home)
		if !strings.Contains(w.String(), "deep/file.md") {
			t.Errorf("%s lost the relative path", name)
		}
	}
}

func assertClean(t *testing.T, what, out string, forbidden ...string) {
	t.Helper()
	for _, f := range forbidden {
		if strings.Contains(out, f) {
			i := strings.Index(out, f)
			t.Errorf("%s still holds %q: …%s…", what, f, out[max(0, i-80):min(len(out), i+len(f)+80)])
		}
	}
}

func BenchmarkRedactString(b *testing.B) {
	r := NewRedactor(RedactConfig{Workspace: "/home/jane/notes", Home: "/home/jane", Secrets: []string{"mnote-sync-token-QwErTy123"}})
	// Typical agent output: prose, code, paths, a few assignments.
	chunk := "The function in /home/jane/notes/src/main.go reads the config (max_tokens=4096, timeout: 30s) " +
		"and calls the API with Authorization: Bearer $TOKEN. Commit 3f786850e387550fdab836ed7e6dc881de23001b.\n"
	text := strings.Repeat(chunk, 4096) // ~900 KB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}
