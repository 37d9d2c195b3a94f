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

// RedactedEmail replaces an e-mail address (when they are hidden).
const RedactedEmail = "[email]"

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
	// Emails hides e-mail addresses too (see Redactor.WithEmails).
	Emails bool
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
//  4. token shapes, by provider prefix and, where the prefix is common in
//     ordinary text, by the entropy and shape of what follows (see
//     generated in keys.go): every "sk-" key (OpenAI sk-/sk-proj-/
//     sk-svcacct-/sk-admin-, and the providers that copied it: DeepSeek,
//     DashScope/Qwen, Moonshot/Kimi, SiliconFlow, OpenRouter, with hex or
//     lowercase bodies), Anthropic sk-ant-…, GitHub ghp_/gho_/ghu_/ghs_/
//     ghr_/github_pat_…, AWS access key ids (AKIA…, ASIA…) and — in a text
//     holding one — the 40-character secret keys beside them, Slack
//     xox?-…/xapp-… tokens and webhook paths, Google AIza… keys, ya29./1//0
//     OAuth tokens and GOCSPX- client secrets, Azure AD client secrets
//     (…Q~…), Stripe sk_/rk_/pk_ keys and whsec_ secrets, Hugging Face hf_,
//     Groq gsk_, Replicate r8_, xAI xai-, Perplexity pplx-, GitLab glpat-,
//     npm npm_ and PyPI pypi- tokens, Zhipu "<32 hex>.<secret>" keys, JWTs;
//  5. Authorization headers and Bearer tokens (the scheme word is kept);
//  6. assignments whose name ends in a secret word (password, passwd, pwd,
//     pass, passphrase, secret, token, credential(s), signature, sig, or
//     key after api/access/secret/private/…): NAME=value in env files,
//     shell and URL queries, name: value in YAML, "name": "value" in JSON
//     text, and in structured JSON (Redactor.JSON) the string value of
//     such a key, or the "value" beside such a "name";
//  7. with RedactConfig.Emails (or WithEmails), e-mail addresses;
//  8. paths: the workspace folder and then the home folder (also their
//     symlink-resolved forms), only where a whole path component matches.
//
// It deliberately keeps: hashes that are hex only (git SHAs, sha256 sums:
// not secrets, and transcripts cite them), UUIDs, ULIDs, numbers, words
// that start like a key ("sk-learn", "task-list", the CSS class
// "sk-button-primary", hf_hub_download), names such as max_tokens or
// token_count (the name must end in the secret word), prose mentioning
// passwords or tokens without an assignment, assignments whose value is a
// reference ($VAR, ${VAR}, %VAR%, a call, env lookups), true/false/null,
// empty values and absolute paths, and paths outside the workspace and
// home folder. A key with no prefix at all (Mistral's, Azure OpenAI's 32
// hex digits) is found only where it is assigned to a secret's name or
// follows Authorization/Bearer.
type Redactor struct {
	secrets []string // longest first
	roots   []pathRoot
	emails  bool
}

type pathRoot struct {
	dir  string // cleaned, no trailing slash
	repl string // what the folder itself becomes: "." or "~"
	rel  bool   // inside: "rest" (workspace) instead of repl+"/rest" (home)
}

// NewRedactor makes a Redactor.
func NewRedactor(c RedactConfig) *Redactor {
	r := &Redactor{emails: c.Emails}
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
	if r.emails {
		s = redactEmails(s)
	}
	return r.paths(s)
}

// WithEmails returns a Redactor like r that also hides e-mail addresses
// (on) or does not (off); r itself is unchanged. A nil r stays nil.
func (r *Redactor) WithEmails(on bool) *Redactor {
	if r == nil || r.emails == on {
		return r
	}
	c := *r
	c.emails = on
	return &c
}

// redactEmails replaces e-mail addresses (local@domain.tld: a local part
// of letters, digits and . _ % + -, a domain of two labels or more ending
// in letters) with RedactedEmail. It keeps what only looks like one: a
// URL's user (scheme://user@host), an scp-style remote (git@host:path),
// package@1.2.3 versions, icon@2x.png, @scopes and @handles without a
// local part.
func redactEmails(s string) string {
	if strings.IndexByte(s, '@') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '@')
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		lo := i
		for lo > last && isLocalByte(s[lo-1]) {
			lo--
		}
		for lo < i && s[lo] == '.' {
			lo++
		}
		if lo == i || strings.HasSuffix(s[:lo], "//") {
			continue
		}
		hi := domainEnd(s, i+1)
		if hi < 0 || retinaSuffix(s[i+1:hi]) || hi < len(s) && s[hi] == ':' && hi+1 < len(s) && s[hi+1] != ' ' && s[hi+1] != '\n' {
			continue
		}
		b.WriteString(s[last:lo])
		b.WriteString(RedactedEmail)
		last, from = hi, hi
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// retinaSuffix reports whether a domain is an image's scale suffix
// ("icon@2x.png").
func retinaSuffix(domain string) bool {
	label, _, _ := strings.Cut(domain, ".")
	return len(label) >= 2 && label[len(label)-1] == 'x' && strings.Trim(label[:len(label)-1], "0123456789") == ""
}

func isLocalByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

// domainEnd returns where the domain name starting at s[i] ends, or -1 if
// none does: labels of letters, digits and hyphens joined by dots, two or
// more, the last of two letters or more.
func domainEnd(s string, i int) int {
	labels, end := 0, -1
	for j := i; ; {
		k := j
		for k < len(s) && (isAlnum(s[k]) || s[k] == '-') {
			k++
		}
		if k == j || s[j] == '-' || s[k-1] == '-' {
			break
		}
		labels++
		tld := true
		for _, c := range []byte(s[j:k]) {
			tld = tld && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
		}
		if labels >= 2 && tld && k-j >= 2 {
			end = k
		}
		if k+1 >= len(s) || s[k] != '.' || !isAlnum(s[k+1]) {
			if k < len(s) && (isWordByte(s[k]) || s[k] == '@') {
				return -1
			}
			break
		}
		j = k + 1
	}
	return end
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
	word    bool     // a match must start a word (be preceded by a non-word byte)
	back    int      // a match starts this many bytes before its anchor
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
	// skipKept: the anchors inside a kept match need no look of their own
	// (keep keeps a match only if it would keep every match starting at an
	// anchor inside it), so "sk-sk-sk-…" costs one match, not one each.
	skipKept bool
	mask     uint64 // the ids of its anchors in the scanner (set by newAnchors)
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
		{name: "sk- key", anchors: []string{"sk-"}, word: true, skipKept: true,
			re:   anchored(`sk-[A-Za-z0-9_\-]{20,1000}`),
			keep: func(s string, m []int) bool { return !skKey(s[m[0]+3 : m[1]]) }},
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
			keep: generatedAfter(3, 30)},
		{name: "Groq key", anchors: []string{"gsk_"}, word: true,
			re: anchored(`gsk_[A-Za-z0-9]{40,}`), keep: generatedAfter(4, 40)},
		{name: "Replicate token", anchors: []string{"r8_"}, word: true,
			re: anchored(`r8_[A-Za-z0-9]{30,}`), keep: generatedAfter(3, 30)},
		{name: "xAI key", anchors: []string{"xai-"}, word: true,
			re: anchored(`xai-[A-Za-z0-9]{40,}`), keep: generatedAfter(4, 40)},
		{name: "Perplexity key", anchors: []string{"pplx-"}, word: true,
			re: anchored(`pplx-[A-Za-z0-9]{32,}`), keep: generatedAfter(5, 32)},
		{name: "Google OAuth token", anchors: []string{"ya29.", "1//0"}, word: true,
			re: anchored(`(?:ya29\.|1//0)[A-Za-z0-9_\-]{30,}`), keep: generatedAfter(4, 30)},
		{name: "Google OAuth client secret", anchors: []string{"gocspx-"}, word: true,
			re: anchored(`GOCSPX-[A-Za-z0-9_\-]{24,}`)},
		{name: "PyPI token", anchors: []string{"pypi-ageichlwas5vcmc"}, word: true,
			re: anchored(`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,}`)},
		{name: "Stripe webhook secret", anchors: []string{"whsec_"}, word: true,
			re: anchored(`whsec_[A-Za-z0-9+/=]{24,}`)},
		// Azure AD client secrets: 3 characters, a digit, "Q~", 31–34 more.
		{name: "Azure client secret", anchors: []string{"q~"}, back: 4,
			re: anchored(`[A-Za-z0-9_.\-]{3}[0-9]Q~[A-Za-z0-9_.~\-]{31,34}`), keep: generatedAfter(0, 30)},
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
	s = redactHexDotKeys(s)
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
		p, n := int(h.pos)-ru.back, len(anchors.words[h.id])
		if p < 0 {
			continue
		}
		if (!ru.word || p == 0 || !isWordByte(lower[p-1])) && (ru.after == nil || ru.after(lower, p+ru.back+n)) {
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
		if m == nil {
			continue
		}
		if ru.keep != nil && ru.keep(s, m) {
			if ru.skipKept {
				next = m[1]
			}
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
		"license": true, "auth": true, "app": true, "storage": true}
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
	case strings.HasPrefix(v, "/") && !strings.HasSuffix(v, "=") && !strings.Contains(v, "+"):
		// A path, unless it is a base64 key that starts with "/".
		for seg := range strings.SplitSeq(v, "/") {
			if generated(seg, 20) {
				return false
			}
		}
		return true
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%"),
		strings.HasPrefix(v, "~/"),
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
