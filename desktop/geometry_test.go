package desktop

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGeometryRemembered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "window.json")
	if g := loadGeometry(path); g != (geometry{Width: defaultWidth, Height: defaultHeight}) {
		t.Fatalf("nothing saved: %+v, want the default size, not placed", g)
	}
	want := geometry{Width: 1000, Height: 700, X: 40, Y: 30, Placed: true}
	if err := writeGeometry(path, want); err != nil {
		t.Fatal(err)
	}
	if got := loadGeometry(path); got != want {
		t.Fatalf("loaded %+v, want %+v", got, want)
	}
	// A hostile or broken file gives the default, never a 1-pixel or huge window.
	for _, body := range []string{"{", `{"width":1,"height":1,"placed":true}`, `{"width":99999999,"height":800}`} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if g := loadGeometry(path); g.Width != defaultWidth || g.Height != defaultHeight || g.Placed {
			t.Errorf("%s: %+v, want the default", body, g)
		}
	}
}

func TestGeometryClampedToTheScreen(t *testing.T) {
	cases := []struct {
		in      geometry
		screens []screen
		want    geometry
	}{
		// saved on a big monitor, started on a laptop
		{geometry{Width: 2400, Height: 1400, X: 1800, Y: 900}, []screen{{1366, 768}}, geometry{Width: 1366, Height: 768, X: 0, Y: 0}},
		// off the right and bottom edge: moved back on
		{geometry{Width: 1000, Height: 700, X: 5000, Y: 4000}, []screen{{1920, 1080}}, geometry{Width: 1000, Height: 700, X: 920, Y: 380}},
		// negative (left of the screen)
		{geometry{Width: 1000, Height: 700, X: -300, Y: -50}, []screen{{1920, 1080}}, geometry{Width: 1000, Height: 700, X: 0, Y: 0}},
		// fits: unchanged; the largest screen counts
		{geometry{Width: 1000, Height: 700, X: 100, Y: 100}, []screen{{800, 600}, {1920, 1080}}, geometry{Width: 1000, Height: 700, X: 100, Y: 100}},
		// no screen known: unchanged
		{geometry{Width: 1000, Height: 700, X: 5000, Y: 5000}, nil, geometry{Width: 1000, Height: 700, X: 5000, Y: 5000}},
	}
	for _, c := range cases {
		if got := c.in.clamp(c.screens); got != c.want {
			t.Errorf("%+v on %v: %+v, want %+v", c.in, c.screens, got, c.want)
		}
	}
}
