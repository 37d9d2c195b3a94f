//go:build !desktop

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"mnote/internal/winlink"
)

// appName is the window's binary, installed next to mnote or in
// ../lib/mnote/ (a package's $PREFIX/lib/mnote/mnote-app).
const appName = "mnote-app"

// openWindow execs the window's binary with the target: this binary does
// not link GTK or WebKit, so the headless commands never pay for them.
// It returns only when that fails.
func openWindow(t target) int {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(os.Stderr, "mnote: no display: DISPLAY and WAYLAND_DISPLAY are unset; headless subcommands (e.g. `mnote --version`, `mnote --help`) need none")
		return 1
	}
	app, err := findApp()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mnote: %v\n", err)
		return 1
	}
	// argv[0] "mnote": GLib takes the program name from it, and GTK the
	// window's WM_CLASS (the task switcher's name and the .desktop's
	// StartupWMClass); Wails sets its ProgramName only after GTK started.
	argv := []string{"mnote"}
	if a := t.arg(); a != "" {
		argv = append(argv, a)
	}
	// The window runs its services with this binary (package desktop).
	env := inputMethodEnv(os.Environ())
	if exe, err := winlink.Self(); err == nil {
		env = append(env, winlink.EnvCLI+"="+exe)
	}
	err = syscall.Exec(app, argv, env)
	fmt.Fprintf(os.Stderr, "mnote: starting the window (%s): %v\n", app, err)
	return 1
}

// findApp is the window's binary beside this executable (symlinks
// resolved), or in ../lib/mnote/ from its folder.
func findApp() (string, error) {
	app, tried, err := winlink.Beside(appName, filepath.Join("..", "lib", "mnote", appName))
	if err != nil || app != "" {
		return app, err
	}
	return "", errors.New("the window is not installed: no " + appName + " in " + tried[0] + " or " + tried[1] + " (the headless commands work: mnote --help)")
}

// inputMethodEnv is env for the window's GTK input method. With no input
// method configured on X11 (GTK_IM_MODULE and XMODIFIERS unset), GTK picks
// XIM for a Chinese, Japanese or Korean locale, and WebKitGTK then stops
// drawing the page once the editor takes the focus from a click (measured
// under Xvfb with LANG=zh_CN.UTF-8: a click on an editor tab froze the
// window while keys still reached the note). GTK's own simple input
// context (compose keys, Ctrl+Shift+U) is used instead. A configured input
// method (ibus, fcitx: GTK_IM_MODULE or XMODIFIERS set) and Wayland, where
// GTK uses the compositor's, are left alone.
func inputMethodEnv(env []string) []string {
	get := func(k string) string { // as getenv: the first one
		for _, kv := range env {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				return val
			}
		}
		return ""
	}
	if runtime.GOOS != "linux" || get("GTK_IM_MODULE") != "" || get("XMODIFIERS") != "" {
		return env
	}
	if get("WAYLAND_DISPLAY") != "" && get("GDK_BACKEND") != "x11" {
		return env
	}
	return append(env, "GTK_IM_MODULE=gtk-im-context-simple")
}
