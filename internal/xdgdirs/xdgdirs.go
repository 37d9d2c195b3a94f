// Package xdgdirs says where mnote keeps its config, data, state and logs:
// the XDG base directories, or everything under MNOTE_HOME. It is a leaf
// package so that the window (mnote-app), which links none of mnote's
// services, finds the same state folder as they do.
package xdgdirs

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/adrg/xdg"
)

// Dirs are mnote's base files and folders.
type Dirs struct {
	ConfigFile string // config.json
	Data       string // the index, transcripts, trash
	State      string // window geometry, locks
	Logs       string
}

// xdgMu serializes xdg.Reload, which rewrites the package's globals.
var xdgMu sync.Mutex

// Get returns the folders from the environment at call time:
//
//	$XDG_CONFIG_HOME/mnote/config.json
//	$XDG_DATA_HOME/mnote/
//	$XDG_STATE_HOME/mnote/{,logs/}
//
// With MNOTE_HOME=DIR everything lives under DIR instead: DIR/config.json,
// DIR/data, DIR/state, DIR/logs.
func Get() Dirs {
	if home := os.Getenv("MNOTE_HOME"); home != "" {
		if abs, err := filepath.Abs(home); err == nil {
			home = abs
		}
		return Dirs{ConfigFile: filepath.Join(home, "config.json"), Data: filepath.Join(home, "data"),
			State: filepath.Join(home, "state"), Logs: filepath.Join(home, "logs")}
	}
	xdgMu.Lock()
	xdg.Reload() // xdg reads the environment once at init; tests change it
	config, data, state := xdg.ConfigHome, xdg.DataHome, xdg.StateHome
	xdgMu.Unlock()
	st := filepath.Join(state, "mnote")
	return Dirs{ConfigFile: filepath.Join(config, "mnote", "config.json"), Data: filepath.Join(data, "mnote"),
		State: st, Logs: filepath.Join(st, "logs")}
}
