// Package desktop is mnote's window (the mnote-app binary): Wails, GTK and
// WebKit, and nothing else of mnote. The services — the notes, the
// sessions, the agents, everything `mnote serve` runs — live in a child
// `mnote window-services` process, reached over a socket pair (package
// winlink): the page's one bound method (window.go.desktop.Bridge.Call)
// and the events pass through unchanged, and the services ask the window
// for its native dialogs. So the command line, which never loads GTK,
// carries the services, and the window only the window: one copy of each
// on disk.
package desktop
