// Package desktop is mnote's window (the mnote-app binary): Wails, GTK and
// WebKit, and nothing else of mnote. The services — the notes, the
// sessions, the agents, everything `mnote serve` runs — live in a child
// `mnote window-services` process, reached over a socket pair (package
// winlink): the page's one bound method (window.go.desktop.Bridge.Call)
// and the events pass through unchanged, and the services ask the window
// for its native dialogs. So the command line, which never loads GTK,
// carries the services, and the window only the window: one copy of each
// on disk.
//
// The native dialogs (a folder to open, where to save an export) are
// worded in the page's language, which the services pass with the call:
// title and buttons from internal/l10n. On Linux they are GTK file
// choosers of mnote's own (dialog_linux.go), as Wails' have fixed English
// buttons; run on GTK's main thread while the asking goroutine waits.
package desktop
