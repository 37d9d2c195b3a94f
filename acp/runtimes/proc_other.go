//go:build !unix

package runtimes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SetProcessGroup only kills the direct child on this platform.
func SetProcessGroup(cmd *exec.Cmd) {}

// isExecutable reports whether path is a regular file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// executableNames lists path with the usual executable extensions unless it
// already has one.
func executableNames(path string) []string {
	if filepath.Ext(path) != "" {
		return []string{path}
	}
	exts := strings.Split(strings.ToLower(os.Getenv("PATHEXT")), ";")
	if len(exts) == 0 || exts[0] == "" {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	out := []string{path}
	for _, e := range exts {
		out = append(out, path+e)
	}
	return out
}

// envKeyEqual compares environment variable names (case-insensitive here).
func envKeyEqual(a, b string) bool { return strings.EqualFold(a, b) }
