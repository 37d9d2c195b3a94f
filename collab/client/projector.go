package client

import (
	"strings"
	"sync"
	"unicode/utf8"

	"mnote/collab/projection"
	"mnote/thread"
)

// Projector turns the actor's agent updates into the run's projection
// (projection.FromThread on a thread of its own): answers as the text
// added, tool calls as title, kind and status, plans. Tool input and
// output, and thoughts unless Options.Thoughts, never reach the Run.
//
// An answer's or a thought's text goes in pieces that end at a space, a
// line break or Chinese punctuation, each cleaned (Options.Clean) once: a
// path or a key is never cut in two by a chunk boundary, so the redactor
// sees it whole, and no text is cleaned twice however long the answer.
// The rest of a piece goes when the next entry starts, or at Flush.
type Projector struct {
	mu      sync.Mutex // Update and Flush may come from different goroutines
	run     *Run
	opt     projection.Options
	th      *thread.Thread
	sent    map[string]int // raw text of an answer or thought already given, by entry
	pending string         // the text entry whose last piece may still wait
	flushed bool           // Flush ran: the run is finishing, later updates are the agent's alone
}

// NewProjector feeds run from agent updates.
func NewProjector(run *Run, opt projection.Options) *Projector {
	return &Projector{run: run, opt: opt, th: thread.New(), sent: map[string]int{}}
}

// Where an answer's text may be cut between two pieces: at a line break
// or Chinese punctuation, and at a space or a tab unless a path may run
// on across it (a slash since the last of the former: "/home/ada/My
// Notes/…" stays whole), unless that much text waits.
const (
	hardEnds  = "\n，。、；：！？"
	softEnds  = " \t"
	pathChars = "/\\"
	maxWait   = 4 << 10
)

// pieceEnd is where the next piece of s ends (its length), or 0 when it
// must wait for more text.
func pieceEnd(s string) int {
	hard := strings.LastIndexAny(s, hardEnds)
	end := 0
	if hard >= 0 {
		_, size := utf8.DecodeRuneInString(s[hard:])
		end = hard + size
	}
	rest := s[end:]
	if strings.ContainsAny(rest, pathChars) && len(rest) < maxWait {
		return end
	}
	if soft := strings.LastIndexAny(rest, softEnds); soft >= 0 {
		end += soft + 1
	}
	return end
}

// Update takes one session/update of the actor's agent.
func (p *Projector) Update(u *thread.Update) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.flushed {
		return // after the run's last entry: nothing follows its status
	}
	ch, err := p.th.Apply(u)
	if err != nil || ch.EntryID == "" {
		return
	}
	if p.pending != "" && p.pending != ch.EntryID {
		p.text(p.pending, true)
	}
	e, ok := p.th.Entry(ch.EntryID)
	if !ok {
		return
	}
	if e.Kind == thread.EntryAssistantMessage || e.Kind == thread.EntryThought {
		p.text(e.ID, false)
		return
	}
	if pe, ok := projection.FromThread(e, p.opt); ok {
		p.run.Add(pe)
	}
}

// Flush gives what waits of the last answer or thought (before Run.Finish);
// updates after it are not shared (the run's status is its last entry).
func (p *Projector) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushed = true
	if p.pending != "" {
		p.text(p.pending, true)
	}
}

// text gives the next piece of an answer's or a thought's text: up to its
// last piece end, or all of it when all.
func (p *Projector) text(id string, all bool) {
	e, ok := p.th.Entry(id)
	if !ok {
		return
	}
	p.pending = id
	if all {
		p.pending = ""
	}
	n := p.sent[id]
	end := len(e.Text)
	if !all {
		end = n + pieceEnd(e.Text[n:])
	}
	if end <= n {
		return
	}
	piece := e.Text[n:end]
	p.sent[id] = end
	kind := projection.KindAnswer
	if e.Kind == thread.EntryThought {
		if !p.opt.Thoughts {
			return
		}
		kind = projection.KindThought
	}
	if p.opt.Clean != nil {
		piece = p.opt.Clean(piece)
	}
	p.run.Add(projection.Entry{Kind: kind, Turn: e.Turn, Text: piece})
}

// Earlier is the earlier-turns context a member's agent gets in its first
// prompt: the prompts (with their actor) and answers of the entries,
// an answer's appends joined into one message. Tool calls, plans,
// thoughts, comments and entries that could not be opened are left out.
func Earlier(entries []Opened) string {
	var proj []projection.Entry
	var actors []string
	for _, o := range entries {
		if o.Unreadable != "" {
			continue
		}
		e := o.Entry
		if n := len(proj); e.Kind == projection.KindAnswer && n > 0 && proj[n-1].Kind == projection.KindAnswer && proj[n-1].Turn == e.Turn && actors[n-1] == o.Actor {
			proj[n-1].Text += e.Text
			continue
		}
		if e.Kind != projection.KindPrompt && e.Kind != projection.KindAnswer {
			continue
		}
		proj = append(proj, e)
		actors = append(actors, o.Actor)
	}
	return projection.Earlier(proj, func(i int) string { return actors[i] })
}

// Context modes of a member's agent (see the package doc).
const (
	ContextLoad    = "load"    // session/load, and the others' turns since this machine's last
	ContextEarlier = "earlier" // a new agent session, the earlier turns in its first prompt
)

// ContextFor says how this machine's agent gets the conversation: held
// is whether its agent already holds the session and can load it; device
// is this machine's device id. With ContextLoad the text is the turns run
// elsewhere (other members, or this account's other machines) since this
// machine's last prompt (empty when none); with ContextEarlier it is every
// earlier turn.
func ContextFor(entries []Opened, held bool, device string) (mode, text string) {
	if !held {
		return ContextEarlier, Earlier(entries)
	}
	last := -1
	for i, o := range entries {
		if o.Kind == projection.KindPrompt && o.AuthorDevice == device {
			last = i
		}
	}
	if last < 0 {
		return ContextEarlier, Earlier(entries)
	}
	var since []Opened
	for _, o := range entries[last+1:] {
		if o.AuthorDevice != device {
			since = append(since, o)
		}
	}
	return ContextLoad, strings.TrimSpace(Earlier(since))
}
