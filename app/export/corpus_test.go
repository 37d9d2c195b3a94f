package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"mnote/cloudsync"
	"mnote/cloudsync/cloudsynctest"
	"mnote/store"
	"mnote/thread"
)

// Keys drawn at random from each provider's alphabet are keys, whatever
// their characters happen to be; names and identifiers that start like
// keys are not.
func TestSKKeyShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const (
		hex    = "0123456789abcdef"
		base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		lower  = "abcdefghijklmnopqrstuvwxyz"
		base36 = "abcdefghijklmnopqrstuvwxyz0123456789"
	)
	for _, shape := range []struct {
		name, prefix, alphabet string
		n                      int
	}{
		{"DeepSeek/DashScope hex", "", hex, 32},
		{"OpenRouter", "or-v1-", hex, 64},
		{"Moonshot/legacy OpenAI base62", "", base62, 48},
		{"SiliconFlow lowercase", "", lower, 48},
		{"live lowercase and digits", "live-", base36, 40},
		{"project key", "proj-", base62 + "-_", 120},
	} {
		for range 2000 {
			body := shape.prefix + draw(shape.alphabet, shape.n)
			if !skKey(body) {
				t.Errorf("%s: sk-%s is not taken for a key", shape.name, body)
			}
		}
	}
	for _, body := range []string{"learn-compatible-transformers", "button-primary-large-hover", "learn-compatible-api-wrappers-for-transformers",
		"someVeryLongCamelCaseIdentifierName", "release-2024-candidate-3-final-build", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"00000000000000000000000000000000", "12345678901234567890123456789012", "abababababababababababababababab",
		"thequickbrownfoxjumpsoverthelazydog", "transformers2024modelsandpipelines",
		"admin-panel-configuration-settings-for-large-enterprise-teams", "proj-notes-app-frontend-component-library-v2"} {
		if skKey(body) {
			t.Errorf("sk-%s is taken for a key", body)
		}
	}
}

// A token that is not a key is looked at once, not once for every "sk-"
// in it: a hostile agent's "sk-sk-sk-…" took minutes to export. (Counted
// in allocations, which grew with every anchor, not in time.)
func TestSKKeyLinear(t *testing.T) {
	r := NewRedactor(RedactConfig{})
	in := "x " + strings.Repeat("sk-", 5000) + " y"
	var out string
	if n := testing.AllocsPerRun(1, func() { out = r.String(in) }); n > 100 {
		t.Errorf("%v allocations for %d bytes", n, len(in))
	}
	if out != in {
		t.Errorf("changed: %.80q", out)
	}
	// A key after a kept part of the same token is still found.
	key := "sk-4f1c2e9a7b3d5f8e0a6c1b4d7e9f2a3c"
	if got := r.String("see sk-learn-" + key + " here"); got != "see [redacted] here" {
		t.Errorf("nested key: %q", got)
	}
}

// E-mail addresses are hidden only when asked; look-alikes stay.
func TestRedactEmails(t *testing.T) {
	r := NewRedactor(RedactConfig{Emails: true})
	for _, tc := range []struct{ in, want string }{
		{"write to jane.doe+notes@example.com today", "write to [email] today"},
		{"<mailto:j_smith@mail.example.co.uk>", "<mailto:[email]>"},
		{"张三的邮箱是zhang.san@example.cn，谢谢", "张三的邮箱是[email]，谢谢"},
		{"Signed-off-by: A. Dev <a.dev@kernel.org>", "Signed-off-by: A. Dev <[email]>"},
		{"two: a@b.io,c@d.io.", "two: [email],[email]."},
		{"git clone git@github.com:acme/notes.git", "git clone git@github.com:acme/notes.git"},
		{"lodash@4.17.21 @types/node user@localhost @jane", "lodash@4.17.21 @types/node user@localhost @jane"},
		{"https://jane@example.com/x and logo@2x.png", "https://jane@example.com/x and logo@2x.png"},
		{"postgres://app:s3cr3t-P4ss@db.internal:5432/notes", "postgres://app:[redacted]@db.internal:5432/notes"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("%q → %q, want %q", tc.in, got, tc.want)
		}
		if got := r.String(r.String(tc.in)); got != tc.want {
			t.Errorf("%q twice → %q", tc.in, got)
		}
	}
	const addr = "jane.doe@example.com"
	if got := NewRedactor(RedactConfig{}).String(addr); got != addr {
		t.Errorf("without Emails: %q", got)
	}
	if got := NewRedactor(RedactConfig{}).WithEmails(true).String(addr); got != RedactedEmail {
		t.Errorf("WithEmails: %q", got)
	}
}

// distinctive is the middle half of a secret: what must not be found in
// an output. Cut short, it is still the bulk of the secret.
func distinctive(secret string) string {
	return secret[len(secret)/4 : len(secret)*3/4]
}

// norm keeps the letters and digits of s: markup (Markdown emphasis, HTML
// entities, JSON escapes) cannot then hide a leak nor fake a loss.
func norm(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// htmlText is the text of an HTML page (tags dropped, entities decoded).
func htmlText(t *testing.T, page []byte) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

// jsonStrings is every string (keys included) of the JSON documents in
// data, one a line, joined by spaces.
func jsonStrings(t *testing.T, data []byte) string {
	t.Helper()
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte(' ')
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				b.WriteString(k)
				b.WriteByte(' ')
				walk(x)
			}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("not JSON: %v: %.200s", err, sc.Bytes())
		}
		walk(v)
	}
	return b.String()
}

// corpusTranscript writes a transcript in which every text of the corpora
// is a prompt, an agent message, a thought and a tool call's title, input
// and output.
func corpusTranscript(t *testing.T, path, ws string, texts []string) {
	t.Helper()
	w, err := store.CreateTranscript(path, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	app := func(kind string, v any) {
		if _, err := w.AppendJSON(store.DirApp, kind, v); err != nil {
			t.Fatal(err)
		}
	}
	update := func(u map[string]any) {
		if _, err := w.AppendJSON(store.DirIn, store.KindSessionUpdate, map[string]any{"jsonrpc": "2.0", "method": "session/update",
			"params": map[string]any{"sessionId": "ta-1", "update": u}}); err != nil {
			t.Fatal(err)
		}
	}
	app(store.KindSession, store.SessionRecord{ID: "s-corpus", Workspace: ws, CreatedMs: 1732950000000})
	for i, text := range texts {
		app(store.KindTurnStarted, store.TurnStartedRecord{Turn: i + 1})
		app(store.KindPrompt, store.PromptRecord{Turn: i + 1, Text: text})
		update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": text}})
		update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
		update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": fmt.Sprintf("t%d", i), "title": text, "kind": "execute",
			"status": "completed", "rawInput": map[string]any{"command": text}, "rawOutput": map[string]any{"output": text},
			"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": text}}}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// The whole corpus through every way a session leaves the machine: no
// secret of secrets.json survives in a Markdown, HTML or JSONL export, a
// published share or a synced title, and every text of plain.json does.
// E-mail addresses are gone from shares and titles, and kept in exports
// unless asked.
func TestCorpusEveryOutput(t *testing.T) {
	cases := loadJSON[[]secretCase](t, "secrets.json")
	plain := loadJSON[[]string](t, "plain.json")
	const email = "jane.doe@example.com"
	var secrets, texts []string
	for _, c := range cases {
		secrets = append(secrets, c.Secrets...)
		texts = append(texts, c.In)
	}
	texts = append(texts, plain...)
	texts = append(texts, "mail me at "+email+" please")

	home := t.TempDir()
	p := store.Paths{ConfigFile: filepath.Join(home, "config", "config.json"), DataDir: filepath.Join(home, "data"),
		Transcripts: filepath.Join(home, "data", "transcripts")}
	if err := os.MkdirAll(p.Transcripts, 0o700); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(home, "notes")
	tp := p.TranscriptPath("s-corpus")
	corpusTranscript(t, tp, ws, texts)
	th, _, _, err := store.LoadThread(tp)
	if err != nil {
		t.Fatal(err)
	}
	snap := th.Snapshot()
	if n := countKind(snap, thread.EntryToolCall); n != len(texts) {
		t.Fatalf("%d tool calls in the thread, want %d", n, len(texts))
	}

	cp := cloudsynctest.New(t)
	sy, err := cloudsync.Open(cloudsync.Options{Paths: p, Manual: true, TitleFilter: must(TitleRedactor(p)).String})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sy.Close() })
	ctx := t.Context()
	token := cp.AddUser("ann")
	if err := sy.Configure(ctx, cp.URL, &token, true); err != nil {
		t.Fatal(err)
	}
	if err := sy.Enable(ctx); err != nil {
		t.Fatal(err)
	}

	r, err := RedactorFor(p, ws)
	if err != nil {
		t.Fatal(err)
	}
	sess := Session{ID: "s-corpus", Title: strings.Join(texts[:3], " "), Runtime: "test", Workspace: ws, CreatedMs: 1}
	o := Options{Redact: true, Redactor: r, IncludeThoughts: true, IncludeToolIO: true}
	outputs := map[string]string{}
	var buf bytes.Buffer
	if err := Markdown(&buf, sess, snap, o); err != nil {
		t.Fatal(err)
	}
	outputs["md"] = buf.String()
	buf.Reset()
	if err := HTML(&buf, sess, snap, o); err != nil {
		t.Fatal(err)
	}
	outputs["html"] = htmlText(t, buf.Bytes())
	outputs["html (raw)"] = buf.String()
	buf.Reset()
	f, err := os.Open(tp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := JSONL(&buf, f, r); err != nil {
		t.Fatal(err)
	}
	outputs["jsonl"] = jsonStrings(t, buf.Bytes())
	outputs["jsonl (raw)"] = buf.String()

	shot, err := Share(sess, snap, Options{Redactor: r, IncludeThoughts: true, IncludeToolIO: true})
	if err != nil {
		t.Fatal(err)
	}
	meta := cloudsync.SessionMeta{ID: "s-corpus", Runtime: "test", Workspace: ws, CreatedMs: 1, UpdatedMs: 2}
	if _, err := sy.Publish(ctx, shot, meta, time.Time{}); err != nil {
		t.Fatal(err)
	}
	// One synced session a text: a title is cut to 200 characters.
	for i, text := range texts {
		m := meta
		m.ID, m.Title, m.UpdatedMs = fmt.Sprintf("s-%d", i), text, int64(10+i)
		if err := sy.Enqueue(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := sy.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	var shares, titles bytes.Buffer
	for _, req := range cp.Requests() {
		switch {
		case req.Method == "POST" && strings.HasPrefix(req.Path, "/v1/shares"):
			shares.Write(req.Body)
			shares.WriteByte('\n')
		case req.Method == "PUT" && strings.HasPrefix(req.Path, "/v1/sessions/"):
			titles.Write(req.Body)
			titles.WriteByte('\n')
		}
	}
	if shares.Len() == 0 || titles.Len() == 0 {
		t.Fatalf("nothing published (%d bytes) or synced (%d bytes): %d requests", shares.Len(), titles.Len(), len(cp.Requests()))
	}
	outputs["share"] = jsonStrings(t, shares.Bytes())
	outputs["titles"] = jsonStrings(t, titles.Bytes())
	outputs["sent (raw)"] = string(cp.Sent())

	for name, out := range outputs {
		n := norm(out)
		for _, s := range secrets {
			if mid := distinctive(s); strings.Contains(out, mid) || strings.Contains(n, norm(mid)) {
				t.Errorf("%s: the secret %q is left", name, s)
			}
		}
		if strings.HasSuffix(name, "(raw)") {
			continue
		}
		for _, text := range plain {
			if !strings.Contains(n, norm(text)) {
				t.Errorf("%s: the plain text %q is not kept", name, text)
			}
		}
		hasEmail := strings.Contains(out, email)
		if wantEmail := name != "share" && name != "titles"; hasEmail != wantEmail {
			t.Errorf("%s: holds the e-mail address: %v, want %v", name, hasEmail, wantEmail)
		}
	}

	// Asked for, an export hides e-mail addresses as well.
	buf.Reset()
	o.RedactEmails = ptr(true)
	if err := Markdown(&buf, sess, snap, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), email) || !strings.Contains(buf.String(), "mail me at "+RedactedEmail) {
		t.Errorf("md export with RedactEmails keeps the address")
	}
	// And a share can keep them.
	kept, err := Share(sess, snap, Options{Redactor: r, RedactEmails: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(kept); !strings.Contains(string(b), email) {
		t.Errorf("a share with RedactEmails false lost the address")
	}
}

func countKind(snap thread.Snapshot, kind string) int {
	n := 0
	for _, en := range snap.Entries {
		if en.Kind == kind {
			n++
		}
	}
	return n
}
