// Package export renders a recorded session for people and for sharing:
// Markdown, one self-contained HTML page, the raw JSONL transcript, and the
// snapshot a share link shows (api.ShareSnapshot, published by cloudsync).
//
// Every renderer takes the session's thread (a thread.Snapshot rebuilt from
// the transcript by store.LoadThread) and Options: Redact hides secrets and
// local paths in every text (see Redactor; API keys are told from words by
// their prefix, shape and entropy, see keys.go), RedactEmails e-mail
// addresses as well (the default in shares, not in exports),
// IncludeThoughts and IncludeToolIO put the agent's thoughts and raw tool
// input/output in, which are otherwise left out, and Locale words the
// Markdown and HTML exports' own labels and dates in English or Chinese
// (package internal/l10n).
//
// The HTML page makes no network request when opened: inline CSS only
// (with the platform's CJK fonts), no scripts, Markdown rendered by
// package internal/inertmd (raw HTML, links and images shown as text; the
// renderer the share page uses too), and a Content-Security-Policy that
// forbids loading anything.
package export
