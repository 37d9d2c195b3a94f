//go:build desktop && !linux

package desktop

import (
	"context"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// fileDialog is Wails' dialog where mnote has no GTK: the title worded,
// the buttons the platform's own.
func fileDialog(ctx context.Context, w dialogWords, save bool, dir, name string) (string, error) {
	if save {
		return wruntime.SaveFileDialog(ctx, wruntime.SaveDialogOptions{Title: w.Title, DefaultDirectory: dir, DefaultFilename: name, CanCreateDirectories: true})
	}
	return wruntime.OpenDirectoryDialog(ctx, wruntime.OpenDialogOptions{Title: w.Title, CanCreateDirectories: true})
}
