package scripts

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	webkit41 = "libwebkit2gtk-4.1-dev"
	webkit40 = "libwebkit2gtk-4.0-dev"
)

// scriptsDir is this folder: the tests run the real scripts.
func scriptsDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWebkitTag(t *testing.T) {
	cases := []struct {
		name        string
		modules     []string
		noPkgConfig bool
		want        string
	}{
		{name: "4.1 only (Debian 13)", modules: []string{"webkit2gtk-4.1"}, want: "webkit2_41\n"},
		{name: "both (Debian 12 after make deps)", modules: []string{"webkit2gtk-4.0", "webkit2gtk-4.1"}, want: "webkit2_41\n"},
		{name: "4.0 only", modules: []string{"webkit2gtk-4.0"}, want: ""},
		{name: "neither", want: ""},
		{name: "no pkg-config", modules: []string{"webkit2gtk-4.1"}, noPkgConfig: true, want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var without []string
			if c.noPkgConfig {
				without = []string{"pkg-config"}
			}
			f := newFakeEnv(t, "1000", without...)
			for _, m := range c.modules {
				writeFile(t, filepath.Join(f.state, "pc", m), "", 0o644)
			}
			out, errOut, ok := f.run(t, t.TempDir(), filepath.Join(scriptsDir(t), "webkit-tag.sh"))
			if !ok || out != c.want || errOut != "" {
				t.Fatalf("webkit-tag.sh: ok=%v stdout %q stderr %q, want ok, stdout %q, no stderr", ok, out, errOut, c.want)
			}
		})
	}
}

// otherPkgs are every package deps.sh wants besides WebKitGTK.
var otherPkgs = []string{
	"build-essential", "pkg-config", "libgtk-3-dev",
	"xvfb", "xauth", "dbus-daemon", "xdotool", "imagemagick", "tesseract-ocr", "fonts-noto-cjk",
	"chromium", "postgresql", "patch", "util-linux", "iproute2",
}

// installs returns the packages of each `apt-get install` in apt.log.
func installs(t *testing.T, f *fakeEnv) [][]string {
	t.Helper()
	var got [][]string
	for _, l := range f.lines(t, "apt.log") {
		if args, ok := strings.CutPrefix(l, "install "); ok {
			var pkgs []string
			for _, a := range strings.Fields(args) {
				if !strings.HasPrefix(a, "-") {
					pkgs = append(pkgs, a)
				}
			}
			got = append(got, pkgs)
		}
	}
	return got
}

func TestDepsInstallsTheWebKitTheDistributionHas(t *testing.T) {
	cases := []struct {
		name      string
		repo      []string // what the distribution has
		emptyList bool     // apt lists not read yet (a fresh container image)
		want      string
	}{
		{name: "Debian 13: only 4.1", repo: []string{webkit41}, want: webkit41},
		{name: "Debian 13, empty apt lists", repo: []string{webkit41}, emptyList: true, want: webkit41},
		{name: "Debian 12: both, 4.1 preferred", repo: []string{webkit40, webkit41}, want: webkit41},
		{name: "older: only 4.0", repo: []string{webkit40}, want: webkit40},
		{name: "older, empty apt lists", repo: []string{webkit40}, emptyList: true, want: webkit40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeEnv(t, "0")
			f.set(t, "repo", append(slices.Clone(otherPkgs), c.repo...)...)
			if c.emptyList {
				f.set(t, "lists")
			} else {
				f.set(t, "lists", append(slices.Clone(otherPkgs), c.repo...)...)
			}
			f.set(t, "installed", "patch", "util-linux") // what a minimal Debian has
			_, errOut, ok := f.run(t, t.TempDir(), filepath.Join(scriptsDir(t), "deps.sh"))
			if !ok {
				t.Fatalf("deps.sh failed: %s", errOut)
			}
			if got := f.lines(t, "apt.log"); len(got) != 2 || got[0] != "update -q" {
				t.Fatalf("apt-get calls %q, want one update then one install", got)
			}
			var want []string
			for _, p := range append(slices.Clone(otherPkgs), c.want) {
				if p != "patch" && p != "util-linux" {
					want = append(want, p)
				}
			}
			got := installs(t, f)[0]
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("apt-get install %q\nwant %q", got, want)
			}
			if gl := f.lines(t, "go.log"); !slices.Equal(gl, []string{"mod download"}) {
				t.Fatalf("go calls %q, want mod download", gl)
			}
		})
	}
}

func TestDepsWithEverythingInstalledRunsNoAptGet(t *testing.T) {
	for _, webkit := range []string{webkit41, webkit40} {
		t.Run(webkit, func(t *testing.T) {
			f := newFakeEnv(t, "0")
			all := append(slices.Clone(otherPkgs), webkit)
			f.set(t, "repo", append(slices.Clone(otherPkgs), webkit)...)
			f.set(t, "lists", append(slices.Clone(otherPkgs), webkit)...)
			f.set(t, "installed", all...)
			if _, errOut, ok := f.run(t, t.TempDir(), filepath.Join(scriptsDir(t), "deps.sh")); !ok {
				t.Fatalf("deps.sh failed: %s", errOut)
			}
			if got := f.lines(t, "apt.log"); got != nil {
				t.Fatalf("apt-get ran: %q", got)
			}
		})
	}
}

func TestDepsAsUser(t *testing.T) {
	t.Run("Debian 13, nothing installed: prints the sudo command for 4.1", func(t *testing.T) {
		f := newFakeEnv(t, "1000")
		f.set(t, "repo", append(slices.Clone(otherPkgs), webkit41)...)
		f.set(t, "lists", append(slices.Clone(otherPkgs), webkit41)...)
		f.set(t, "installed", otherPkgs...)
		_, errOut, ok := f.run(t, t.TempDir(), filepath.Join(scriptsDir(t), "deps.sh"))
		if ok {
			t.Fatal("deps.sh as a user with WebKitGTK missing exited 0")
		}
		if want := "sudo apt-get install -y --no-install-recommends " + webkit41 + "\n"; !strings.Contains(errOut, want) {
			t.Fatalf("stderr %q, want it to contain %q", errOut, want)
		}
		if f.lines(t, "apt.log") != nil {
			t.Fatalf("apt-get ran as a user: %q", f.lines(t, "apt.log"))
		}
	})
	t.Run("Debian 12 with 4.0 installed: keeps it", func(t *testing.T) {
		f := newFakeEnv(t, "1000")
		f.set(t, "repo", append(slices.Clone(otherPkgs), webkit40, webkit41)...)
		f.set(t, "lists", append(slices.Clone(otherPkgs), webkit40, webkit41)...)
		f.set(t, "installed", append(slices.Clone(otherPkgs), webkit40)...)
		_, errOut, ok := f.run(t, t.TempDir(), filepath.Join(scriptsDir(t), "deps.sh"))
		if !ok {
			t.Fatalf("deps.sh failed: %s", errOut)
		}
		if !strings.Contains(errOut, webkit41+" (4.1, libsoup 3) is available") {
			t.Fatalf("stderr %q does not mention that 4.1 is available", errOut)
		}
		if got := f.lines(t, "apt.log"); got != nil {
			t.Fatalf("apt-get ran as a user: %q", got)
		}
	})
}

func TestDepsFailsWhenAptKnowsNoWebKit(t *testing.T) {
	f := newFakeEnv(t, "0")
	f.set(t, "repo", otherPkgs...)
	f.set(t, "lists")
	_, errOut, ok := f.run(t, t.TempDir(), filepath.Join(scriptsDir(t), "deps.sh"))
	if ok {
		t.Fatal("deps.sh exited 0 with no WebKitGTK package anywhere")
	}
	if want := "apt knows neither " + webkit41 + " nor " + webkit40; !strings.Contains(errOut, want) {
		t.Fatalf("stderr %q, want %q", errOut, want)
	}
	if got := f.lines(t, "apt.log"); !slices.Equal(got, []string{"update -q"}) {
		t.Fatalf("apt-get calls %q, want exactly one update", got)
	}
}
