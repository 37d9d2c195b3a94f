package client

import (
	"strings"

	"mnote/collab/projection"
	"mnote/thread"
)

// Projector turns the actor's agent updates into the run's projection
// (projection.FromThread on a thread of its own): answers as the text
// added, tool calls as title, kind and status, plans. Tool input and
// output, and thoughts unless Options.Thoughts, never reach the Run.
type Projector struct {
	run  *Run
	opt  projection.Options
	th   *thread.Thread
	sent map[string]int // answer text already given, by entry
}

// NewProjector feeds run from agent updates.
func NewProjector(run *Run, opt projection.Options) *Projector {
	return &Projector{run: run, opt: opt, th: thread.New(), sent: map[string]int{}}
}

// Update takes one session/update of the actor's agent.
func (p *Projector) Update(u *thread.Update) {
	ch, err := p.th.Apply(u)
	if err != nil || ch.EntryID == "" {
		return
	}
	e, ok := p.th.Entry(ch.EntryID)
	if !ok {
		return
	}
	pe, ok := projection.FromThread(e, p.opt)
	if !ok {
		return
	}
	if pe.Kind == projection.KindAnswer || pe.Kind == projection.KindThought {
		n := p.sent[e.ID]
		if len(pe.Text) <= n {
			return
		}
		pe.Text, p.sent[e.ID] = pe.Text[n:], len(pe.Text)
	}
	p.run.Add(pe)
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
