package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"mnote/app/export"
)

// maxNameRunes bounds the title part of an export's file name.
const maxNameRunes = 60

// exportFilename is the name an export suggests: the session's title made
// safe for a file name (letters, digits, "-" and "_"; redacted first when
// the export is), else "mnote-<id>"; then ".<format>".
func (s *Services) exportFilename(ctx context.Context, id, format string, redact bool) string {
	title := ""
	if sum, e := s.summary(ctx, id); e == nil {
		title = sum.Title
		if redact && title != "" {
			r, err := export.RedactorFor(s.paths, sum.Workspace)
			if err != nil {
				title = ""
			} else {
				title = r.String(title)
			}
		}
	}
	name := slugTitle(title)
	if name == "" {
		name = "mnote-" + id
	}
	return name + "." + format
}

// exportDir is the folder the save dialog of an export opens in: the
// session's notes folder, else (a session in the home folder, or its
// folder gone) the user's Documents folder, else "" (the dialog's own
// default).
func (s *Services) exportDir(ctx context.Context, id string) string {
	home, _ := os.UserHomeDir()
	if sum, e := s.summary(ctx, id); e == nil && sum.Workspace != "" && !exportSamePath(sum.Workspace, home) && exportIsDir(sum.Workspace) {
		return sum.Workspace
	}
	if home != "" {
		if docs := filepath.Join(home, "Documents"); exportIsDir(docs) {
			return docs
		}
	}
	return ""
}

func exportIsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exportSamePath(a, b string) bool {
	return b != "" && filepath.Clean(a) == filepath.Clean(b)
}

// slugTitle keeps a title's letters and digits (any script), joining the
// words with "-"; at most maxNameRunes runes, no leading or trailing "-".
func slugTitle(title string) string {
	var b strings.Builder
	n, gap := 0, false
	for _, r := range title {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			if gap && b.Len() > 0 {
				b.WriteByte('-')
				n++
			}
			gap = false
			b.WriteRune(r)
			n++
			if n >= maxNameRunes {
				break
			}
			continue
		}
		gap = true
	}
	return strings.Trim(b.String(), "-_")
}
