//go:build desktop

package desktop

import (
	"context"
	"time"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// geometryPoll is how often the window's size and place are looked at: GTK
// reports no resize to Wails v2, and a window killed or logged out of gets
// no close event, so what was last seen is saved as it changes.
const geometryPoll = 2 * time.Second

// watchGeometry saves the window's geometry whenever it changed, until stop.
func (d *desktop) watchGeometry(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(geometryPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			d.saveGeometry(ctx)
		}
	}
}

// saveGeometry writes the window's current size and place when they
// changed (a maximised or minimised window keeps its normal geometry).
func (d *desktop) saveGeometry(ctx context.Context) {
	if !wruntime.WindowIsNormal(ctx) {
		return
	}
	var g geometry
	g.Width, g.Height = wruntime.WindowGetSize(ctx)
	g.X, g.Y = wruntime.WindowGetPosition(ctx)
	g.Placed = true
	d.mu.Lock()
	same := g == d.saved
	d.saved = g
	d.mu.Unlock()
	if same {
		return
	}
	if err := writeGeometry(d.geom, g); err != nil {
		d.log.Warn("the window's size was not saved", "err", err)
	}
}
