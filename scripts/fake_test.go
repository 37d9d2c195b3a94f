package scripts

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeTools are the system tools the scripts call, as small bash scripts
// whose answers come from files in $FAKE_STATE:
//
//	installed   dpkg packages installed, one a line (apt-get install appends)
//	repo        packages the distribution has; apt-get update copies it to lists
//	lists       packages in apt's lists (what apt-cache show knows)
//	pc/NAME     pkg-config module NAME exists (installing its -dev package makes it)
//	apt.log     one line per apt-get call: its arguments
//	go.log      one line per go call: its arguments
//	gotest.json what go test prints (go test -json's lines)
var fakeTools = map[string]string{
	"dpkg-query": `# dpkg-query -W -f='${Status}' PKG
grep -qxF -- "${!#}" "$FAKE_STATE/installed" 2>/dev/null || exit 1
printf 'install ok installed'`,
	"apt-cache": `# apt-cache show --no-all-versions PKG
[[ $1 == show ]] || exit 2
if grep -qxF -- "${!#}" "$FAKE_STATE/lists" 2>/dev/null; then
	printf 'Package: %s\nVersion: 1.0\n\n' "${!#}"
else
	echo 'E: No packages found' >&2; exit 100
fi`,
	"apt-get": `echo "$*" >>"$FAKE_STATE/apt.log"
case $1 in
update) cp "$FAKE_STATE/repo" "$FAKE_STATE/lists" ;;
install)
	for p in "$@"; do
		[[ $p == -* || $p == install ]] && continue
		grep -qxF -- "$p" "$FAKE_STATE/lists" || { echo "E: Unable to locate package $p" >&2; exit 100; }
	done
	for p in "$@"; do
		[[ $p == -* || $p == install ]] && continue
		echo "$p" >>"$FAKE_STATE/installed"
		case $p in libwebkit2gtk-4.[01]-dev) m=${p#lib}; : >"$FAKE_STATE/pc/${m%-dev}" ;; esac
	done ;;
esac`,
	"id": `[[ $1 == -u ]] && echo "$FAKE_UID"`,
	"pkg-config": `[[ $1 == --exists ]] || exit 2
shift
for m in "$@"; do [[ -e $FAKE_STATE/pc/$m ]] || exit 1; done`,
	// go test prints $FAKE_STATE/gotest.json, when there is one.
	"go": `echo "$*" >>"$FAKE_STATE/go.log"
[[ $1 == test && -f $FAKE_STATE/gotest.json ]] && cat "$FAKE_STATE/gotest.json"
exit 0`,
	"node":  `exit 0`,
	"npm":   `[[ $1 == ci ]] && mkdir -p node_modules; exit 0`,
	"gofmt": `exit 0`,
}

// fakeEnv is a machine for the scripts: its state folder and the environment
// (a PATH of the fake tools and links to a few real ones, and nothing from the
// test's own environment, so a surrounding make's MAKEFLAGS cannot leak in).
type fakeEnv struct {
	state string
	env   []string
}

// newFakeEnv makes the fake tools; uid is what `id -u` prints, without names
// fake tools to leave out (the command is then missing altogether).
func newFakeEnv(t *testing.T, uid string, without ...string) *fakeEnv {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	state := filepath.Join(dir, "state")
	for _, d := range []string{bin, filepath.Join(state, "pc")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range fakeTools {
		if slices.Contains(without, name) {
			continue
		}
		writeFile(t, filepath.Join(bin, name), "#!/usr/bin/env bash\n"+body+"\n", 0o755)
	}
	// The real tools the scripts need, linked one by one: the system's bin
	// folders would also bring the real dpkg-query, apt-get, pkg-config, go.
	for _, name := range []string{"bash", "env", "make", "cat", "cp", "cut", "grep", "mkdir", "sed", "sha256sum", "dirname", "rm", "awk", "find", "gzip"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s is needed for this test: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeEnv{state: state, env: []string{
		"PATH=" + bin, "HOME=" + dir, "LC_ALL=C", "FAKE_STATE=" + state, "FAKE_UID=" + uid,
	}}
}

// set writes state file name with one line per entry.
func (f *fakeEnv) set(t *testing.T, name string, lines ...string) {
	t.Helper()
	s := strings.Join(lines, "\n")
	if s != "" {
		s += "\n"
	}
	writeFile(t, filepath.Join(f.state, name), s, 0o644)
}

// lines reads state file name (none when it does not exist).
func (f *fakeEnv) lines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.state, name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// run runs a command in dir with the fake environment; it returns stdout,
// stderr and whether it exited 0.
func (f *fakeEnv) run(t *testing.T, dir string, name string, args ...string) (stdout, stderr string, ok bool) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	cmd.Env = f.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	return o.String(), e.String(), err == nil
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the files below src (regular files, modes kept) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
