//go:build desktop

package desktop

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// handOver asks a running window of the same instance id to come to the
// front and open t, the way Wails' single-instance lock does (the same
// D-Bus name and message), but before this process opens mnote's data:
// a second launch then touches nothing. It reports whether a running
// window took it; without a session bus there is no lock (each launch
// opens a window), as in Wails.
func handOver(id string, t target) bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	name, path := busName(id)
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil || !has {
		return false
	}
	data := options.SecondInstanceData{}
	if a := t.arg(); a != "" {
		data.Args = []string{a}
	}
	data.WorkingDirectory, _ = os.Getwd()
	msg, err := json.Marshal(data)
	if err != nil {
		return false
	}
	return conn.Object(name, dbus.ObjectPath(path)).Call(name+".SendMessage", 0, string(msg)).Err == nil
}

// busName is the D-Bus name and object path Wails v2.9.2 registers for a
// SingleInstanceLock's UniqueId (internal/frontend/desktop/linux).
func busName(id string) (name, path string) {
	s := "wails_app_" + strings.ReplaceAll(strings.ReplaceAll(id, "-", "_"), ".", "_")
	return "org." + s + ".SingleInstance", "/org/" + s + "/SingleInstance"
}
