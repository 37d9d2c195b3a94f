// Package opener opens a file in the program the desktop chooses for it
// (xdg-open on Linux, open on macOS, the shell's file handler on
// Windows): the browser for `mnote serve`'s launch page, the PDF viewer
// for a PDF a note links to. The target goes as one argument, never
// through a shell.
package opener

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// ErrNoDisplay: there is no desktop session to show a file in.
var ErrNoDisplay = errors.New("no desktop to open it on (no DISPLAY or WAYLAND_DISPLAY)")

// Command is the launcher and its first arguments, or "" when there is
// no display to show anything on.
func Command() (name string, args []string) {
	switch runtime.GOOS {
	case "darwin":
		return "open", nil
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler"}
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return "", nil
	}
	return "xdg-open", nil
}

// Open starts the launcher on target and does not wait for it (it is
// reaped in the background). It fails when there is no display or the
// launcher is not installed.
func Open(target string) error {
	name, args := Command()
	if name == "" {
		return ErrNoDisplay
	}
	cmd := exec.Command(name, append(args, target)...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	go cmd.Wait() //nolint:errcheck // only reaps it
	return nil
}
