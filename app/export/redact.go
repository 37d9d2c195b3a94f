package export

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret the Redactor finds.
const Redacted = "[redacted]"

// minSecretLen is the shortest literal secret (RedactConfig.Secrets) that is
// hidden: shorter values ("1", "true", "dev") would blank ordinary words all
// over an export, and are not credentials anyway.
const minSecretLen = 8

// RedactConfig says what a Redactor hides besides the secret shapes it
// always knows.
type RedactConfig struct {
	// Workspace is the session's workspace folder (absolute). Paths inside
	// it become workspace-relative ("notes/a.md"; the folder itself ".").
	Workspace string
	// Home is the user's home folder; it becomes "~" ("~/.ssh/config").
	Home string
	// Secrets are literal values to hide wherever they appear: the values
	// of the environment variables configured for agents, the sync token.
	// Values shorter than 8 bytes and absolute paths are ignored.
	Secrets []string
}

// DefaultRedactConfig is the configuration for a session's workspace with
// the current user's home folder.
func DefaultRedactConfig(workspace string, secrets ...string) RedactConfig {
	home, _ := os.UserHomeDir()
	return RedactConfig{Workspace: workspace, Home: home, Secrets: secrets}
}

// A Redactor removes secrets and local paths from text. It is safe for
// concurrent use.
//
// What it hides, in this order:
//  1. the literal secrets of its RedactConfig;
//  2. private key PEM blocks (a block cut short is hidden to its last
//     base64 line);
//  3. passwords in URLs (scheme://user:PASSWORD@host keeps the user);
//  4. token shapes: OpenAI sk-…/sk-proj-…, Anthropic sk-ant-…, GitHub
//     ghp_/gho_/ghu_/ghs_/ghr_/github_pat_…, AWS access key ids (AKIA…,
//     ASIA…) and — in a text holding one — the 40-character secret keys
//     beside them, Slack xox?-…/xapp-… tokens and webhook paths, Google
//     AIza…, Stripe, Hugging Face, GitLab and npm tokens, JWTs;
//  5. Authorization headers and Bearer tokens (the scheme word is kept);
//  6. assignments whose name ends in a secret word (password, passwd, pwd,
//     pass, passphrase, secret, token, credential(s), signature, sig, or
//     key after api/access/secret/private/…): NAME=value in env files,
//     shell and URL queries, name: value in YAML, "name": "value" in JSON
//     text, and in structured JSON (Redactor.JSON) the string value of
//     such a key, or the "value" beside such a "name";
//  7. paths: the workspace folder and then the home folder (also their
//     symlink-resolved forms), only where a whole path component matches.
//
// It deliberately keeps: hashes that are hex only (git SHAs, sha256 sums),
// UUIDs, ULIDs, numbers, names such as max_tokens or token_count (the name
// must end in the secret word), prose mentioning passwords or tokens
// without an assignment, assignments whose value is a reference ($VAR,
// ${VAR}, %VAR%, a call, env lookups), true/false/null, empty values and
// absolute paths, and paths outside the workspace and home folder.
type Redactor struct {
	secrets []string // longest first
	roots   []pathRoot
}

type pathRoot struct {
	dir  string // cleaned, no trailing slash
	repl string // what the folder itself becomes: "." or "~"
	rel  bool   // inside: "rest" (workspace) instead of repl+"/rest" (home)
}

// NewRedactor makes a Redactor.
func NewRedactor(c RedactConfig) *Redactor {
	r := &Redactor{}
	for _, s := range c.Secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen || filepath.IsAbs(s) || strings.HasPrefix(s, "~/") || slices.Contains(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	add := func(dir, repl string, rel bool) {
		for _, d := range pathForms(dir) {
			if !slices.ContainsFunc(r.roots, func(p pathRoot) bool { return p.dir == d }) {
				r.roots = append(r.roots, pathRoot{dir: d, repl: repl, rel: rel})
			}
		}
	}
	// The workspace first: inside both, a path is workspace-relative.
	add(c.Workspace, ".", true)
	add(c.Home, "~", false)
	// Longest first, so a folder inside another is matched before it.
	slices.SortStableFunc(r.roots, func(a, b pathRoot) int { return len(b.dir) - len(a.dir) })
	return r
}

// pathForms returns dir cleaned and symlink-resolved (both when they
// differ); nothing for "" or "/".
func pathForms(dir string) []string {
	if dir == "" || !filepath.IsAbs(dir) {
		return nil
	}
	dir = filepath.Clean(dir)
	if len(dir) <= 1 {
		return nil
	}
	out := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir && len(real) > 1 {
		out = append(out, real)
	}
	return out
}

// String returns s with secrets and local paths hidden.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	s = redactShapes(s)
	return r.paths(s)
}

// rule is one secret shape: where a match can start (anchors), a regexp
// matched from there, the submatch to hide and an optional check that
// keeps look-alikes.
//
// Go's regexp has no DFA, so an unanchored search costs a lot on long
// texts. Instead each rule finds its anchors (lowercase literals) with
// strings.Index in the lowercased text and runs its regexp, anchored, only
// from those positions, on a window of the text after it.
type rule struct {
	name    string
	anchors []string // lowercase literals a match starts with
	word    bool     // an anchor must start a word (be preceded by a non-word byte)
	onLower bool     // match the lowercased text (case-insensitive); checks see the original
	// multiline rules may match far beyond the anchor (PEM blocks).
	multiline bool
	aws       bool // an AWS access key id: its secret key may be near
	re        *regexp.Regexp
	// group is the submatch to hide: 0 the whole match, -1 the first
	// submatch after the first that matched (for alternatives).
	group int
	keep  func(s string, m []int) bool // true: leave this match alone
	// after, when set, is a cheap check of the text after an anchor
	// (in[i:]) before the regexp runs.
	after func(in string, i int) bool
	mask  uint64 // the ids of its anchors in the scanner (set by newAnchors)
}

// window is how far past its anchor a match is first looked for; a match
// that reaches the window's end is looked for again in the whole rest.
const window = 4096

// secretWords are the words that may end a secret's name (lowercase); the
// assignment rules start at one and secretName decides on the whole name.
var secretWordList = []string{"password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey",
	"credential", "credentials", "signature", "sig", "key", "cookie"}

// separatorNext reports whether in[i:] starts with an assignment: an
// optional closing quote, blanks, then ':' or '='.
func separatorNext(in string, i int) bool {
	if i < len(in) && (in[i] == '"' || in[i] == '\'') {
		i++
	}
	for i < len(in) && (in[i] == ' ' || in[i] == '\t') {
		i++
	}
	return i < len(in) && (in[i] == ':' || in[i] == '=')
}

// spaceNext reports whether in[i:] starts with white space.
func spaceNext(in string, i int) bool {
	return i < len(in) && (in[i] == ' ' || in[i] == '\t' || in[i] == '\n' || in[i] == '\r')
}

const secretWordPattern = `password|passwd|pwd|passphrase|pass|secret|token|apikey|credentials?|signature|sig|key|cookie`

func anchored(pattern string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + pattern + `)`) }

// secretRules are the rules and the scanner of their anchors, made on
// first use (compiling them costs every headless command 0.5 MB and a
// millisecond otherwise).
var secretRules = sync.OnceValues(func() ([]rule, *anchorScanner) {
	rules := newRules()
	return rules, newAnchors(rules)
})

func newRules() []rule {
	return []rule{
		{name: "private key", anchors: []string{"-----begin"}, multiline: true,
			re: anchored(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)},
		{name: "private key (cut short)", anchors: []string{"-----begin"}, multiline: true,
			re: anchored(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+:[^\n\\]*))*`)},
		{name: "URL password", anchors: []string{"://"},
			re:    anchored(`://[^\s:/?#@"'<>\[\]]*:([^\s/?#@"'<>]+)@`),
			group: 1},
		{name: "Anthropic key", anchors: []string{"sk-ant-"}, word: true,
			re: anchored(`sk-ant-[A-Za-z0-9_\-]{16,}`)},
		{name: "OpenAI key", anchors: []string{"sk-"}, word: true,
			re:   anchored(`sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}`),
			keep: func(s string, m []int) bool { return !randomLooking(s[m[0]+3 : m[1]]) }},
		{name: "GitHub token", anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, word: true,
			re: anchored(`(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
		{name: "GitLab token", anchors: []string{"glpat-"}, word: true,
			re: anchored(`glpat-[A-Za-z0-9_\-]{20,}`)},
		{name: "AWS access key id", anchors: []string{"akia", "asia", "abia", "acca"}, word: true, aws: true,
			re: anchored(`(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`)},
		{name: "Slack token", anchors: []string{"xox", "xapp-"}, word: true,
			re: anchored(`(?:xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,})`)},
		{name: "Slack webhook", anchors: []string{"hooks.slack.com/"},
			re: anchored(`hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9/_\-]+)`), group: 1},
		{name: "Google API key", anchors: []string{"aiza"}, word: true,
			re: anchored(`AIza[0-9A-Za-z_\-]{35}`)},
		{name: "Stripe key", anchors: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_"}, word: true,
			re: anchored(`(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`)},
		{name: "Hugging Face token", anchors: []string{"hf_"}, word: true,
			re:   anchored(`hf_[A-Za-z0-9]{30,}`),
			keep: func(s string, m []int) bool { return !randomLooking(s[m[0]+3 : m[1]]) }},
		{name: "npm token", anchors: []string{"npm_"}, word: true,
			re: anchored(`npm_[A-Za-z0-9]{36}\b`)},
		{name: "JWT", anchors: []string{"eyj"}, word: true,
			re: anchored(`eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*`)},
		{name: "Authorization header", after: separatorNext, anchors: []string{"authorization"}, word: true, onLower: true,
			re:    anchored(`authorization["']?\s*[:=]\s*["']?((?:basic|bearer|token|digest|bot|apikey|key)\s+)?([^\s"',;\[]+)`),
			group: 2, keep: func(s string, m []int) bool { return m[2] < 0 && !tokenLooking(s[m[4]:m[5]]) }},
		{name: "Bearer token", after: spaceNext, anchors: []string{"bearer"}, word: true, onLower: true,
			re:    anchored(`bearer\s+([a-z0-9._~+/\-]*[a-z0-9_~+/\-]=*)`),
			group: 1, keep: func(s string, m []int) bool { return !tokenLooking(s[m[2]:m[3]]) }},
		// Assignments start at the secret word that ends the name; nameAt
		// finds the whole name.
		{name: "JSON secret field", after: separatorNext, anchors: secretWordList, onLower: true,
			re:    anchored(`(` + secretWordPattern + `)"\s*:\s*"((?:[^"\\\n]|\\.)*)"`),
			group: 2, keep: func(s string, m []int) bool {
				name, start := nameAt(s, m[2], m[3])
				return start == 0 || s[start-1] != '"' || !secretName(name)
			}},
		{name: "quoted assignment", after: separatorNext, anchors: secretWordList, onLower: true,
			re:    anchored(`(` + secretWordPattern + `)[ \t]*(?::=|=|:)[ \t]*(?:"([^"\n]*)"|'([^'\n]*)')`),
			group: -1, keep: func(s string, m []int) bool { name, _ := nameAt(s, m[2], m[3]); return !secretName(name) }},
		{name: "assignment", after: separatorNext, anchors: secretWordList, onLower: true,
			re:    anchored(`(` + secretWordPattern + `)[ \t]*(?:=|:)[ \t]*([^\s"'&;,#<>(){}\[\]|?` + "`" + `]+)(\(?)`),
			group: 2, keep: func(s string, m []int) bool {
				name, _ := nameAt(s, m[2], m[3])
				return !secretName(name) || m[7] > m[6]
			}},
	}
}

// nameAt returns the name that ends with the word s[lo:hi] (the name
// characters before it included) and where it starts.
func nameAt(s string, lo, hi int) (string, int) {
	for lo > 0 && isNameByte(s[lo-1]) {
		lo--
	}
	return s[lo:hi], lo
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// redactShapes hides the secret shapes (see Redactor), rule by rule. The
// anchors of all rules are found in one pass (anchorScanner); most texts
// hold none and are done after it.
func redactShapes(s string) string {
	rules, anchors := secretRules()
	lower := asciiLower(s)
	hits := anchors.scan(lower, nil)
	if len(hits) == 0 {
		return s
	}
	for i := range rules {
		ru := &rules[i]
		out := ru.apply(s, lower, hits, anchors)
		if out == s {
			continue
		}
		if ru.aws {
			out = redactAWSSecrets(out)
		}
		s, lower = out, asciiLower(out)
		hits = anchors.scan(lower, hits[:0])
	}
	return s
}

// asciiLower lowercases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// apply hides the rule's submatch in every match in s (lower is s
// lowercased).
func (ru *rule) apply(s, lower string, hits []anchorHit, anchors *anchorScanner) string {
	var cands [][2]int // position, anchor length
	for _, h := range hits {
		if ru.mask&(1<<h.id) == 0 {
			continue
		}
		p, n := int(h.pos), len(anchors.words[h.id])
		if (!ru.word || p == 0 || !isWordByte(lower[p-1])) && (ru.after == nil || ru.after(lower, p+n)) {
			cands = append(cands, [2]int{p, n})
		}
	}
	if cands == nil {
		return s
	}
	slices.SortFunc(cands, func(a, b [2]int) int { return a[0] - b[0] })
	in := s
	if ru.onLower {
		in = lower
	}
	var b strings.Builder
	last, next, tried := 0, 0, -1
	for _, c := range cands {
		p := c[0]
		if p < next || p == tried {
			continue
		}
		tried = p
		m := ru.match(in, p)
		if m == nil || ru.keep != nil && ru.keep(s, m) {
			continue
		}
		next = max(m[1], p+1)
		lo, hi := m[0], m[1]
		switch {
		case ru.group > 0:
			lo, hi = m[2*ru.group], m[2*ru.group+1]
		case ru.group < 0:
			lo = -1
			for g := 2; 2*g < len(m); g++ {
				if m[2*g] >= 0 {
					lo, hi = m[2*g], m[2*g+1]
					break
				}
			}
		}
		if lo < last || hi <= lo || s[lo:hi] == Redacted || ru.group != 0 && plainValue(s[lo:hi]) {
			continue
		}
		b.WriteString(s[last:lo])
		b.WriteString(Redacted)
		last = hi
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// match runs the rule's regexp from in[p:] and returns the submatch
// indexes in in, or nil.
func (ru *rule) match(in string, p int) []int {
	end := len(in)
	if !ru.multiline {
		end = min(end, p+window)
	}
	m := ru.re.FindStringSubmatchIndex(in[p:end])
	if m != nil && m[1] == end-p && end < len(in) {
		m = ru.re.FindStringSubmatchIndex(in[p:]) // it may go on
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += p
		}
	}
	return m
}

// redactAWSSecrets hides standalone 40-character base64 words in a text
// that holds an AWS access key id. A word must mix upper and lower case
// and digits (or / and +), so hex hashes such as git SHAs stay.
func redactAWSSecrets(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isBase64Byte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64Byte(s[j]) {
			j++
		}
		if isAWSSecret(strings.TrimRight(s[i:j], "=")) {
			b.WriteString(s[last:i])
			b.WriteString(Redacted)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '+' || c == '='
}

func isAWSSecret(w string) bool {
	if len(w) != 40 {
		return false
	}
	var up, low, other bool
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		default:
			other = true
		}
	}
	return up && low && other
}

// randomLooking reports whether a key body looks generated: it holds a
// digit and both upper and lower case letters ("sk-learn-compatible-api"
// does not).
func randomLooking(s string) bool {
	var up, low, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return up && low && digit
}

// tokenLooking reports whether the word after "Bearer" is a credential:
// 8+ characters with a digit or a symbol, or 20+ of mixed case ("bearer
// instruments" is prose).
func tokenLooking(s string) bool {
	if len(s) < 8 {
		return false
	}
	var up, low, digit, sym bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			digit = true
		default:
			sym = true
		}
	}
	return digit || sym || (up && low && len(s) >= 20)
}

// secretWords end a secret's name; keyWords come before "key" in one.
var (
	secretWords = map[string]bool{"password": true, "passwd": true, "pwd": true, "pass": true, "passphrase": true,
		"secret": true, "token": true, "apikey": true, "credential": true, "credentials": true,
		"signature": true, "sig": true, "cookie": true, "privatekey": true, "accesskey": true, "secretkey": true}
	keyWords = map[string]bool{"api": true, "access": true, "secret": true, "private": true, "signing": true,
		"encryption": true, "master": true, "client": true, "account": true, "service": true, "subscription": true,
		"license": true, "auth": true, "app": true}
)

// secretName reports whether an assignment's name names a secret: its last
// word is a secret word, or "key" after one of keyWords. Words are split at
// _ - . and lower→upper case changes: OPENAI_API_KEY, apiKey, db.password,
// X-Amz-Signature are; max_tokens, token_count, sort_key are not.
func secretName(name string) bool {
	words := splitName(name)
	n := len(words)
	if n == 0 {
		return false
	}
	last := words[n-1]
	if secretWords[last] {
		return true
	}
	return last == "key" && n >= 2 && keyWords[words[n-2]]
}

func splitName(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return words
}

// plainValue reports whether an assigned value is not itself a secret:
// empty, a literal (true, false, null, …), already redacted, a reference
// to one ($VAR, ${VAR}, %VAR%, env lookups), a placeholder, or a path.
func plainValue(v string) bool {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "true", "false", "null", "nil", "none", "undefined", "yes", "no", "on", "off", Redacted:
		return true
	}
	switch {
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%"),
		strings.HasPrefix(v, "/"), strings.HasPrefix(v, "~/"),
		strings.Contains(v, "env."), strings.Contains(v, "environ"), strings.Contains(v, "getenv"),
		strings.Trim(v, "*xX.•<>-_ ") == "":
		return true
	}
	return false
}

// paths rewrites the workspace and home folders wherever a whole path
// starts with one of them.
func (r *Redactor) paths(s string) string {
	for _, root := range r.roots {
		if !strings.Contains(s, root.dir) {
			continue
		}
		var b strings.Builder
		last, from := 0, 0
		for {
			i := strings.Index(s[from:], root.dir)
			if i < 0 {
				break
			}
			i += from
			end := i + len(root.dir)
			from = end
			fileURL := strings.HasSuffix(s[:i], "file://")
			if i > 0 && !fileURL && isPathByte(s[i-1]) {
				continue // inside a longer path: /mnt/home/u
			}
			if end < len(s) && s[end] != '/' && isPathByte(s[end]) {
				continue // a longer name: /home/u/notes2
			}
			start := i
			if fileURL {
				start = i - len("file://")
			}
			b.WriteString(s[last:start])
			switch {
			case end < len(s) && s[end] == '/' && root.rel:
				end++ // "ws/a.md" → "a.md"
			default:
				b.WriteString(root.repl)
			}
			last = end
			from = end
		}
		if last > 0 {
			b.WriteString(s[last:])
			s = b.String()
		}
	}
	return s
}

// isPathByte reports whether c can be part of a path component (or its
// separator) next to a folder name.
func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '/' || c == '~' || c >= 0x80
}
