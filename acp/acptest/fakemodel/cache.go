package fakemodel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// CacheUnit is the prompt cache's storage unit in tokens: DeepSeek keeps a
// prompt's prefix in units of 64 tokens, and a request hits only whole
// units (a prefix shorter than 64 tokens is never cached).
const CacheUnit = 64

// promptText is the text a request's prompt is cached as, in the order
// DeepSeek's chat template renders it: the leading system message(s),
// then the tool definitions (as the request sent them, in its order),
// then every other message with its role, content, tool calls and tool
// call id. A change anywhere ends the cached prefix there.
func promptText(req *chatRequest) string {
	var b strings.Builder
	msg := func(m *message) {
		b.WriteString("<|")
		b.WriteString(m.Role)
		b.WriteString("|>")
		b.Write(m.Content)
		for _, c := range m.ToolCalls {
			b.WriteString("<|call|>")
			b.WriteString(c.Function.Name)
			b.WriteString(c.Function.Arguments)
		}
		if m.ToolCallID != "" {
			b.WriteString("<|id|>")
			b.WriteString(m.ToolCallID)
		}
		b.WriteByte('\n')
	}
	i := 0
	for ; i < len(req.Messages) && req.Messages[i].Role == "system"; i++ {
		msg(&req.Messages[i])
	}
	for _, t := range req.Tools {
		b.WriteString("<|tool|>")
		b.WriteString(t.Function.Name)
		b.WriteByte(' ')
		b.WriteString(t.Function.Description)
		b.Write(t.Function.Parameters)
		b.WriteByte('\n')
	}
	for ; i < len(req.Messages); i++ {
		msg(&req.Messages[i])
	}
	return b.String()
}

// Tokens splits text the way the simulated cache counts it: a maximal run
// of ASCII letters and digits is one token, and every other character
// (a space, a punctuation mark, a CJK character, a byte of invalid UTF-8)
// is one token of its own. It is deterministic and close enough in count
// to a BPE tokenizer for prompts of code and English for the hit rate to
// mean what DeepSeek's would.
func Tokens(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		if j == i {
			_, n := utf8.DecodeRuneInString(text[i:])
			j = i + n
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// prefixCache is the simulated prompt cache: the chained hash of every
// whole 64-token unit of every prompt seen, so a prompt's hit is the run
// of its leading units that an earlier prompt had, unit for unit.
type prefixCache struct {
	units  map[uint64]struct{}
	recent []string // the last prompts' text, to say where a prompt left the cache
	file   string   // where it is kept, when it outlives the server
}

// cacheState is a prefixCache as kept in its file.
type cacheState struct {
	Units  []uint64 `json:"units"`
	Recent []string `json:"recent"`
}

// load reads the cache kept in file (none yet: empty) and keeps it there.
func (c *prefixCache) load(file string) error {
	c.file = file
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fakemodel: cache file: %w", err)
	}
	var st cacheState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("fakemodel: cache file %s: %w", file, err)
	}
	c.units = make(map[uint64]struct{}, len(st.Units))
	for _, u := range st.Units {
		c.units[u] = struct{}{}
	}
	c.recent = st.Recent
	return nil
}

// save writes the cache to its file (atomically: a temporary file renamed).
func (c *prefixCache) save() error {
	if c.file == "" {
		return nil
	}
	// The file keeps the last few prompts only: they serve to say where
	// the next process's first prompt parted, and agents' prompts run to
	// hundreds of KiB each.
	st := cacheState{Units: make([]uint64, 0, len(c.units)), Recent: c.recent[max(0, len(c.recent)-savedRecentPrompts):]}
	for u := range c.units {
		st.Units = append(st.Units, u)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("fakemodel: cache file: %w", err)
	}
	tmp := c.file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("fakemodel: cache file: %w", err)
	}
	if err := os.Rename(tmp, c.file); err != nil {
		return fmt.Errorf("fakemodel: cache file: %w", err)
	}
	return nil
}

const (
	maxCacheUnits      = 1 << 20
	maxRecentPrompt    = 32
	savedRecentPrompts = 8
)

// lookup counts a prompt's tokens and cached tokens, remembers its units,
// and says where it parted from the earlier prompt it shares the longest
// prefix with, when it changed that prompt's text rather than extending it.
func (c *prefixCache) lookup(text string) (tokens, hit int, diverged string) {
	toks := Tokens(text)
	if c.units == nil {
		c.units = map[uint64]struct{}{}
	}
	var chain uint64
	hitting := true
	for u := 0; u+CacheUnit <= len(toks); u += CacheUnit {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], chain)
		h.Write(b[:])
		for _, t := range toks[u : u+CacheUnit] {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		chain = h.Sum64()
		if _, ok := c.units[chain]; ok && hitting {
			hit += CacheUnit
		} else {
			hitting = false
		}
		if len(c.units) < maxCacheUnits {
			c.units[chain] = struct{}{}
		}
	}
	diverged = c.divergence(text)
	c.recent = append(c.recent, text)
	if len(c.recent) > maxRecentPrompt {
		c.recent = c.recent[1:]
	}
	return len(toks), hit, diverged
}

// divergence finds the recent prompt sharing the longest prefix with text
// and, when text does not simply extend it, shows both sides of the
// first difference: "@tokens N: …old… ⇒ …new…".
func (c *prefixCache) divergence(text string) string {
	best, at := -1, 0
	for i, p := range c.recent {
		if n := commonPrefix(p, text); n > at || best < 0 {
			best, at = i, n
		}
	}
	if best < 0 || at >= len(c.recent[best]) || at >= len(text) {
		return ""
	}
	// Parting before a whole cache unit is a different prompt (a title
	// request beside the conversation), not a rewrite of a cached one.
	shared := len(Tokens(text[:at]))
	if shared < CacheUnit {
		return ""
	}
	old := c.recent[best]
	from := max(0, at-60)
	show := func(s string) string {
		return strings.ToValidUTF8(s[from:min(len(s), at+60)], "?")
	}
	return fmt.Sprintf("@token %d: %q ⇒ %q", shared, show(old), show(text))
}

// usage computes the token counts of a reply, with the prompt cache
// figures of the simulated prefix cache.
func (s *Server) usage(req *chatRequest, rep reply) (Usage, string) {
	text := promptText(req)
	s.mu.Lock()
	tokens, hit, diverged := s.cache.lookup(text)
	err := s.cache.save()
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("fakemodel: the prompt cache is not kept", "err", err)
	}

	var u Usage
	u.PromptTokens = int64(tokens)
	u.PromptCacheHitTokens = int64(hit)
	u.PromptCacheMissTokens = u.PromptTokens - u.PromptCacheHitTokens
	u.PromptTokensDetails.CachedTokens = u.PromptCacheHitTokens
	u.CompletionTokensDetails.ReasoningTokens = int64(len(rep.reasoning)/4 + 1)
	out := len(rep.text) + len(rep.reasoning)
	if rep.call != nil {
		out += len(rep.call.Function.Name) + len(rep.call.Function.Arguments)
	}
	u.CompletionTokens = int64(out/4 + 1)
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u, diverged
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
