//go:build desktop

package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"mnote/internal/l10n"
	"mnote/internal/xdgdirs"
)

// Version is the mnote version, set at build time with
// -ldflags "-X mnote/desktop.Version=...".
var Version = "dev"

// Run runs the window, with icon as its icon, on args until it is closed
// and returns the exit code. args are what `mnote` passed on: none, or one folder or Markdown
// file (absolute). Anything else is a command: it goes to the command line
// binary. A second launch for the same data folder hands its target to the
// running window (which comes to the front) and exits 0.
func Run(args []string, icon []byte) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	slog.SetDefault(log)

	cli, cliErr := findCLI()
	t, window := windowTarget(args)
	if !window {
		if cliErr != nil {
			log.Error("mnote's command line is not installed", "err", cliErr)
			return 1
		}
		err := syscall.Exec(cli, append([]string{"mnote"}, args...), os.Environ())
		log.Error("running the command line", "cli", cli, "err", err)
		return 1
	}
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		log.Error("no display: DISPLAY and WAYLAND_DISPLAY are unset; headless subcommands (e.g. `mnote --version`) need none")
		return 1
	}
	if filepath.Base(os.Args[0]) != "mnote" && os.Getenv("MNOTE_APP_REEXEC") == "" {
		// Started as mnote-app (not through mnote): run again as "mnote"
		// (GLib takes the program name, GTK the window's WM_CLASS, from
		// argv[0]; Wails sets its ProgramName only after GTK started).
		if exe, err := os.Executable(); err == nil {
			os.Setenv("MNOTE_APP_REEXEC", "1")
			if cli != "" {
				os.Setenv(envCLI, cli)
			}
			err = syscall.Exec(exe, append([]string{"mnote"}, args...), os.Environ())
			log.Warn("could not run again as mnote (the window's WM_CLASS stays mnote-app)", "err", err)
		}
	}
	os.Unsetenv("MNOTE_APP_REEXEC") // the services and agents do not inherit it
	if cliErr != nil {
		log.Error("mnote's services are not installed", "err", cliErr)
		return 1
	}
	stateDir := xdgdirs.Get().State
	id := instanceID(stateDir)
	if handOver(id, t) {
		log.Info("mnote is already running: its window was asked to come to the front", "open", t.arg())
		return 0
	}

	d := &desktop{log: log, geom: geometryFile(stateDir)}
	d.svc = &services{cli: cli, log: log, handler: d}
	if err := d.svc.start(t); err != nil {
		log.Error("mnote's services did not start", "err", err)
		return 1
	}
	g := loadGeometry(d.geom)
	err := wails.Run(&options.App{
		Title:            "mnote",
		Width:            g.Width,
		Height:           g.Height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		AssetServer:      &assetserver.Options{Handler: assetHandler{d.svc}},
		BackgroundColour: &options.RGBA{R: 0xf7, G: 0xf7, B: 0xf5, A: 0xff}, // page background (light)
		Logger:           wailsLogger{log},
		OnStartup:        d.startup,
		OnDomReady:       d.domReady,
		OnBeforeClose:    d.beforeClose,
		OnShutdown:       d.shutdown,
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId:               id,
			OnSecondInstanceLaunch: d.secondInstance,
		},
		// One bound method, window.go.desktop.Bridge.Call (see app/API.md).
		Bind: []any{&Bridge{svc: d.svc}},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "mnote", // WM_CLASS; matches StartupWMClass in build/linux/mnote.desktop
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	d.svc.stop() // normally done by OnShutdown already
	if err != nil {
		log.Error("window failed", "err", err)
		return 1
	}
	return d.exitCode()
}

// desktop holds the window's lifecycle hooks and answers the services'
// calls for native dialogs.
type desktop struct {
	log  *slog.Logger
	svc  *services
	geom string // the file that remembers the window's size and place

	mu     sync.Mutex
	ctx    context.Context // Wails runtime context, set in startup
	saved  geometry
	stop   chan struct{}
	failed bool   // the services could not be kept running
	reason string // why, until the window can say it
}

func (d *desktop) context() context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctx
}

func (d *desktop) exitCode() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failed {
		return 1
	}
	return 0
}

func (d *desktop) startup(ctx context.Context) {
	d.mu.Lock()
	d.ctx = ctx
	d.stop = make(chan struct{})
	d.mu.Unlock()
	d.log.Info("mnote window starting", "version", Version)
}

func (d *desktop) domReady(ctx context.Context) {
	d.log.Info("page loaded")
	d.mu.Lock()
	failed, reason := d.failed, d.reason
	d.mu.Unlock()
	if failed {
		// The services gave up before the window was up.
		go d.sayFailed(ctx, reason)
		return
	}
	// Wails centres the window when it shows it: place it afterwards.
	g := loadGeometry(d.geom)
	if g.placed() {
		var screens []screen
		if ss, err := wruntime.ScreenGetAll(ctx); err == nil {
			for _, s := range ss {
				screens = append(screens, screen{Width: s.Size.Width, Height: s.Size.Height})
			}
		}
		g = g.clamp(screens)
		wruntime.WindowSetSize(ctx, g.Width, g.Height)
		wruntime.WindowSetPosition(ctx, g.X, g.Y)
	}
	d.mu.Lock()
	d.saved = g
	stop := d.stop
	d.mu.Unlock()
	if stop != nil {
		go d.watchGeometry(ctx, stop)
	}
}

// secondInstance: another `mnote` was started for the same data folder.
// The window comes to the front; a folder it was given is opened.
func (d *desktop) secondInstance(data options.SecondInstanceData) {
	ctx := d.context()
	if ctx == nil {
		return
	}
	wruntime.WindowUnminimise(ctx)
	wruntime.WindowShow(ctx)
	if len(data.Args) != 1 {
		return
	}
	a := data.Args[0]
	if !filepath.IsAbs(a) {
		a = filepath.Join(data.WorkingDirectory, a)
	}
	t, ok := windowTarget([]string{a})
	if !ok || t.Dir == "" {
		d.log.Warn("a second launch named no folder mnote can open", "arg", data.Args[0])
		return
	}
	args, _ := json.Marshal(map[string]string{"dir": t.Dir, "select": t.File})
	if _, err := d.svc.call("workspace.open", string(args)); err != nil {
		d.log.Warn("the folder of a second launch could not be opened", "dir", t.Dir, "err", err)
		return
	}
	d.log.Info("opened the folder of a second launch", "dir", t.Dir, "select", t.File)
	wruntime.WindowReloadApp(ctx) // the page reads the open folder again
}

// beforeClose saves the window's size and place while it still exists.
func (d *desktop) beforeClose(ctx context.Context) bool {
	d.saveGeometry(ctx)
	return false
}

// shutdown stops the services: every agent stops (pending permission
// requests are answered cancelled) and the transcripts close.
func (d *desktop) shutdown(context.Context) {
	d.mu.Lock()
	if d.stop != nil {
		close(d.stop)
		d.stop = nil
	}
	d.mu.Unlock()
	d.svc.stop()
	d.log.Info("mnote window shut down")
}

// Event implements winlink.Handler: the services' events go to the page.
// Events before the window started are dropped (the page loads the state).
func (d *desktop) Event(name string, data json.RawMessage) {
	if ctx := d.context(); ctx != nil {
		wruntime.EventsEmit(ctx, name, data)
	}
}

// Call implements winlink.Handler: the services ask for a native dialog.
func (d *desktop) Call(_ context.Context, method, args string) (string, error) {
	ctx := d.context()
	if ctx == nil {
		return "", errors.New("the window is not ready yet; try again")
	}
	// The dialogs are worded in the page's language (the args' locale).
	var a struct{ Locale, Dir, Name string }
	if args != "" {
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return "", fmt.Errorf("%s: %w", method, err)
		}
	}
	var path string
	var err error
	switch method {
	case nativePickFolder:
		path, err = fileDialog(ctx, wordsFor(a.Locale, false), false, "", "")
	case nativeSaveFile:
		path, err = fileDialog(ctx, wordsFor(a.Locale, true), true, a.Dir, a.Name)
	default:
		return "", fmt.Errorf("the window has no method %q", method)
	}
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(path)
	return string(b), nil
}

// servicesFailed: the services stopped and could not be restarted. The
// window says so and closes; nothing is lost (transcripts and notes are
// on disk as they were written).
func (d *desktop) servicesFailed(reason string) {
	d.mu.Lock()
	d.failed, d.reason = true, reason
	ctx := d.ctx
	d.mu.Unlock()
	if ctx == nil {
		return // the page, once loaded, says it (domReady)
	}
	d.sayFailed(ctx, reason)
}

func (d *desktop) sayFailed(ctx context.Context, reason string) {
	loc := l10n.FromEnv()
	_, _ = wruntime.MessageDialog(ctx, wruntime.MessageDialogOptions{
		Type:    wruntime.ErrorDialog,
		Title:   loc.T("dialog.services_failed_title"),
		Message: loc.T("dialog.services_failed", reason),
	})
	wruntime.Quit(ctx)
}

// servicesRestarted: the services crashed and run again; the page loads
// their state anew.
func (d *desktop) servicesRestarted() {
	if ctx := d.context(); ctx != nil {
		wruntime.WindowReloadApp(ctx)
	}
}

// wailsLogger sends Wails' own log lines to slog.
type wailsLogger struct{ l *slog.Logger }

func (w wailsLogger) Print(m string)   { w.l.Info(m, "src", "wails") }
func (w wailsLogger) Trace(m string)   { w.l.Debug(m, "src", "wails") }
func (w wailsLogger) Debug(m string)   { w.l.Debug(m, "src", "wails") }
func (w wailsLogger) Info(m string)    { w.l.Info(m, "src", "wails") }
func (w wailsLogger) Warning(m string) { w.l.Warn(m, "src", "wails") }
func (w wailsLogger) Error(m string)   { w.l.Error(m, "src", "wails") }
func (w wailsLogger) Fatal(m string) {
	w.l.Error(m, "src", "wails", "fatal", true)
	os.Exit(1)
}
