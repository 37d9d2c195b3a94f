package fakemodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	got := Tokens("Edit notes/a.md: 缓存 x2\xff!")
	want := []string{"Edit", " ", "notes", "/", "a", ".", "md", ":", " ", "缓", "存", " ", "x2", "\xff", "!"}
	if !slices.Equal(got, want) {
		t.Fatalf("Tokens = %q, want %q", got, want)
	}
	if strings.Join(Tokens("any text, 任意 \x00"), "") != "any text, 任意 \x00" {
		t.Error("tokens do not add up to the text")
	}
}

// words makes n tokens: "w0 w1 ..." is 2n-1 tokens, so n words and spaces
// are counted in pairs.
func words(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prefix)
		b.WriteString(strings.Repeat("x", i%7))
	}
	return b.String()
}

// The simulated cache: whole 64-token units of the longest prefix any
// earlier prompt had; a change ends the hit at the unit it falls in.
func TestPrefixCacheUnits(t *testing.T) {
	var c prefixCache
	base := words("a", 100) // 199 tokens
	if n, hit, _ := c.lookup(base); n != 199 || hit != 0 {
		t.Fatalf("first prompt: %d tokens, %d hit", n, hit)
	}
	// The same prompt again: its 3 whole units (192 tokens) hit.
	if n, hit, d := c.lookup(base); n != 199 || hit != 192 || d != "" {
		t.Fatalf("same prompt: %d tokens, %d hit, diverged %q", n, hit, d)
	}
	// Extended: still the 3 units, and more once the extension fills one.
	if _, hit, d := c.lookup(base + words(" b", 40)); hit != 192 || d != "" {
		t.Fatalf("extended: %d hit, diverged %q", hit, d)
	}
	if _, hit, _ := c.lookup(base + words(" b", 40)); hit != 256 {
		t.Fatalf("extension sent again: %d hit, want 256", hit)
	}
	// A change at token 70 (inside the 2nd unit): only the 1st unit hits,
	// and the divergence is shown.
	toks := Tokens(base)
	toks[70] = "CHANGED"
	_, hit, d := c.lookup(strings.Join(toks, ""))
	if hit != 64 || !strings.Contains(d, "@token 70") || !strings.Contains(d, "CHANGED") {
		t.Fatalf("changed at 70: %d hit, diverged %q", hit, d)
	}
	// A different prompt that parts before a whole unit is no rewrite.
	if _, _, d := c.lookup("a different prompt altogether"); d != "" {
		t.Errorf("a different prompt: diverged %q", d)
	}
	// Shorter than a unit: never cached.
	var c2 prefixCache
	c2.lookup("short prompt")
	if _, hit, _ := c2.lookup("short prompt"); hit != 0 {
		t.Fatalf("short prompt hit %d", hit)
	}
}

// Over HTTP: DeepSeek's usage fields, tool definitions cached ahead of the
// conversation, so reordering the tools costs the whole prompt.
func TestPromptCacheOverHTTP(t *testing.T) {
	srv, err := Start(Script{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tool := func(name string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{
			"name": name, "description": words("desc"+name, 60), "parameters": map[string]any{"type": "object"}}}
	}
	post := func(tools []any, user string) Usage {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"model": "deepseek-v4-flash", "tools": tools, "messages": []any{
			map[string]any{"role": "system", "content": words("sys", 80)},
			map[string]any{"role": "user", "content": user}}})
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Usage Usage `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		u := out.Usage
		if u.PromptCacheHitTokens+u.PromptCacheMissTokens != u.PromptTokens || u.PromptCacheHitTokens%CacheUnit != 0 ||
			u.PromptTokensDetails.CachedTokens != u.PromptCacheHitTokens {
			t.Fatalf("usage %+v", u)
		}
		return u
	}
	ab := []any{tool("a"), tool("b")}
	first := post(ab, "hello")
	if first.PromptCacheHitTokens != 0 || first.PromptTokens < 300 {
		t.Fatalf("first request %+v", first)
	}
	second := post(ab, "another question")
	if second.PromptCacheHitTokens < first.PromptTokens-CacheUnit-5 {
		t.Errorf("same system and tools: %d hit of %d", second.PromptCacheHitTokens, second.PromptTokens)
	}
	swapped := post([]any{tool("b"), tool("a")}, "hello")
	if swapped.PromptCacheHitTokens > 192 { // the system message's units only
		t.Errorf("tools reordered: %d hit, want only the system message's units", swapped.PromptCacheHitTokens)
	}
	reqs := srv.Requests()
	if d := reqs[len(reqs)-1].CacheDiverged; !strings.Contains(d, "<|tool|>b") {
		t.Errorf("reordered tools: diverged %q", d)
	}
}

// With a cache file, a second server finds what the first cached.
func TestCacheFileOutlivesServer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cache.json")
	prompt := func() Usage {
		t.Helper()
		srv, err := Start(Script{}, Options{CacheFile: file})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		body, _ := json.Marshal(map[string]any{"messages": []any{
			map[string]any{"role": "system", "content": words("sys", 200)},
			map[string]any{"role": "user", "content": "hello"}}})
		resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Usage Usage `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Usage
	}
	if u := prompt(); u.PromptCacheHitTokens != 0 {
		t.Fatalf("first server: %+v", u)
	}
	if u := prompt(); u.PromptCacheHitTokens < 384 {
		t.Fatalf("second server with the same cache file: %+v", u)
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Script{}, Options{CacheFile: file}); err == nil {
		t.Fatal("a broken cache file was taken")
	}
}
