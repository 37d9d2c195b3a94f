package desktop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"mnote/internal/atomicfile"
)

// The window's size when nothing is remembered, and its least size.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 800, 500
)

// geometry is the window's size and place, remembered in the state folder
// (window.json) from one run to the next.
type geometry struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	X      int `json:"x"`
	Y      int `json:"y"`
	// Placed: X and Y were saved (a window never placed is centred).
	Placed bool `json:"placed"`
}

func (g geometry) placed() bool { return g.Placed }

// screen is one monitor's size in pixels.
type screen struct{ Width, Height int }

func geometryFile(stateDir string) string { return filepath.Join(stateDir, "window.json") }

// loadGeometry reads the remembered geometry; a missing, unreadable or
// absurd file gives the default size, centred.
func loadGeometry(path string) geometry {
	def := geometry{Width: defaultWidth, Height: defaultHeight}
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	var g geometry
	if json.Unmarshal(b, &g) != nil || g.Width < minWidth || g.Height < minHeight || g.Width > 1<<15 || g.Height > 1<<15 {
		return def
	}
	return g
}

// writeGeometry remembers g (atomically: a crash leaves the old file).
func writeGeometry(path string, g geometry) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("the state folder: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the window's size: %w", err)
	}
	return nil
}

// clamp fits g on the largest of screens (the window manager places
// windows on a monitor; Wails reports sizes, not monitor origins): no
// larger than it, and at least half of its minimum size visible. With no
// screens known g is unchanged.
func (g geometry) clamp(screens []screen) geometry {
	var s screen
	for _, c := range screens {
		if c.Width*c.Height > s.Width*s.Height {
			s = c
		}
	}
	if s.Width <= 0 || s.Height <= 0 {
		return g
	}
	g.Width = min(max(g.Width, minWidth), s.Width)
	g.Height = min(max(g.Height, minHeight), s.Height)
	g.X = min(max(g.X, 0), s.Width-g.Width)
	g.Y = min(max(g.Y, 0), s.Height-g.Height)
	return g
}
