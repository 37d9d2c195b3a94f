//go:build !desktop

// Command mnote is a local-first desktop app for chatting with local AI agents
// (ACP) over a folder of Markdown notes.
//
// It is built twice from this package:
//
//   - mnote (no desktop tag): the command line and the services. The
//     headless subcommands (see package mnote/app/cli) run in it, so they
//     never load GTK or WebKit. With no arguments, or a folder or a
//     Markdown file, it execs mnote-app (next to it, or in ../lib/mnote/)
//     with that path.
//   - mnote-app (-tags desktop,production): the window (package
//     mnote/desktop) and nothing else; it runs the services in a child
//     `mnote window-services`, so each is on disk once. A command given to
//     it is passed to mnote.
//
// `mnote ~/notes` opens that folder; `mnote ~/notes/todo.md` opens its folder
// with the note selected. A command name wins over a folder of the same name
// (`mnote ./notes` opens a folder called notes).
package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"mnote/app/cli"
	"mnote/internal/gzfs"
	"mnote/workspace"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	args := os.Args[1:]
	t, window, err := windowArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mnote: %v\n", err)
		os.Exit(2)
	}
	if window {
		os.Exit(openWindow(t))
	}
	// `mnote serve` serves the same page as the window.
	if dist, err := fs.Sub(assets, "frontend/dist"); err == nil {
		cli.Assets = gzfs.New(dist) // scripts/frontend.sh gzips it
	}
	os.Exit(cli.Main(args))
}

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

// windowArgs decides whether args ask for the window: none at all, or one
// path to an existing folder or Markdown file that is not a command's name.
// Relative paths are resolved against the current folder.
func windowArgs(args []string) (target, bool, error) {
	switch {
	case len(args) == 0:
		return target{}, true, nil
	case len(args) > 1 || strings.HasPrefix(args[0], "-") || cli.IsCommand(args[0]):
		return target{}, false, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return target{}, false, fmt.Errorf("the current folder: %w", err)
	}
	return resolveTarget(args[0], cwd)
}

// resolveTarget is windowArgs for one argument p relative to cwd. A p that
// does not exist is not a window argument (it is an unknown command) unless
// it looks like a path: then it is an error.
func resolveTarget(arg, cwd string) (target, bool, error) {
	p := arg
	if u, err := url.Parse(arg); err == nil && u.Scheme == "file" && u.Path != "" {
		p = u.Path // a file manager's URI (%u)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if workspace.IsMarkdown(p) || strings.ContainsRune(arg, os.PathSeparator) {
			return target{}, false, fmt.Errorf("%s: no such folder or file", p)
		}
		return target{}, false, nil // `mnote frobnicate`: an unknown command
	case err != nil:
		return target{}, false, fmt.Errorf("%s: %w", p, err)
	case st.IsDir():
		return target{Dir: p}, true, nil
	case st.Mode().IsRegular() && workspace.IsMarkdown(p):
		return target{Dir: filepath.Dir(p), File: p}, true, nil
	default:
		return target{}, false, fmt.Errorf("%s: not a folder or a Markdown file", p)
	}
}
