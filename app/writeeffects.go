package app

import (
	"encoding/json"
	"path/filepath"
)

// maxEffectText bounds the notes a permission request's effects carry to
// the page (a bigger file shows the agent's own diff only).
const maxEffectText = 1 << 20

// writeEffects predicts, for each diff in a permission request's tool call
// that names a file of the session's open workspace, what allowing it
// does to the note as the person has it now (workspace.PreviewAgentWrite):
// the dialog shows that, not only the agent's claim. Only the files where
// the two differ, or where the person's text would go or conflict, are
// listed.
func (l *liveSession) writeEffects(toolCall json.RawMessage) []WriteEffect {
	if len(toolCall) == 0 || l.sess == nil {
		return nil
	}
	w := l.s.ws.at(l.workspace)
	if w == nil {
		return nil
	}
	var tc struct {
		Content []struct {
			Type    string  `json:"type"`
			Path    string  `json:"path"`
			OldText *string `json:"oldText"`
			NewText string  `json:"newText"`
		} `json:"content"`
	}
	if json.Unmarshal(toolCall, &tc) != nil {
		return nil
	}
	var out []WriteEffect
	for _, c := range tc.Content {
		if c.Type != "diff" || !filepath.IsAbs(c.Path) || len(c.NewText) > maxEffectText {
			continue
		}
		old := ""
		if c.OldText != nil {
			old = *c.OldText
		}
		pv, err := w.PreviewAgentWrite(l.sess.ID, c.Path, old, c.OldText != nil, c.NewText)
		if err != nil || len(pv.Current) > maxEffectText {
			continue
		}
		if pv.Differs || pv.Conflict || len(pv.Lost) > 0 {
			out = append(out, WriteEffect{AgentPath: c.Path, AgentWritePreview: pv})
		}
	}
	return out
}

// losesWords: allowing the request would drop or conflict with text the
// person typed.
func losesWords(effects []WriteEffect) bool {
	for _, e := range effects {
		if e.Conflict || len(e.Lost) > 0 {
			return true
		}
	}
	return false
}
