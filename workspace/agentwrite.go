package workspace

import (
	"strings"
	"sync"
)

// An agent's write of a whole file is computed from what the agent knew of
// the file: what it last read of it (or last wrote itself), or, when it
// never read it, the file as the turn began. Between that moment and the
// write the person may have typed (saved or not). The write is merged
// three ways so that nothing the person typed is lost:
//
//	base   = what the agent last read or wrote (agentReads), else the file
//	         at the start of the running turn, before the person's saves
//	         (Checkpoints.turnStart), else the disk now;
//	ours   = the disk now (and the editor's unsaved text, in the buffer);
//	theirs = the agent's content.
//
// A clean merge is written (and shown in the editor); a real conflict
// writes the agent's text to disk while the open editor keeps the
// person's and shows both sides (BufferConflict), and the turn's
// checkpoint keeps the person's text as the file's "before", so Review
// and Revert give it back.

// maxAgentReads bounds the content agentReads keeps for all agents of a
// workspace. Past it the oldest reads are forgotten: their files fall
// back to the turn's start as the base.
const maxAgentReads = 64 << 20

// agentReads remembers, per reader (an agent session; "" is one too), the content each
// file had when the reader last read or wrote it. Safe for concurrent use.
type agentReads struct {
	mu    sync.Mutex
	m     map[string]map[string]readRec
	seq   int64
	bytes int
}

type readRec struct {
	content string
	seq     int64
}

// note records that reader now knows rel as content.
func (r *agentReads) note(reader, rel, content string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]map[string]readRec{}
	}
	files := r.m[reader]
	if files == nil {
		files = map[string]readRec{}
		r.m[reader] = files
	}
	if old, ok := files[rel]; ok {
		r.bytes -= len(old.content)
	}
	r.seq++
	files[rel] = readRec{content: content, seq: r.seq}
	r.bytes += len(content)
	for r.bytes > maxAgentReads && r.evictOldest() {
	}
}

// evictOldest forgets the oldest read; false when there is none.
func (r *agentReads) evictOldest() bool {
	var or, of string
	var oseq int64 = -1
	for reader, files := range r.m {
		for rel, rec := range files {
			if oseq < 0 || rec.seq < oseq {
				or, of, oseq = reader, rel, rec.seq
			}
		}
	}
	if oseq < 0 {
		return false
	}
	r.bytes -= len(r.m[or][of].content)
	delete(r.m[or], of)
	if len(r.m[or]) == 0 {
		delete(r.m, or)
	}
	return true
}

// get is what reader last read or wrote of rel.
func (r *agentReads) get(reader, rel string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.m[reader][rel]
	return rec.content, ok
}

// ForgetReader drops what reader (an agent session that ended) read.
func (w *Workspace) ForgetReader(reader string) {
	w.reads.mu.Lock()
	defer w.reads.mu.Unlock()
	for _, rec := range w.reads.m[reader] {
		w.reads.bytes -= len(rec.content)
	}
	delete(w.reads.m, reader)
}

// agentBase is the text reader's write of rel is taken to be computed
// from (see the comment at the top of this file).
func (w *Workspace) agentBase(reader, rel string) (string, bool) {
	if s, ok := w.reads.get(reader, rel); ok {
		return s, true
	}
	if w.cps != nil {
		return w.cps.turnStart(rel)
	}
	return "", false
}

// agentWrite is what an agent's write of a file does.
type agentWrite struct {
	theirs string // the agent's content
	write  string // what goes to disk
	base   string // what the agent's content was computed from (hasBase)
	// hasBase: base is known; otherwise the disk now stands in for it.
	hasBase bool
	// conflict: the agent's content and the person's text (on disk) change
	// the same lines differently; the disk gets the agent's, the open
	// editor keeps the person's and shows both.
	conflict bool
}

// planAgentWrite merges reader's content for rel with the disk now
// (disk, when exists). With unsaved edits in the editor (unsaved) the disk
// gets the agent's content and the editor the merge (Buffers.agentWrote):
// the person's unsaved text is not saved for them. The caller holds
// w.writeMu.
func (w *Workspace) planAgentWrite(reader, rel, content, disk string, exists, unsaved bool) agentWrite {
	pl := agentWrite{theirs: content, write: content}
	pl.base, pl.hasBase = w.agentBase(reader, rel)
	if unsaved || !exists || !pl.hasBase || disk == pl.base || disk == content {
		return pl
	}
	if m, ok := merge3(pl.base, disk, content); ok {
		pl.write = m
	} else {
		pl.conflict = true
	}
	return pl
}

// AgentWritePreview is what an agent's write of one file would do to the
// note as the person has it now (the editor's text when it has unsaved
// edits, else the disk's), for the permission dialog: the person sees
// the diff against their text, not the agent's claim.
type AgentWritePreview struct {
	Path string `json:"path"` // workspace-relative
	// Current is the note now (Unsaved: with the editor's unsaved edits).
	Current string `json:"current"`
	Unsaved bool   `json:"unsaved,omitempty"`
	// Result is the note after the write (for a conflict: the editor
	// keeps Current and offers the agent's text beside it).
	Result   string `json:"result"`
	Conflict bool   `json:"conflict,omitempty"`
	// Lost are lines of Current the write removes although the agent's
	// own diff does not say it removes them (typed since the agent read
	// the note, or unsaved): the dialog warns about them.
	Lost []string `json:"lost,omitempty"`
	// Differs: the agent's old text is not the note as it is now.
	Differs bool `json:"differs,omitempty"`
}

// PreviewAgentWrite predicts what the agent (reader) replacing oldText by
// newText in the file at the absolute path p would do (hasOld false: the
// agent creates the file). oldText may be the whole file or one passage
// of it, as agents send either.
func (w *Workspace) PreviewAgentWrite(reader, p string, oldText string, hasOld bool, newText string) (AgentWritePreview, error) {
	rel, err := w.relFromAbs(p)
	if err != nil {
		return AgentWritePreview{}, err
	}
	r, err := w.resolve(p, rel)
	if err != nil {
		return AgentWritePreview{}, err
	}
	pv := AgentWritePreview{Path: r}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	disk, derr := w.readAgent(p, r)
	exists := derr == nil
	cur := string(disk)
	if s, ok := w.buffers.editorText(r); ok {
		cur, pv.Unsaved = s, s != cur || !exists
	}
	pv.Current = cur
	if !exists && !pv.Unsaved {
		pv.Result = newText
		pv.Differs = hasOld && oldText != ""
		return pv, nil
	}
	pv.Differs = !hasOld || oldText != cur
	theirs := newText
	known, _ := w.agentBase(reader, r)
	whole := !hasOld || oldText == "" || oldText == cur || oldText == string(disk) || oldText == known
	if !whole && len(oldText) < len(cur) && strings.Count(cur, oldText) == 1 {
		// A passage: the agent replaces it where it stands now.
		pv.Result = strings.Replace(cur, oldText, newText, 1)
		pv.Differs = false
		return pv, nil
	}
	pl := w.planAgentWrite(reader, r, theirs, string(disk), exists, pv.Unsaved)
	base := string(disk)
	if pl.hasBase {
		base = pl.base
	}
	switch {
	case pl.conflict:
		pv.Result, pv.Conflict = cur, true
	case !pv.Unsaved:
		pv.Result = pl.write
	default:
		if m, ok := merge3(base, cur, theirs); ok {
			pv.Result = m
		} else {
			pv.Result, pv.Conflict = cur, true
		}
	}
	// What the agent says it changes; without an old text, what it
	// changes from what it knew.
	claimed := oldText
	if !hasOld || oldText == "" {
		claimed = base
	}
	pv.Lost = lostLines(cur, pv.Result, claimed, newText)
	return pv, nil
}

// lostLines are the lines the change cur → result removes beyond those
// the agent's own change old → new removes (each line counted as often as
// it occurs), blank lines left out.
func lostLines(cur, result, old, new string) []string {
	removed := func(a, b string) []string {
		var out []string
		for _, op := range diffLines(splitLines(a), splitLines(b)) {
			if op.op == '-' {
				out = append(out, op.line)
			}
		}
		return out
	}
	claimed := map[string]int{}
	for _, l := range removed(old, new) {
		claimed[l]++
	}
	var lost []string
	for _, l := range removed(cur, result) {
		if claimed[l] > 0 {
			claimed[l]--
			continue
		}
		if t := trimEOL(l); t != "" {
			lost = append(lost, t)
		}
	}
	return lost
}

func trimEOL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
