// Command mnote is a local-first desktop app for chatting with local AI agents
// (ACP) over a folder of Markdown notes.
//
// With no arguments it opens the window. With arguments it runs the headless
// subcommand they name (see package mnote/app/cli), which needs no display.
package main

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"runtime"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"mnote/app"
	"mnote/app/cli"
	"mnote/store"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	if len(os.Args) > 1 {
		// `mnote serve` serves the same page as the window.
		if dist, err := fs.Sub(assets, "frontend/dist"); err == nil {
			cli.Assets = dist
		}
		os.Exit(cli.Main(os.Args[1:]))
	}

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	slog.SetDefault(log)

	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		log.Error("no display: DISPLAY and WAYLAND_DISPLAY are unset; headless subcommands (e.g. `mnote --version`) need none")
		os.Exit(1)
	}

	emitter := &app.WailsEmitter{}
	a := &desktop{log: log, emitter: emitter}
	svc, err := app.New(app.Config{Paths: store.DefaultPaths(), Emitter: emitter, Logger: log, ClientVersion: cli.Version, PickFolder: a.pickFolder, SaveFile: a.saveFile})
	if err != nil {
		log.Error("mnote's data folder could not be opened", "err", err)
		os.Exit(1)
	}
	a.svc = svc
	err = wails.Run(&options.App{
		Title:            "mnote",
		Width:            1200,
		Height:           800,
		MinWidth:         800,
		MinHeight:        500,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 0xf7, G: 0xf7, B: 0xf5, A: 0xff}, // page background (light)
		Logger:           wailsLogger{log},
		OnStartup:        a.startup,
		OnDomReady:       a.domReady,
		OnShutdown:       a.shutdown,
		// One bound method, window.go.app.Bridge.Call (see app/API.md).
		Bind: []any{svc.Bridge()},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "mnote", // matches StartupWMClass in build/linux/mnote.desktop
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		svc.Shutdown()
		log.Error("window failed", "err", err)
		os.Exit(1)
	}
	svc.Shutdown() // normally done by OnShutdown already
}

// desktop holds the window's lifecycle hooks.
type desktop struct {
	log     *slog.Logger
	ctx     context.Context // Wails runtime context, set in startup
	emitter *app.WailsEmitter
	svc     *app.Services
}

func (d *desktop) startup(ctx context.Context) {
	d.ctx = ctx
	d.emitter.SetContext(ctx)
	d.log.Info("mnote window starting", "version", cli.Version)
}

func (d *desktop) domReady(context.Context) { d.log.Info("page loaded") }

// saveFile is the native save dialog for an export ("" when cancelled).
func (d *desktop) saveFile(_ context.Context, name string) (string, error) {
	if d.ctx == nil {
		return "", errors.New("the window is not ready yet; try again")
	}
	return wruntime.SaveFileDialog(d.ctx, wruntime.SaveDialogOptions{Title: "Export the session", DefaultFilename: name, CanCreateDirectories: true})
}

// pickFolder is the native "Open folder" dialog ("" when cancelled).
func (d *desktop) pickFolder(context.Context) (string, error) {
	if d.ctx == nil {
		return "", errors.New("the window is not ready yet; try again")
	}
	return wruntime.OpenDirectoryDialog(d.ctx, wruntime.OpenDialogOptions{Title: "Open a folder of notes", CanCreateDirectories: true})
}

// shutdown stops every agent (pending permission requests are answered
// cancelled) and closes the transcripts.
func (d *desktop) shutdown(context.Context) {
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
