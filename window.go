//go:build desktop

package main

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
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

	"mnote/app"
	"mnote/app/cli"
	"mnote/internal/l10n"
	"mnote/store"
)

//go:embed build/appicon.png
var icon []byte

// openWindow runs the window on t until it is closed; it returns the exit
// code. A second launch for the same data folder hands its target to the
// running window (which comes to the front) and exits 0.
func openWindow(t target) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	slog.SetDefault(log)

	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		log.Error("no display: DISPLAY and WAYLAND_DISPLAY are unset; headless subcommands (e.g. `mnote --version`) need none")
		return 1
	}
	if filepath.Base(os.Args[0]) != "mnote" && os.Getenv("MNOTE_APP_REEXEC") == "" {
		// Started as mnote-app (not through mnote): run again as "mnote",
		// see launch.go, so the window's WM_CLASS is "mnote".
		if exe, err := os.Executable(); err == nil {
			os.Setenv("MNOTE_APP_REEXEC", "1")
			err = syscall.Exec(exe, append([]string{"mnote"}, os.Args[1:]...), os.Environ())
			log.Warn("could not run again as mnote (the window's WM_CLASS stays mnote-app)", "err", err)
		}
	}
	os.Unsetenv("MNOTE_APP_REEXEC") // agents started later do not inherit it
	paths := store.DefaultPaths()
	id := instanceID(paths)
	if handOver(id, t) {
		log.Info("mnote is already running: its window was asked to come to the front", "open", t.arg())
		return 0
	}

	emitter := &app.WailsEmitter{}
	d := &desktop{log: log, emitter: emitter, geom: geometryFile(paths)}
	svc, err := app.New(app.Config{Paths: paths, Workspace: t.Dir, Select: t.File, Emitter: emitter, Logger: log, ClientVersion: cli.Version, PickFolder: d.pickFolder, SaveFile: d.saveFile})
	if err != nil {
		log.Error("mnote's data folder could not be opened", "err", err)
		return 1
	}
	d.svc = svc
	g := loadGeometry(d.geom)
	err = wails.Run(&options.App{
		Title:            "mnote",
		Width:            g.Width,
		Height:           g.Height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		AssetServer:      &assetserver.Options{Assets: assets},
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
		// One bound method, window.go.app.Bridge.Call (see app/API.md).
		Bind: []any{svc.Bridge()},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "mnote", // WM_CLASS; matches StartupWMClass in build/linux/mnote.desktop
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		svc.Shutdown()
		log.Error("window failed", "err", err)
		return 1
	}
	svc.Shutdown() // normally done by OnShutdown already
	return 0
}

// instanceID names the single-instance lock: one window per data folder
// (MNOTE_HOME), so separate homes (tests, profiles) run side by side.
func instanceID(p store.Paths) string {
	h := sha256.Sum256([]byte(p.StateDir))
	return "mnote-" + hex.EncodeToString(h[:6])
}

// desktop holds the window's lifecycle hooks.
type desktop struct {
	log     *slog.Logger
	emitter *app.WailsEmitter
	svc     *app.Services
	geom    string // the file that remembers the window's size and place

	mu    sync.Mutex
	ctx   context.Context // Wails runtime context, set in startup
	saved geometry
	stop  chan struct{}
}

func (d *desktop) context() context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctx
}

func (d *desktop) startup(ctx context.Context) {
	d.mu.Lock()
	d.ctx = ctx
	d.stop = make(chan struct{})
	d.mu.Unlock()
	d.emitter.SetContext(ctx)
	d.log.Info("mnote window starting", "version", cli.Version)
}

func (d *desktop) domReady(ctx context.Context) {
	d.log.Info("page loaded")
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
	go d.watchGeometry(ctx, stop)
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
	t, ok, err := resolveTarget(data.Args[0], data.WorkingDirectory)
	if err != nil || !ok || t.Dir == "" {
		if err != nil {
			d.log.Warn("a second launch named no folder mnote can open", "err", err)
		}
		return
	}
	args, _ := json.Marshal(map[string]string{"dir": t.Dir, "select": t.File})
	if _, err := d.svc.Bridge().Call("workspace.open", string(args)); err != nil {
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

// systemLocale is the language of the native dialogs: the system's
// (LC_ALL, LC_MESSAGES, LANG — what GTK and the page follow by default).
func systemLocale() l10n.Locale {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			return l10n.Parse(v)
		}
	}
	return l10n.EN
}

// saveFile is the native save dialog for an export ("" when cancelled).
func (d *desktop) saveFile(_ context.Context, dir, name string) (string, error) {
	ctx := d.context()
	if ctx == nil {
		return "", errors.New("the window is not ready yet; try again")
	}
	return wruntime.SaveFileDialog(ctx, wruntime.SaveDialogOptions{Title: systemLocale().T("dialog.export_title"), DefaultDirectory: dir, DefaultFilename: name, CanCreateDirectories: true})
}

// pickFolder is the native "Open folder" dialog ("" when cancelled).
func (d *desktop) pickFolder(context.Context) (string, error) {
	ctx := d.context()
	if ctx == nil {
		return "", errors.New("the window is not ready yet; try again")
	}
	return wruntime.OpenDirectoryDialog(ctx, wruntime.OpenDialogOptions{Title: systemLocale().T("dialog.open_title"), CanCreateDirectories: true})
}

// shutdown stops every agent (pending permission requests are answered
// cancelled) and closes the transcripts.
func (d *desktop) shutdown(context.Context) {
	d.mu.Lock()
	if d.stop != nil {
		close(d.stop)
		d.stop = nil
	}
	d.mu.Unlock()
	d.svc.Shutdown()
	d.log.Info("mnote window shut down")
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
