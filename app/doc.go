// Package app is the bridge between the UI and mnote's Go services, the
// same in the Wails window and in `mnote serve` (the UI in a browser); its
// contract is API.md in this folder.
//
// Services holds the services (agents, sessions, permissions) and the
// live sessions; Services.Invoke dispatches one call by method name.
// Bridge is the one struct bound into the window: its only exported method
// is Call(method, argsJSON), so the window and the browser share one code
// path and one error shape (*Error).
//
// Events go out through an Emitter: WailsEmitter in the window, Hub (a
// WebSocket fan-out) in `mnote serve`, Recorder in tests. Each live
// session has one event goroutine that coalesces streamed text and sends
// structural changes at once, in order, numbered by a per-session seq.
//
// Each live session runs its own agent process for now; the processes are
// stopped when the session is closed and on Shutdown.
package app
