package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"os/signal"
	"path"
	"strings"
	"syscall"

	"mnote/app"
	"mnote/internal/winlink"
)

// windowServicesCmd is the hidden command mnote's window (mnote-app) runs
// this binary with: the services of one window, over the socket pair the
// window passes as fd 3 (package winlink). It is not in the usage: a
// person never types it.
const windowServicesCmd = "window-services"

// The window's own methods, which the services call (the native dialogs).
const (
	NativePickFolder = "native.pickFolder" // args {"locale"} → "path" ("" = cancelled)
	NativeSaveFile   = "native.saveFile"   // args {"locale","dir","name"} → "path"
)

// runWindowServices runs the services until the window closes its end of
// the link (or exits, or SIGTERM), then stops every agent and returns.
func (e *env) runWindowServices(args []string) int {
	fs := flag.NewFlagSet(windowServicesCmd, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	dir := fs.String("workspace", "", "the folder to open (\"\" = the last one used)")
	sel := fs.String("select", "", "a Markdown file in it to select")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	// The window's log is the services' log: what it logged at Info
	// before they moved here, it still does.
	if os.Getenv("MNOTE_DEBUG") == "" {
		e.log = slog.New(slog.NewTextHandler(e.stderr, nil))
		slog.SetDefault(e.log)
	}
	conn, err := winlink.Inherited()
	if err != nil {
		return e.fail(exitUsage, err)
	}
	w := &windowSide{}
	link := winlink.New(conn, w, e.log)
	svc, err := app.New(app.Config{
		Paths: e.paths, Workspace: *dir, Select: *sel, Emitter: linkEmitter{link: link, log: e.log},
		Detector: e.detector(), Logger: e.log, ClientVersion: Version,
		PickFolder: func(ctx context.Context, locale string) (string, error) {
			return nativeString(ctx, link, NativePickFolder, map[string]string{"locale": locale})
		},
		SaveFile: func(ctx context.Context, locale, dir, name string) (string, error) {
			return nativeString(ctx, link, NativeSaveFile, map[string]string{"locale": locale, "dir": dir, "name": name})
		},
	})
	if err != nil {
		link.Close()
		return e.fail(exitAgent, fmt.Errorf("mnote's data folder could not be opened: %w", err))
	}
	w.bridge = svc.Bridge()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sig)
	served := make(chan error, 1)
	go func() { served <- link.Serve() }()
	select {
	case err = <-served:
		if err != nil {
			e.log.Warn("the link to the window failed", "err", err)
		}
	case s := <-sig:
		e.log.Info("the window's services were stopped", "signal", s.String())
		link.Close()
	}
	// Every agent stops; pending permission requests are answered cancelled.
	svc.Shutdown()
	return exitOK
}

// windowSide answers the window's calls: the page's API calls.
type windowSide struct {
	bridge *app.Bridge // set before the link serves
}

func (w *windowSide) Call(_ context.Context, method, args string) (string, error) {
	if method == windowAsset {
		return asset(Assets, args)
	}
	// Bridge.Call runs under the services' lifetime, as in the window before.
	return w.bridge.Call(method, args)
}

// windowAsset is the window's request for a file of the UI (it carries no
// copy of its own): args {"path"} → {"type", "body" (base64)}; a file
// that is not there has no type.
const windowAsset = "window.asset"

func asset(ui fs.FS, args string) (string, error) {
	var a struct{ Path string }
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", fmt.Errorf("%s: %w", windowAsset, err)
	}
	name := strings.TrimPrefix(path.Clean("/"+a.Path), "/")
	if name == "" {
		name = "index.html"
	}
	var out struct {
		Type string `json:"type"`
		Body []byte `json:"body"`
	}
	if ui != nil && fs.ValidPath(name) {
		if b, err := fs.ReadFile(ui, name); err == nil {
			out.Body = b
			out.Type = mime.TypeByExtension(path.Ext(name))
			if out.Type == "" {
				out.Type = http.DetectContentType(b)
			}
		}
	}
	res, err := json.Marshal(out)
	return string(res), err
}

func (w *windowSide) Event(name string, _ json.RawMessage) {
	slog.Warn("the window sent an event the services do not take", "event", name)
}

// linkEmitter sends the services' events to the window.
type linkEmitter struct {
	link *winlink.Conn
	log  *slog.Logger
}

func (l linkEmitter) Emit(name string, data any) {
	if err := l.link.Emit(name, data); err != nil {
		l.log.Debug("an event was not sent to the window", "event", name, "err", err)
	}
}

// nativeString asks the window for a native dialog and decodes its answer.
func nativeString(ctx context.Context, link *winlink.Conn, method string, args any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("%s: %w", method, err)
	}
	res, err := link.Call(ctx, method, string(b))
	if err != nil {
		return "", fmt.Errorf("the window's dialog: %w", err)
	}
	var path string
	if err := json.Unmarshal([]byte(res), &path); err != nil {
		return "", fmt.Errorf("the window's dialog answered %.80q: %w", res, err)
	}
	return path, nil
}
