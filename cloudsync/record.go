package cloudsync

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"mnote/controlplane/api"
	"mnote/store"
)

// SessionMeta is the local metadata a synced record is made from. It has
// a field for nothing else: message text, thoughts, tool input and output
// and file contents cannot reach a record, because there is no place for
// them on the way. Make it with MetaFromRow.
type SessionMeta struct {
	ID        string
	Runtime   string
	Workspace string // the local folder: only its salted hash is sent (WorkspaceID)
	Title     string // sent only when titles are allowed
	Status    string // the store's status (running, ready, exited, failed, needs_auth, new, deleted)
	CreatedMs int64
	UpdatedMs int64
	Turns     int
	Messages  int
	ToolCalls int
}

// MetaFromRow takes a session's metadata from its index row (what `mnote
// sessions --json` shows), leaving out the transcript's path and sizes.
func MetaFromRow(r store.SessionRow) SessionMeta {
	return SessionMeta{ID: r.ID, Runtime: r.Runtime, Workspace: r.Workspace, Title: r.Title, Status: r.Status,
		CreatedMs: r.CreatedMs, UpdatedMs: r.UpdatedMs, Turns: r.Turns, Messages: r.Messages, ToolCalls: r.ToolCalls}
}

// Limits of a record's free-text fields (the server takes 16 KiB a record).
const (
	maxTitleRunes   = 200
	maxRuntimeBytes = 64
)

// WorkspaceID is the id a workspace is synced under: the hex
// HMAC-SHA256 of its cleaned absolute path keyed with salt, this user's
// random workspace salt (the sync-salt file). The path itself is never
// sent, and without the salt nobody can confirm a guessed path from the
// id (a plain hash of "/home/alice/notes" would say yes or no).
func WorkspaceID(salt []byte, path string) string {
	if path == "" {
		return ""
	}
	mac := hmac.New(sha256.New, salt)
	mac.Write([]byte(filepath.Clean(path)))
	return hex.EncodeToString(mac.Sum(nil))
}

// validID reports whether id is a record id the control plane takes.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// record builds the record for m, without a version, its workspace id
// keyed with salt. The title is kept only when allowTitles, with the
// workspace and home folder paths taken out of it (filter, when set,
// redacts it further); the runtime is a label (anything that looks like a
// path or command becomes "custom"). The result is normalized as the
// control plane normalizes what it receives (api.SessionRecord.Normalize:
// no NUL, control characters or invalid UTF-8), so what is sent is what
// is stored.
func (m SessionMeta) record(salt []byte, allowTitles bool, filter func(string) string) (api.SessionRecord, error) {
	if !validID(m.ID) {
		return api.SessionRecord{}, fmt.Errorf("session id %q cannot be synced: 1–64 characters of letters, digits, _ and - are needed", m.ID)
	}
	rec := api.SessionRecord{
		ID:          m.ID,
		Runtime:     runtimeLabel(m.Runtime),
		WorkspaceID: WorkspaceID(salt, m.Workspace),
		Status:      wireStatus(m.Status),
		CreatedAt:   msTime(m.CreatedMs, m.UpdatedMs),
		UpdatedAt:   msTime(m.UpdatedMs, m.CreatedMs),
		Turns:       m.Turns,
		Messages:    m.Messages,
		ToolCalls:   m.ToolCalls,
	}
	if allowTitles {
		rec.Title = cleanTitle(m.Title, m.Workspace, filter)
	}
	return rec.Normalize(), nil
}

func msTime(ms, fallback int64) time.Time {
	if ms <= 0 {
		ms = fallback
	}
	if ms <= 0 {
		return time.Unix(0, 0).UTC()
	}
	return time.UnixMilli(ms).UTC()
}

// wireStatus maps the store's session status to the record's.
func wireStatus(s string) string {
	switch s {
	case store.StatusRunning:
		return api.StatusRunning
	case "failed", "needs_auth":
		return api.StatusError
	case store.StatusDeleted:
		return api.StatusEnded
	}
	return api.StatusIdle
}

// runtimeLabel keeps a runtime name that is a plain label.
func runtimeLabel(rt string) string {
	if rt == "" {
		return "custom"
	}
	if len(rt) > maxRuntimeBytes || strings.ContainsAny(rt, "/\\ \t\n:") {
		return "custom"
	}
	return rt
}

// cleanTitle takes local paths out of a title and shortens it.
func cleanTitle(title, workspace string, filter func(string) string) string {
	if ws := filepath.Clean(workspace); workspace != "" && len(ws) > 1 {
		title = strings.ReplaceAll(title, ws+string(filepath.Separator), "")
		title = strings.ReplaceAll(title, ws, ".")
	}
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		title = strings.ReplaceAll(title, home, "~")
	}
	if filter != nil {
		title = filter(title)
	}
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) > maxTitleRunes {
		r := []rune(title)
		title = string(r[:maxTitleRunes-1]) + "…"
	}
	return title
}
