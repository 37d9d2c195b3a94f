// Command package builds mnote's packages from build/bin (make build) with
// nfpm: a .deb and an .rpm from one configuration, and a portable .tar.gz
// with an install script for ~/.local. Icons at the usual sizes are made
// from build/appicon.png. Run by `make package`:
//
//	cd build/package && go run . -root ../.. -version V -webkit 4.1 -out ../../dist
//
// It is a module of its own so that nfpm's dependencies stay out of mnote's.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm"
	"golang.org/x/image/draw"
)

//go:embed install.sh
var installScript []byte

// iconSizes are the hicolor sizes a menu, a task switcher and a file
// manager ask for.
var iconSizes = []int{16, 24, 32, 48, 64, 128, 256, 512}

// depends are the runtime libraries of the window's build for each
// WebKitGTK API (the command line needs only libc).
var depends = map[string]struct{ deb, rpm []string }{
	"4.1": {deb: []string{"libc6", "libgtk-3-0", "libwebkit2gtk-4.1-0"}, rpm: []string{"gtk3", "webkit2gtk4.1"}},
	"4.0": {deb: []string{"libc6", "libgtk-3-0", "libwebkit2gtk-4.0-37"}, rpm: []string{"gtk3", "webkit2gtk4.0"}},
}

func main() {
	root := flag.String("root", "../..", "the repository")
	version := flag.String("version", "dev", "the version (git describe)")
	webkit := flag.String("webkit", "4.1", "the WebKitGTK API the window links: 4.1 or 4.0")
	out := flag.String("out", "../../dist", "where the packages go")
	checkSize := flag.Bool("check-size", false, "only check the installed size against the budget (make test)")
	flag.Parse()
	var err error
	if *checkSize {
		err = checkBudget(*root)
	} else {
		err = run(*root, *version, *webkit, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "package:", err)
		os.Exit(1)
	}
}

func run(root, version, webkit, out string) error {
	deps, ok := depends[webkit]
	if !ok {
		return fmt.Errorf("-webkit %q: want 4.1 or 4.0", webkit)
	}
	stage, err := os.MkdirTemp("", "mnote-package-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tree, err := layout(root, stage)
	if err != nil {
		return err
	}
	if err := tree.withinBudget(); err != nil {
		return err
	}
	v := debVersion(version)
	info := &nfpm.Info{
		Name:          "mnote",
		Arch:          runtime.GOARCH,
		Platform:      "linux",
		Version:       v,
		VersionSchema: "none",
		Section:       "editors",
		Priority:      "optional",
		Maintainer:    "mnote <mnote@localhost>",
		Description:   "Chat with local AI agents over a folder of Markdown notes\nA desktop app (GTK, WebKitGTK) and a command line (mnote prompt, mnote serve,\nmnote search) for agents speaking ACP, the Agent Client Protocol.",
		Homepage:      "https://example.invalid/mnote",
		License:       "Proprietary",
		MTime:         time.Unix(0, 0).UTC(),
		Overridables: nfpm.Overridables{
			Depends:    deps.deb,
			Recommends: []string{"fonts-noto-cjk"},
			Contents:   tree.contents(),
			Deb:        nfpm.Deb{Compression: "xz"},
			RPM:        nfpm.RPM{Compression: "xz", Summary: "Chat with local AI agents over Markdown notes", Group: "Applications/Editors"},
		},
	}
	for _, format := range []string{"deb", "rpm"} {
		i := *info
		if format == "rpm" {
			i.Depends = deps.rpm
			i.Recommends = nil
		}
		p, err := nfpm.Get(format)
		if err != nil {
			return err
		}
		pi := nfpm.WithDefaults(&i)
		if err := nfpm.PrepareForPackager(pi, format); err != nil {
			return fmt.Errorf("%s: %w", format, err)
		}
		name := filepath.Join(out, p.ConventionalFileName(pi))
		if err := writeWith(name, func(w io.Writer) error { return p.Package(pi, w) }); err != nil {
			return fmt.Errorf("%s: %w", format, err)
		}
		fmt.Println(name)
	}
	name := filepath.Join(out, fmt.Sprintf("mnote-%s-linux-%s.tar.gz", v, runtime.GOARCH))
	if err := writeWith(name, func(w io.Writer) error { return tree.tarball(w, fmt.Sprintf("mnote-%s", v)) }); err != nil {
		return fmt.Errorf("tar.gz: %w", err)
	}
	fmt.Println(name)
	return nil
}

// debVersion makes git describe's output a version every packager takes:
// v1.2.3 → 1.2.3, 1.2.3-4-gabc → 1.2.3+4.gabc, a bare hash → 0.0.0+git.HASH.
func debVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		v = "0.0.0+git." + v
	}
	first, rest, _ := strings.Cut(v, "-")
	if rest != "" {
		sep := "+"
		if strings.Contains(first, "+") {
			sep = "."
		}
		v = first + sep + strings.ReplaceAll(rest, "-", ".")
	}
	return regexp.MustCompile(`[^A-Za-z0-9.+~]`).ReplaceAllString(v, ".")
}

// file is one file of the installed tree: its path under /usr (and under
// the tarball's top folder), where its bytes are staged, and its mode.
type file struct {
	rel, src string
	mode     os.FileMode
}

type tree []file

// maxInstalled is the budget for everything the package installs: a
// desktop app under 26 MB (the command line and the window together, with
// their icons and man page). It was 25 MB until shared sessions (their
// end-to-end encryption client and roster checks) and installing agents
// from the ACP Registry (zip and tar unpacking) added 1.05 MB; the
// profiler left the app's build then (0.19 MB), for 25.8 MB installed.
const maxInstalled = 26_000_000

// withinBudget prints the installed size and fails when it is over
// maxInstalled.
func (t tree) withinBudget() error {
	var total int64
	var parts []string
	for _, f := range t {
		fi, err := os.Stat(f.src)
		if err != nil {
			return err
		}
		total += fi.Size()
		if f.mode&0o111 != 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f MB", f.rel, float64(fi.Size())/1e6))
		}
	}
	fmt.Printf("installed size: %.2f MB of %.0f MB (%s, the rest %d files)\n", float64(total)/1e6, float64(maxInstalled)/1e6, strings.Join(parts, ", "), len(t)-len(parts))
	if total > maxInstalled {
		return fmt.Errorf("the installed app is %.2f MB, over its %.0f MB budget: see what grew with `go tool nm -size -sort size` on an unstripped build, or `go version -m build/bin/mnote` for a new module", float64(total)/1e6, float64(maxInstalled)/1e6)
	}
	return nil
}

// checkBudget lays the package out and checks its size, without packaging.
func checkBudget(root string) error {
	stage, err := os.MkdirTemp("", "mnote-package-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	t, err := layout(root, stage)
	if err != nil {
		return err
	}
	return t.withinBudget()
}

// layout stages every installed file: both binaries, the .desktop entry,
// the icons, the man page.
func layout(root, stage string) (tree, error) {
	var t tree
	add := func(rel string, b []byte, mode os.FileMode) error {
		src := filepath.Join(stage, rel)
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			return err
		}
		t = append(t, file{rel: rel, src: src, mode: mode})
		return os.WriteFile(src, b, mode)
	}
	for _, f := range []struct{ from, to string }{{"build/bin/mnote", "bin/mnote"}, {"build/bin/mnote-app", "lib/mnote/mnote-app"}} {
		b, err := os.ReadFile(filepath.Join(root, f.from))
		if err != nil {
			return nil, fmt.Errorf("%w (run make build first)", err)
		}
		if err := add(f.to, b, 0o755); err != nil {
			return nil, err
		}
	}
	desktop, err := os.ReadFile(filepath.Join(root, "build/linux/mnote.desktop"))
	if err != nil {
		return nil, err
	}
	if err := add("share/applications/mnote.desktop", desktop, 0o644); err != nil {
		return nil, err
	}
	man, err := os.ReadFile(filepath.Join(root, "docs/mnote.1"))
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(man)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if err := add("share/man/man1/mnote.1.gz", gz.Bytes(), 0o644); err != nil {
		return nil, err
	}
	icons, err := icons(filepath.Join(root, "build/appicon.png"))
	if err != nil {
		return nil, err
	}
	for _, size := range iconSizes {
		if err := add(fmt.Sprintf("share/icons/hicolor/%dx%d/apps/mnote.png", size, size), icons[size], 0o644); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// icons scales the app icon to every size (Catmull-Rom, alpha kept).
func icons(path string) (map[int][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[int][]byte{}
	for _, size := range iconSizes {
		dst := image.NewNRGBA(image.Rect(0, 0, size, size))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		var b bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, dst); err != nil {
			return nil, err
		}
		out[size] = b.Bytes()
	}
	return out, nil
}

// contents are the files for nfpm, below /usr.
func (t tree) contents() files.Contents {
	var c files.Contents
	for _, f := range t {
		c = append(c, &files.Content{Source: f.src, Destination: "/usr/" + f.rel, FileInfo: &files.ContentFileInfo{Mode: f.mode, Owner: "root", Group: "root"}})
	}
	c = append(c, &files.Content{Source: "", Destination: "/usr/share/doc/mnote", Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o755}})
	return c
}

// tarball writes the portable archive: top/ holding the tree and install.sh.
func (t tree) tarball(w io.Writer, top string) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	mtime := time.Unix(0, 0)
	put := func(name string, b []byte, mode os.FileMode) error {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + name, Mode: int64(mode), Size: int64(len(b)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	for _, f := range t {
		b, err := os.ReadFile(f.src)
		if err != nil {
			return err
		}
		if err := put(f.rel, b, f.mode); err != nil {
			return err
		}
	}
	if err := put("install.sh", installScript, 0o755); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writeWith writes path through write, replacing it only when write
// succeeded.
func writeWith(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pkg-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
