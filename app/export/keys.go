package export

import (
	"math"
	"strings"
)

// How a key is told from a word: by its prefix, its shape and its entropy.
//
// Most providers' keys start with a prefix of their own (sk-, ghp_, AIza,
// …) but a prefix alone is not proof: "sk-learn-compatible", the CSS class
// "sk-button-primary" and "hf_hub_download" start like keys. What follows
// the prefix of a real key is generated: a long unbroken run of characters
// drawn at random. generated decides on such a body with two tests. Its
// Shannon entropy (bits per character, from the character frequencies)
// must reach minKeyEntropy, which rejects placeholders and repetitions
// ("xxxx…", "abab…", "0000…"). And its shape must be a key's: the
// character classes mixed as random draws mix them (both cases and
// digits; or digits and letters each in several runs; or hex digits only,
// 32 or more), or a run too long to be a word. Entropy alone cannot do it:
// hex keys have at most 4 bits a character and English run together about
// as much, so the shape decides, the threshold stays low. The rules whose
// prefix is distinctive enough (sk-ant-, github_pat_, AKIA…, xoxb-, …)
// need no check.
//
// A hex string without a prefix (a git SHA, a sha256 sum, a trace id) is
// never taken for a key: it is not a secret, and transcripts cite them.

// minKeyEntropy is the least Shannon entropy (bits per character) of a
// generated key body: below it a body repeats a few characters
// ("xxxxxxxx…", "abababab…", "00000000…"), as placeholders do.
const minKeyEntropy = 3.0

// shannon returns the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// generated reports whether a key body (what follows a provider's prefix)
// looks generated rather than written. Separators (- _ . ~ + / =) are
// ignored; of the rest, at least minLen characters with an entropy of
// minKeyEntropy are needed, and one of:
//   - hex digits only, mixing digits and letters, 32 or more: a hex key;
//   - upper and lower case letters and digits (base62, base64);
//   - digits and letters of one case, each in two runs or more
//     ("a1b2…"; "release2024" has one run of each), or 40 or more in one
//     run (no separator);
//   - letters only: 40 or more in one run, or both cases in balance (a
//     quarter of each at least: camelCase names have few capitals).
//     Entropy cannot tell random lowercase letters from English run
//     together (both have about 3.9 bits a character at these lengths),
//     so it is the length: a 40-letter word after "sk-" is a key, 40
//     letters of hyphenated words are not.
func generated(body string, minLen int) bool {
	var b strings.Builder
	sep := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '-', '_', '.', '~', '+', '/', '=':
			sep = true
		default:
			if !isWordByte(c) {
				return false
			}
			b.WriteByte(c)
		}
	}
	t := b.String()
	if len(t) < minLen || len(t) == 0 {
		return false
	}
	h := shannon(t)
	if h < minKeyEntropy {
		return false
	}
	var upper, lower, digits, hexLetters, digitRuns, letterRuns int
	prevDigit, prevLetter := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		isDigit := c >= '0' && c <= '9'
		isLetter := !isDigit
		switch {
		case isDigit:
			digits++
		case c >= 'A' && c <= 'Z':
			upper++
		default:
			lower++
		}
		if c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			hexLetters++
		}
		if isDigit && !prevDigit {
			digitRuns++
		}
		if isLetter && !prevLetter {
			letterRuns++
		}
		prevDigit, prevLetter = isDigit, isLetter
	}
	letters := upper + lower
	switch {
	case digits > 0 && letters > 0 && hexLetters == letters && (upper == 0 || lower == 0) && len(t) >= 32:
		return true
	case digits > 0 && upper > 0 && lower > 0:
		return true
	case digits > 0 && letters > 0:
		return digitRuns >= 2 && letterRuns >= 2 || len(t) >= 40 && !sep
	case digits == 0:
		balanced := upper*4 >= letters && lower*4 >= letters
		return len(t) >= 40 && !sep || balanced
	}
	return false // digits only: a number
}

// generatedAfter is a rule's check that the match after a prefix of n
// bytes is generated (minLen characters or more).
func generatedAfter(n, minLen int) func(s string, m []int) bool {
	return func(s string, m []int) bool { return !generated(s[m[0]+n:m[1]], minLen) }
}

// skKey reports whether the body of an "sk-" token (after "sk-") is a
// key: OpenAI's (sk-proj-, sk-svcacct-, sk-admin-, legacy sk- and 48
// base62 characters, all holding "T3BlbkFJ" or generated), and the many
// providers that copied the shape: DeepSeek and DashScope/Qwen (32 hex),
// Moonshot/Kimi (48 base62), SiliconFlow (48 lowercase letters),
// OpenRouter (sk-or-v1- and 64 hex), sk-live-/sk-test- keys. Each run
// between separators is judged: a key holds one generated run of 20
// characters or more, names joined by hyphens hold none.
//
// A body is a key if any part of it that starts after a separator is one,
// so that a kept token holds no key further on ("sk-x-sk-<key>"): the
// rule skips the anchors inside a kept token.
func skKey(body string) bool {
	if strings.Contains(body, "T3BlbkFJ") { // base64 of "openai"
		return true
	}
	start := 0
	for i := 0; i <= len(body); i++ {
		if i < len(body) && body[i] != '-' && body[i] != '_' {
			continue
		}
		seg := body[start:i]
		switch {
		case len(seg) >= 20 && generated(seg, 20):
			return true
		case seg == "proj" || seg == "svcacct" || seg == "admin":
			if generated(body[min(i+1, len(body)):], 32) {
				return true
			}
		}
		start = i + 1
	}
	return false
}

// redactHexDotKeys hides keys shaped "<32 hex>.<16 or more base62>" (Zhipu
// GLM's "id.secret" API keys), which have no prefix: the id must be a
// whole word of 32 hex digits and the secret generated.
func redactHexDotKeys(s string) string {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '.')
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		start := i - 32
		if start < last || start < 0 || start > 0 && isWordByte(s[start-1]) || !isHex(s[start:i]) {
			continue
		}
		end := i + 1
		for end < len(s) && isAlnum(s[end]) {
			end++
		}
		if end < len(s) && isWordByte(s[end]) || end-i-1 < 16 || !generated(s[i+1:end], 16) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Redacted)
		last, from = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
