package desktop

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// target is what the window opens: a folder (absolute; "" = the last one
// used) and a Markdown file in it to select ("" = none).
type target struct {
	Dir, File string
}

// arg is the target as the one argument that names it ("" for none).
func (t target) arg() string {
	if t.File != "" {
		return t.File
	}
	return t.Dir
}

// windowTarget reads what `mnote` passed on (it resolved and checked the
// path): nothing, a folder, or a file in a folder. More arguments, a flag
// or a path that is neither are a command for the command line.
func windowTarget(args []string) (target, bool) {
	switch {
	case len(args) == 0:
		return target{}, true
	case len(args) > 1 || len(args[0]) == 0 || args[0][0] == '-':
		return target{}, false
	}
	p, err := filepath.Abs(args[0])
	if err != nil {
		return target{}, false
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return target{}, false
	case st.IsDir():
		return target{Dir: p}, true
	case st.Mode().IsRegular():
		return target{Dir: filepath.Dir(p), File: p}, true
	}
	return target{}, false
}

// instanceID names the single-instance lock: one window per data folder
// (MNOTE_HOME), so separate homes (tests, profiles) run side by side.
func instanceID(stateDir string) string {
	h := sha256.Sum256([]byte(stateDir))
	return "mnote-" + hex.EncodeToString(h[:6])
}
