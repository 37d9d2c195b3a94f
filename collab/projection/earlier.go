package projection

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of the earlier turns a first prompt carries.
const (
	MaxEarlierBytes  = 48 << 10 // all of it
	MaxEarlierPerMsg = 6 << 10  // one message
)

// Msg is one message of an earlier-turns transcript.
type Msg struct {
	Who  string // "User", "Assistant", "User (Li Lei)"
	Turn int
	Text string
}

// Transcript is the compact transcript of earlier turns an agent gets as
// context: intro, then the messages, the latest kept when they are too
// long (MaxEarlierBytes), each message cut in its middle past
// MaxEarlierPerMsg. "" when no message has text.
func Transcript(intro string, msgs []Msg) string {
	var parts []string
	for _, m := range msgs {
		text := strings.TrimSpace(m.Text)
		if text == "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (turn %d):\n%s", m.Who, m.Turn, cutMiddle(text, MaxEarlierPerMsg)))
	}
	if len(parts) == 0 {
		return ""
	}
	// The latest messages matter most: drop from the start.
	total, from := 0, len(parts)
	for from > 0 && total+len(parts[from-1])+2 <= MaxEarlierBytes {
		from--
		total += len(parts[from]) + 2
	}
	var b strings.Builder
	b.WriteString(intro)
	b.WriteString("\n\n")
	if from > 0 {
		fmt.Fprintf(&b, "[%d earlier messages left out]\n\n", from)
	}
	b.WriteString(strings.Join(parts[from:], "\n\n"))
	return b.String()
}

// SharedIntro opens the transcript a member's agent gets when it joins a
// shared session.
const SharedIntro = "Earlier in this shared conversation (several people take turns in it, each with their own agent; these are its earlier turns, as every member sees them):"

// Earlier is the transcript of a shared session's projection that a
// member's own agent gets in its first prompt: prompts (with the account
// that sent them, and the names of the notes they mention) and answers.
// Tool calls, plans, thoughts and comments are left out. actor names the
// account of each entry (the shared log records it); nil leaves it out.
func Earlier(entries []Entry, actor func(i int) string) string {
	var msgs []Msg
	for i, e := range entries {
		var who, text string
		switch e.Kind {
		case KindPrompt:
			who, text = "User", e.Text
			if actor != nil {
				if a := actor(i); a != "" {
					who = "User " + a
				}
			}
			if len(e.Mentions) > 0 {
				text += "\n[mentions the notes: " + strings.Join(e.Mentions, ", ") + "]"
			}
		case KindAnswer:
			who, text = "Assistant", e.Text
		default:
			continue
		}
		msgs = append(msgs, Msg{Who: who, Turn: e.Turn, Text: text})
	}
	return Transcript(SharedIntro, msgs)
}

// cutMiddle shortens s to about max bytes, keeping its start and end.
func cutMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	h := max / 2
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - max/2
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + fmt.Sprintf("\n[… %d bytes left out …]\n", t-h) + s[t:]
}
