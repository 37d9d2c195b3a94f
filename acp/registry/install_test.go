package registry_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ulikunitz/xz"

	"mnote/acp/registry"
)

// entry is one member of a test archive.
type entry struct {
	name, body, link string
	mode             int64
	typ              byte // tar type; 0 = regular
}

const script = "#!/bin/sh\necho registry-agent-ok \"$@\"\n"

func tarBytes(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: e.typ, Linkname: e.link}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGz(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(tarBytes(t, entries))
	zw.Close()
	return buf.Bytes()
}

func tarXz(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	xw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write(tarBytes(t, entries))
	xw.Close()
	return buf.Bytes()
}

func zipBytes(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := fs.FileMode(e.mode)
		if mode == 0 {
			mode = 0o644
		}
		body := e.body
		if e.typ == tar.TypeSymlink {
			mode |= fs.ModeSymlink
			body = e.link
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

// files serves fixed bodies on loopback; "/short/…" announces more bytes
// than it sends (a broken-off download).
type files struct {
	mu sync.Mutex
	m  map[string][]byte
}

func serve(t *testing.T, m map[string][]byte) (*httptest.Server, *files) {
	t.Helper()
	fl := &files{m: m}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fl.mu.Lock()
		b, ok := fl.m[r.URL.Path]
		fl.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/short/") {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)*2))
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, fl
}

func binaryAgent(id, version, archive, cmd, sum string) registry.Agent {
	return registry.Agent{ID: id, Name: id, Version: version, Description: "d", Distribution: registry.Distribution{
		Binary: map[string]registry.Binary{"linux-x86_64": {Archive: archive, Cmd: cmd, Args: []string{"acp"}, SHA256: sum}}}}
}

func newInstaller(t *testing.T) *registry.Installer {
	return &registry.Installer{Root: filepath.Join(t.TempDir(), "agents"), Platform: "linux-x86_64",
		LookPath: func(string) string { return "" }}
}

// leftovers lists what is in ROOT/<id> besides the version folders.
func leftovers(t *testing.T, in *registry.Installer, id string, keep ...string) []string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(in.Root, id))
	var out []string
	for _, e := range ents {
		if !strings.Contains(strings.Join(keep, "\x00")+"\x00", e.Name()+"\x00") {
			out = append(out, e.Name())
		}
	}
	return out
}

func runScript(t *testing.T, inst registry.Installed) string {
	t.Helper()
	out, err := exec.Command(inst.Command, inst.Args...).CombinedOutput()
	if err != nil {
		t.Fatalf("run %s: %v\n%s", inst.Command, err, out)
	}
	return string(out)
}

func TestInstallBinaryArchives(t *testing.T) {
	if os.PathSeparator != '/' {
		t.Skip("the archives hold a shell script")
	}
	good := []entry{{name: "pkg/", typ: tar.TypeDir, mode: 0o755}, {name: "pkg/bin/agent", body: script, mode: 0o755},
		{name: "pkg/README", body: "hi"}, {name: "pkg/bin/alias", typ: tar.TypeSymlink, link: "agent"}}
	tgz := tarGz(t, good)
	sum := sha256.Sum256(tgz)
	srv, _ := serve(t, map[string][]byte{
		"/a.tar.gz":  tgz,
		"/a.zip":     zipBytes(t, []entry{{name: "bin/agent", body: script}}), // no exec bit: made executable
		"/a.tar.xz":  tarXz(t, good),
		"/raw-agent": []byte(script),
	})
	for _, c := range []struct{ archive, cmd, sum string }{
		{"/a.tar.gz", "pkg/bin/agent", hex.EncodeToString(sum[:])},
		{"/a.zip", "bin/agent", ""},
		{"/a.tar.xz", "pkg/bin/agent", ""},
		{"/raw-agent", "agent", ""},
	} {
		t.Run(c.archive, func(t *testing.T) {
			in := newInstaller(t)
			var progress []registry.Progress
			in.Progress = func(p registry.Progress) { progress = append(progress, p) }
			res, err := in.Install(t.Context(), binaryAgent("tool", "1.0.0", srv.URL+c.archive, c.cmd, c.sum))
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != registry.KindBinary || res.Dir != in.Dir("tool", "1.0.0") || !strings.HasPrefix(res.Command, res.Dir) {
				t.Errorf("installed %+v", res)
			}
			if out := runScript(t, res); out != "registry-agent-ok acp\n" {
				t.Errorf("agent said %q", out)
			}
			last := progress[len(progress)-1]
			var sawBytes bool
			for _, p := range progress {
				sawBytes = sawBytes || p.Phase == "download" && p.Done > 0
			}
			if !sawBytes || last.Phase != "unpack" {
				t.Errorf("progress %+v", progress)
			}
			if l := leftovers(t, in, "tool", "1.0.0"); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
		})
	}
}

func TestInstallRefusesHostileArchives(t *testing.T) {
	fifo := entry{name: "fifo", typ: tar.TypeFifo}
	dev := entry{name: "dev", typ: tar.TypeChar}
	bomb := zipBytes(t, []entry{{name: "agent", body: script}, {name: "zeros", body: strings.Repeat("\x00", 8<<20)}})
	srv, _ := serve(t, map[string][]byte{
		"/dotdot.tar.gz":     tarGz(t, []entry{{name: "agent", body: script}, {name: "../escape", body: "x"}}),
		"/deep.tar.gz":       tarGz(t, []entry{{name: "a/../../escape", body: "x"}, {name: "agent", body: script}}),
		"/abs.tar.gz":        tarGz(t, []entry{{name: "/tmp/escape-abs", body: "x"}, {name: "agent", body: script}}),
		"/link.tar.gz":       tarGz(t, []entry{{name: "agent", typ: tar.TypeSymlink, link: "/bin/sh"}}),
		"/linkup.tar.gz":     tarGz(t, []entry{{name: "d/l", typ: tar.TypeSymlink, link: "../../outside"}, {name: "agent", body: script}}),
		"/through.tar.gz":    tarGz(t, []entry{{name: "l", typ: tar.TypeSymlink, link: "."}, {name: "l/../../x", body: "x"}}),
		"/hard.tar.gz":       tarGz(t, []entry{{name: "agent", typ: tar.TypeLink, link: "../../etc/passwd"}}),
		"/fifo.tar.gz":       tarGz(t, []entry{fifo, {name: "agent", body: script}}),
		"/dev.tar.gz":        tarGz(t, []entry{dev, {name: "agent", body: script}}),
		"/ziplink.zip":       zipBytes(t, []entry{{name: "agent", typ: tar.TypeSymlink, link: "../../../bin/sh"}}),
		"/zipdot.zip":        zipBytes(t, []entry{{name: "../agent", body: script}}),
		"/bomb.zip":          bomb,
		"/cmddir.tar.gz":     tarGz(t, []entry{{name: "agent/", typ: tar.TypeDir}}),
		"/cmdlink.tar.gz":    tarGz(t, []entry{{name: "real", body: script}, {name: "agent", typ: tar.TypeSymlink, link: "real"}}),
		"/nocmd.tar.gz":      tarGz(t, []entry{{name: "other", body: script}}),
		"/garbage.tar.gz":    []byte("not gzip at all"),
		"/short/a.tar.gz":    tarGz(t, []entry{{name: "agent", body: script}}),
		"/checksum.tar.gz":   tarGz(t, []entry{{name: "agent", body: script}}),
		"/dup.tar.gz":        tarGz(t, []entry{{name: "agent", body: script}, {name: "agent", body: "#!/bin/sh\nevil\n"}}),
		"/dotdotlink.tar.gz": tarGz(t, []entry{{name: "x", typ: tar.TypeSymlink, link: ".."}, {name: "agent", body: script}}),
	})
	cases := map[string]struct {
		path, sum string
		want      error
	}{
		"dotdot":     {path: "/dotdot.tar.gz", want: registry.ErrUnsafeArchive},
		"deep":       {path: "/deep.tar.gz", want: registry.ErrUnsafeArchive},
		"absolute":   {path: "/abs.tar.gz", want: registry.ErrUnsafeArchive},
		"link out":   {path: "/link.tar.gz", want: registry.ErrUnsafeArchive},
		"link up":    {path: "/linkup.tar.gz", want: registry.ErrUnsafeArchive},
		"through":    {path: "/through.tar.gz", want: registry.ErrUnsafeArchive},
		"hard link":  {path: "/hard.tar.gz", want: registry.ErrUnsafeArchive},
		"fifo":       {path: "/fifo.tar.gz", want: registry.ErrUnsafeArchive},
		"device":     {path: "/dev.tar.gz", want: registry.ErrUnsafeArchive},
		"zip link":   {path: "/ziplink.zip", want: registry.ErrUnsafeArchive},
		"zip dotdot": {path: "/zipdot.zip", want: registry.ErrUnsafeArchive},
		"zip bomb":   {path: "/bomb.zip", want: registry.ErrTooLarge},
		"cmd dir":    {path: "/cmddir.tar.gz", want: registry.ErrUnsafeArchive},
		"cmd link":   {path: "/cmdlink.tar.gz", want: registry.ErrUnsafeArchive},
		"no cmd":     {path: "/nocmd.tar.gz"},
		"garbage":    {path: "/garbage.tar.gz"},
		"truncated":  {path: "/short/a.tar.gz"},
		"sha256":     {path: "/checksum.tar.gz", sum: strings.Repeat("ab", 32)},
		"duplicate":  {path: "/dup.tar.gz"},
		"dotdotlink": {path: "/dotdotlink.tar.gz", want: registry.ErrUnsafeArchive},
		"not found":  {path: "/missing.tar.gz"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in := newInstaller(t)
			in.Limits = registry.Limits{Ratio: 50}
			// A working version is there already: a failed reinstall keeps it.
			prev := in.Dir("tool", "1.0.0")
			os.MkdirAll(prev, 0o700)
			os.WriteFile(filepath.Join(prev, "agent"), []byte(script), 0o700)
			_, err := in.Install(t.Context(), binaryAgent("tool", "1.0.0", srv.URL+c.path, "agent", c.sum))
			if err == nil {
				t.Fatal("installed")
			}
			t.Log(err)
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
			if b, _ := os.ReadFile(filepath.Join(prev, "agent")); string(b) != script {
				t.Errorf("the previous install changed: %q", b)
			}
			if l := leftovers(t, in, "tool", "1.0.0"); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
			for _, p := range []string{filepath.Join(filepath.Dir(in.Root), "escape"), filepath.Join(in.Root, "escape"), "/tmp/escape-abs"} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}

func TestInstallWrongPlatformAndMissingTools(t *testing.T) {
	in := newInstaller(t)
	a := binaryAgent("tool", "1.0.0", "https://example.invalid/a.tar.gz", "agent", "")
	in.Platform = "darwin-aarch64"
	if _, err := in.Install(t.Context(), a); !errors.Is(err, registry.ErrNoDistribution) {
		t.Errorf("wrong platform: %v", err)
	}
	a.Distribution.NPX = &registry.Package{Package: "tool@1.0.0"}
	var need *registry.ErrNeedTool
	if _, err := in.Install(t.Context(), a); !errors.As(err, &need) || need.Tool != "npm" || !strings.Contains(err.Error(), "Node.js") {
		t.Errorf("no npm: %v", err)
	}
	a.Distribution.NPX = nil
	a.Distribution.UVX = &registry.Package{Package: "tool==1.0.0"}
	if _, err := in.Install(t.Context(), a); !errors.As(err, &need) || need.Tool != "uv" {
		t.Errorf("no uv: %v", err)
	}
	in.LookPath = func(name string) string { return "/opt/uv/bin/" + name }
	res, err := in.Install(t.Context(), a)
	if err != nil || res.Kind != registry.KindUVX || res.Command != "/opt/uv/bin/uvx" || res.Args[0] != "tool==1.0.0" {
		t.Errorf("uvx: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, ".registry-agent.json")); err != nil {
		t.Errorf("uvx install not recorded: %v", err)
	}
	if _, err := in.Install(t.Context(), registry.Agent{ID: "../x", Version: "1.0.0"}); err == nil {
		t.Error("a bad id was installed")
	}
}

func TestInstallCancelledLeavesNothing(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(make([]byte, 1000))
		w.(http.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	in := newInstaller(t)
	ctx, cancel := contextWithCancel(t)
	in.Progress = func(p registry.Progress) {
		if p.Done > 0 {
			cancel()
		}
	}
	if _, err := in.Install(ctx, binaryAgent("tool", "1.0.0", srv.URL+"/a.tar.gz", "agent", "")); err == nil {
		t.Fatal("installed")
	}
	if l := leftovers(t, in, "tool"); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	return ctx, cancel
}

// A server that stops sending mid-download does not hold the install.
func TestInstallStalledDownload(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(make([]byte, 100))
		w.(http.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	in := newInstaller(t)
	in.IdleTimeout = 300 * time.Millisecond
	_, err := in.Install(t.Context(), binaryAgent("tool", "1.0.0", srv.URL+"/a.tar.gz", "agent", ""))
	if !errors.Is(err, registry.ErrStalled) {
		t.Fatalf("stalled download: %v", err)
	}
	if l := leftovers(t, in, "tool"); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
