package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// DefaultURL is the ACP Registry's published index (the registry's
// build script uploads it under registry/v1/latest, with the icons beside
// it as <id>.svg).
const DefaultURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

// Index is the parsed registry: its format version, the usable agents in
// the index's order, and the entries skipped with their reasons.
type Index struct {
	Version string    `json:"version"`
	Agents  []Agent   `json:"agents"`
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is an entry of the index that cannot be used.
type Skipped struct {
	Index  int    `json:"index"` // position in the index's agents
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason"`
}

// Agent is one agent of the index.
type Agent struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	License      string       `json:"license,omitempty"`
	Icon         string       `json:"icon,omitempty"` // absolute URL ("" when none)
	Repository   string       `json:"repository,omitempty"`
	Authors      []string     `json:"authors,omitempty"`
	Distribution Distribution `json:"distribution"`
}

// Distribution says how an agent can be installed; at least one is set.
type Distribution struct {
	NPX    *Package          `json:"npx,omitempty"`
	UVX    *Package          `json:"uvx,omitempty"`
	Binary map[string]Binary `json:"binary,omitempty"` // by platform (Platform)
}

// Package is an npm (npx) or PyPI (uvx) package. Package is pinned to
// the agent's version by Parse: "name@1.2.3" (npm) or "name==1.2.3"
// (PyPI).
type Package struct {
	Package string            `json:"package"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Binary is one platform's archive and the executable in it.
type Binary struct {
	Archive string            `json:"archive"` // absolute http(s) URL
	Cmd     string            `json:"cmd"`     // relative path in the archive, cleaned ("codex-acp")
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// SHA256 is the archive's hex digest when the index gives one (the
	// published schema has none yet; checked when present).
	SHA256 string `json:"sha256,omitempty"`
}

// Distribution kinds (Installed.Kind).
const (
	KindBinary = "binary"
	KindNPX    = "npx"
	KindUVX    = "uvx"
)

// Platform is the registry's name of a platform ("linux-x86_64",
// "darwin-aarch64", "windows-x86_64"), "" for one it does not list.
func Platform(goos, goarch string) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[goarch]
	switch {
	case arch == "":
		return ""
	case goos == "linux", goos == "darwin", goos == "windows":
		return goos + "-" + arch
	}
	return ""
}

// ThisPlatform is Platform for the running program.
func ThisPlatform() string { return Platform(runtime.GOOS, runtime.GOARCH) }

var (
	idRE      = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)
	versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,3}([-+][0-9A-Za-z.+-]{1,64})?$`)
	npmNameRE = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)
	pypiRE    = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9,._-]+\])?$`)
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	sha256RE  = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

// maxIndex bounds the index read from the network or the cache.
const maxIndex = 16 << 20

// Parse reads an index. base is the URL it came from, against which
// relative icon and archive URLs are resolved ("" leaves them as they
// are, and drops relative ones). Only a document that is not an object
// with an "agents" array is an error; bad entries land in Skipped.
func Parse(data []byte, base string) (Index, error) {
	if len(data) > maxIndex {
		return Index{}, fmt.Errorf("registry index: %d bytes is more than the %d allowed", len(data), maxIndex)
	}
	var top struct {
		Version string            `json:"version"`
		Agents  []json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return Index{}, fmt.Errorf("registry index: %w", err)
	}
	if top.Agents == nil {
		return Index{}, errors.New("registry index: no \"agents\" list")
	}
	baseURL, _ := url.Parse(base)
	idx := Index{Version: top.Version, Agents: []Agent{}}
	seen := map[string]bool{}
	for i, raw := range top.Agents {
		a, err := parseAgent(raw, baseURL)
		if err == nil && seen[a.ID] {
			err = fmt.Errorf("the id %q is listed twice", a.ID)
		}
		if err != nil {
			idx.Skipped = append(idx.Skipped, Skipped{Index: i, ID: a.ID, Reason: err.Error()})
			continue
		}
		seen[a.ID] = true
		idx.Agents = append(idx.Agents, a)
	}
	return idx, nil
}

// parseAgent decodes and checks one entry; on error the returned agent
// carries the id when it was readable.
func parseAgent(raw json.RawMessage, base *url.URL) (Agent, error) {
	var a Agent
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return a, errors.New("the entry is null")
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		var id struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &id)
		return Agent{ID: clip(id.ID)}, fmt.Errorf("unreadable entry: %w", err)
	}
	a.ID = clip(a.ID)
	if !idRE.MatchString(a.ID) {
		return Agent{ID: a.ID}, fmt.Errorf("the id %q is not lowercase letters, digits and dashes", a.ID)
	}
	if strings.TrimSpace(a.Name) == "" {
		return Agent{ID: a.ID}, errors.New("no name")
	}
	if !versionRE.MatchString(a.Version) {
		return Agent{ID: a.ID}, fmt.Errorf("the version %q is not a plain version number", clip(a.Version))
	}
	a.Icon = resolveURL(base, a.Icon)
	if !strings.HasPrefix(a.Repository, "https://") && !strings.HasPrefix(a.Repository, "http://") {
		a.Repository = ""
	}
	var why []string
	d := &a.Distribution
	if d.NPX != nil {
		if err := pinNPM(d.NPX, a.Version); err != nil {
			why = append(why, "npx: "+err.Error())
			d.NPX = nil
		}
	}
	if d.UVX != nil {
		if err := pinPyPI(d.UVX, a.Version); err != nil {
			why = append(why, "uvx: "+err.Error())
			d.UVX = nil
		}
	}
	for _, plat := range slices.Sorted(maps.Keys(d.Binary)) {
		b := d.Binary[plat]
		if err := checkBinary(&b, base); err != nil {
			why = append(why, "binary "+plat+": "+err.Error())
			delete(d.Binary, plat)
			continue
		}
		d.Binary[plat] = b
	}
	if len(d.Binary) == 0 {
		d.Binary = nil
	}
	if d.NPX == nil && d.UVX == nil && d.Binary == nil {
		if len(why) == 0 {
			why = append(why, "no distribution mnote knows (npx, uvx or binary)")
		}
		return Agent{ID: a.ID}, errors.New(strings.Join(why, "; "))
	}
	return a, nil
}

// clip keeps a string from the index short enough for a message.
func clip(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:80], "") + "…"
	}
	return s
}

// resolveURL makes u absolute against base; "" for what is not http(s).
func resolveURL(base *url.URL, u string) string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if !p.IsAbs() {
		if base == nil || !base.IsAbs() {
			return ""
		}
		p = base.ResolveReference(p)
	}
	if p.Scheme != "https" && p.Scheme != "http" || p.Host == "" {
		return ""
	}
	return p.String()
}

// pinNPM checks an npm spec and pins it to version: "name" becomes
// "name@version"; "name@x.y.z" must be an exact version (no range, tag or
// URL, which npm would also accept).
func pinNPM(p *Package, version string) error {
	spec := p.Package
	name, ver := spec, ""
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		name, ver = spec[:i], spec[i+1:]
	}
	if !npmNameRE.MatchString(name) || len(name) > 214 {
		return fmt.Errorf("%q is not an npm package name", clip(spec))
	}
	if ver == "" {
		ver = version
	}
	if !versionRE.MatchString(ver) {
		return fmt.Errorf("%q is not pinned to one version", clip(spec))
	}
	p.Package = name + "@" + ver
	return checkArgsEnv(p.Args, p.Env)
}

// pinPyPI checks a PyPI spec ("name", "name==1.2", "name@1.2") and pins
// it as "name==version".
func pinPyPI(p *Package, version string) error {
	spec := p.Package
	name, ver := spec, ""
	if n, v, ok := strings.Cut(spec, "=="); ok {
		name, ver = n, v
	} else if n, v, ok := strings.Cut(spec, "@"); ok {
		name, ver = n, v
	}
	if !pypiRE.MatchString(name) || len(name) > 200 {
		return fmt.Errorf("%q is not a PyPI package name", clip(spec))
	}
	if ver == "" {
		ver = version
	}
	if !versionRE.MatchString(ver) {
		return fmt.Errorf("%q is not pinned to one version", clip(spec))
	}
	p.Package = name + "==" + ver
	return checkArgsEnv(p.Args, p.Env)
}

// checkBinary checks one platform's target: an http(s) archive and a
// command inside the folder.
func checkBinary(b *Binary, base *url.URL) error {
	if b.Archive = resolveURL(base, b.Archive); b.Archive == "" {
		return errors.New("no http(s) archive URL")
	}
	cmd, err := localPath(b.Cmd)
	if err != nil {
		return fmt.Errorf("cmd: %w", err)
	}
	b.Cmd = cmd
	if b.SHA256 != "" && !sha256RE.MatchString(b.SHA256) {
		return fmt.Errorf("sha256 %q is not 64 hex digits", clip(b.SHA256))
	}
	b.SHA256 = strings.ToLower(b.SHA256)
	return checkArgsEnv(b.Args, b.Env)
}

// localPath cleans a slash-separated path inside a folder ("./bin/x" →
// "bin/x"); an empty, absolute or escaping path is an error.
func localPath(p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) || strings.Contains(p, `\`) {
		return "", fmt.Errorf("%q is not a path inside the folder", clip(p))
	}
	c := path.Clean(p)
	if path.IsAbs(c) || c == "." || c == ".." || strings.HasPrefix(c, "../") || (len(c) > 1 && c[1] == ':') {
		return "", fmt.Errorf("%q is not a path inside the folder", clip(p))
	}
	return c, nil
}

func checkArgsEnv(args []string, env map[string]string) error {
	for _, a := range args {
		if strings.ContainsRune(a, 0) {
			return errors.New("an argument holds a NUL byte")
		}
	}
	for k, v := range env {
		if !envNameRE.MatchString(k) || strings.ContainsRune(v, 0) {
			return fmt.Errorf("env %q is not a variable name", clip(k))
		}
	}
	return nil
}

// Find returns the agent with the given id.
func (idx Index) Find(id string) (Agent, bool) {
	i := slices.IndexFunc(idx.Agents, func(a Agent) bool { return a.ID == id })
	if i < 0 {
		return Agent{}, false
	}
	return idx.Agents[i], true
}

// Newer reports whether version a is newer than b ("1.10.0" > "1.9.2";
// a release is newer than its pre-release "1.0.0-rc.1"). Versions that
// do not parse compare as strings.
func Newer(a, b string) bool { return compareVersions(a, b) > 0 }

func compareVersions(a, b string) int {
	na, pa, oka := splitVersion(a)
	nb, pb, okb := splitVersion(b)
	if !oka || !okb {
		return strings.Compare(a, b)
	}
	for i := range max(len(na), len(nb)) {
		x, y := 0, 0
		if i < len(na) {
			x = na[i]
		}
		if i < len(nb) {
			y = nb[i]
		}
		if x != y {
			if x > y {
				return 1
			}
			return -1
		}
	}
	switch {
	case pa == pb:
		return 0
	case pa == "":
		return 1
	case pb == "":
		return -1
	}
	return strings.Compare(pa, pb)
}

func splitVersion(v string) (nums []int, pre string, ok bool) {
	v, _, _ = strings.Cut(v, "+")
	v, pre, _ = strings.Cut(v, "-")
	for f := range strings.SplitSeq(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, "", false
		}
		nums = append(nums, n)
	}
	return nums, pre, true
}
