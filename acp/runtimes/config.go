package runtimes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mnote/internal/atomicfile"
)

// configKey is the top-level key of config.json that holds the agents, the
// same key (and entry shape) as Zed's settings.
const configKey = "agent_servers"

// AgentServer is one entry of "agent_servers" in config.json:
//
//	{"command": "/path/x", "args": ["--acp"], "env": {"K": "V"}}
//
// A zero field means "not set", so an entry named like a preset overrides only
// the fields it sets. Keys this package does not know (Zed's "type",
// "default_mode", …) are kept and written back by SaveConfig.
type AgentServer struct {
	Command string            // "" = not set
	Args    []string          // nil = not set; an empty, non-nil slice sets "no arguments"
	Env     map[string]string // nil = not set; merged over a preset's env
	Cwd     string            // mnote extension: working directory ("" = the session's)
	// InitTimeoutSecs is an mnote extension ("init_timeout_secs"): how
	// long initialize and session/new may take; 0 = not set.
	InitTimeoutSecs int
	// InheritEnv is an mnote extension ("inherit_env"): the agent gets
	// mnote's whole environment, not only the allow-list (PassesEnv);
	// false = not set.
	InheritEnv bool
	// NotesTools is an mnote extension ("notes_tools"): false keeps
	// mnote's notes tools (its MCP server) from this agent; nil = not set
	// (on).
	NotesTools *bool
	// AdditionalDirectories is an mnote extension
	// ("additional_directories"): absolute folders this agent is told of
	// besides the session's (ACP additionalDirectories, sent only to an
	// agent that offers them); nil = not set.
	AdditionalDirectories []string
	// Title is an mnote extension ("title"): the name the agent is shown
	// by; "" = the entry's key.
	Title string
	// Registry is an mnote extension ("registry"): the ACP Registry
	// agent this entry was installed from (acp/registry); nil for the
	// user's own entries.
	Registry *RegistrySource

	extra map[string]json.RawMessage
}

// RegistrySource names the ACP Registry agent and version a runtime was
// installed from.
type RegistrySource struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

// Config is the part of config.json this package owns. Other top-level keys
// are kept verbatim and written back by SaveConfig.
type Config struct {
	AgentServers map[string]AgentServer

	extra map[string]json.RawMessage
	// secrets are the values of secrets.json beside config.json (see
	// SetSecret), loaded by LoadConfig and handed to Runtimes.
	secrets Secrets
}

// entryFields is the typed view of one entry, for decoding with exact error
// offsets.
type entryFields struct {
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	Env             map[string]string `json:"env"`
	Cwd             string            `json:"cwd"`
	InitTimeoutSecs int               `json:"init_timeout_secs"`
	InheritEnv      bool              `json:"inherit_env"`
	NotesTools      *bool             `json:"notes_tools"`
	AdditionalDirs  []string          `json:"additional_directories"`
	Title           string            `json:"title"`
	Registry        *RegistrySource   `json:"registry"`
}

var entryKeys = []string{"command", "args", "env", "cwd", "init_timeout_secs", "inherit_env", "notes_tools", "additional_directories", "title", "registry"}

// LoadConfig reads config.json at path, and the agents' secrets kept
// beside it (SecretsPath), which Runtimes hands to each runtime. A missing
// or empty file is an empty config. Malformed JSON is an error naming the
// file, line and column.
func LoadConfig(path string) (Config, error) {
	secrets, err := LoadSecrets(SecretsPath(path))
	if err != nil {
		return Config{}, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{secrets: secrets}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read agent config: %w", err)
	}
	var c Config
	if err := c.decode(data); err != nil {
		return Config{}, fmt.Errorf("agent config %s: %w", path, describeJSONError(data, err))
	}
	c.secrets = secrets
	return c, nil
}

// UnmarshalJSON decodes a whole config.json document.
func (c *Config) UnmarshalJSON(data []byte) error {
	return c.decode(data)
}

func (c *Config) decode(data []byte) error {
	*c = Config{}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	if top == nil { // the document was null
		return nil
	}
	raw, ok := top[configKey]
	delete(top, configKey)
	if len(top) > 0 {
		c.extra = top
	}
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	// Decode the whole document again so that type errors carry offsets into
	// the file, not into the sub-document.
	var typed struct {
		AgentServers map[string]*entryFields `json:"agent_servers"`
	}
	if err := json.Unmarshal(data, &typed); err != nil {
		return err
	}
	var rawEntries struct {
		AgentServers map[string]map[string]json.RawMessage `json:"agent_servers"`
	}
	if err := json.Unmarshal(data, &rawEntries); err != nil {
		return err
	}
	c.AgentServers = make(map[string]AgentServer, len(typed.AgentServers))
	for name, f := range typed.AgentServers {
		if f == nil { // "name": null
			continue
		}
		for _, d := range f.AdditionalDirs {
			if !filepath.IsAbs(d) || filepath.Clean(d) != d {
				return fmt.Errorf("%s[%q]: additional_directories: %q is not a clean absolute path", configKey, name, d)
			}
		}
		if f.InitTimeoutSecs < 0 {
			return fmt.Errorf("%s[%q]: init_timeout_secs is %d; give a number of seconds above 0, or leave it out", configKey, name, f.InitTimeoutSecs)
		}
		as := AgentServer{Command: f.Command, Args: f.Args, Env: f.Env, Cwd: f.Cwd, InitTimeoutSecs: f.InitTimeoutSecs, InheritEnv: f.InheritEnv,
			NotesTools: f.NotesTools, AdditionalDirectories: f.AdditionalDirs, Title: f.Title, Registry: f.Registry}
		for k, v := range rawEntries.AgentServers[name] {
			// encoding/json matched the known keys ignoring case; keep
			// only the others.
			if !slices.ContainsFunc(entryKeys, func(e string) bool { return strings.EqualFold(e, k) }) {
				if as.extra == nil {
					as.extra = map[string]json.RawMessage{}
				}
				as.extra[k] = v
			}
		}
		c.AgentServers[name] = as
	}
	return nil
}

// MarshalJSON encodes the whole config.json document, including the keys
// this package does not own.
func (c Config) MarshalJSON() ([]byte, error) {
	top := maps.Clone(c.extra)
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	if c.AgentServers != nil {
		servers, err := json.Marshal(c.AgentServers)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", configKey, err)
		}
		top[configKey] = servers
	}
	return json.Marshal(top)
}

// MarshalJSON writes the set fields in a stable, readable order (command,
// args, env, cwd, init_timeout_secs, inherit_env, notes_tools,
// additional_directories, title, registry), then the other keys in sorted order.
func (a AgentServer) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	add := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode %q: %w", key, err)
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(b)
		return nil
	}
	var err error
	if a.Command != "" {
		err = errors.Join(err, add("command", a.Command))
	}
	if a.Args != nil {
		err = errors.Join(err, add("args", a.Args))
	}
	if a.Env != nil {
		err = errors.Join(err, add("env", a.Env))
	}
	if a.Cwd != "" {
		err = errors.Join(err, add("cwd", a.Cwd))
	}
	if a.InitTimeoutSecs > 0 {
		err = errors.Join(err, add("init_timeout_secs", a.InitTimeoutSecs))
	}
	if a.InheritEnv {
		err = errors.Join(err, add("inherit_env", true))
	}
	if a.NotesTools != nil {
		err = errors.Join(err, add("notes_tools", *a.NotesTools))
	}
	if a.AdditionalDirectories != nil {
		err = errors.Join(err, add("additional_directories", a.AdditionalDirectories))
	}
	if a.Title != "" {
		err = errors.Join(err, add("title", a.Title))
	}
	if a.Registry != nil {
		err = errors.Join(err, add("registry", a.Registry))
	}
	for _, k := range slices.Sorted(maps.Keys(a.extra)) {
		if slices.Contains(entryKeys, k) {
			continue
		}
		err = errors.Join(err, add(k, a.extra[k]))
	}
	if err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// SaveConfig writes c to path atomically (temporary file, fsync, rename) with
// mode 0600, creating the folder with mode 0700 when it does not exist. The
// file may hold API keys in agents' env, hence the modes. Secrets are not
// part of it (see SetSecret).
func SaveConfig(path string, c Config) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode agent config: %w", err)
	}
	data = append(data, '\n')
	if err := writePrivate(path, data); err != nil {
		return fmt.Errorf("save agent config: %w", err)
	}
	return nil
}

// writePrivate writes data to path atomically (temporary file, fsync,
// rename) with mode 0600, creating the folder with mode 0700 when it does
// not exist.
func writePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create folder %s: %w", dir, err)
		}
		// MkdirAll is subject to the umask; make the mode exact.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("create folder %s: %w", dir, err)
		}
	} else if err != nil {
		return fmt.Errorf("folder %s: %w", dir, err)
	}

	return atomicfile.WriteFile(path, data, 0o600)
}

// Validate reports every entry that cannot become a runtime: an empty name,
// or no command while not naming a preset.
func (c Config) Validate() error {
	pre := Presets()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(c.AgentServers)) {
		as := c.AgentServers[name]
		if strings.TrimSpace(name) == "" {
			errs = append(errs, fmt.Errorf("%s: an entry has an empty name", configKey))
			continue
		}
		if _, isPreset := Lookup(pre, name); isPreset {
			continue
		}
		if strings.TrimSpace(as.Command) == "" {
			errs = append(errs, fmt.Errorf("%s[%q]: %w (and not a built-in agent)", configKey, name, ErrNoCommand))
		}
	}
	return errors.Join(errs...)
}

// Runtimes returns the presets merged with the custom entries: presets first
// in their usual order, then custom runtimes sorted by name.
//
// An entry whose name matches a preset's name or title (ignoring case)
// overrides only the fields it sets: command, args, cwd replace the preset's;
// env is merged over the preset's env. Setting command or args drops the
// preset's alternates (the user said exactly what to run). Other entries
// become custom runtimes (Builtin false, Title = the entry's name); entries
// without a command are skipped (Validate reports them).
func (c Config) Runtimes() []Runtime {
	out := Presets()
	var custom []Runtime
	for _, name := range slices.Sorted(maps.Keys(c.AgentServers)) {
		as := c.AgentServers[name]
		if i := presetIndex(out, name); i >= 0 {
			out[i] = as.overlay(out[i])
			continue
		}
		if strings.TrimSpace(name) == "" || strings.TrimSpace(as.Command) == "" {
			slog.Warn("agent config: entry skipped: no command", "agent", name)
			continue
		}
		custom = append(custom, as.overlay(Runtime{Name: name, Title: name}))
	}
	out = append(out, custom...)
	for i := range out {
		out[i].secretEnv = c.secrets.For(out[i].Name)
	}
	return out
}

// presetIndex finds a preset by name, then by title, ignoring case.
func presetIndex(rts []Runtime, name string) int {
	name = strings.TrimSpace(name)
	if name == "" {
		return -1
	}
	if i := slices.IndexFunc(rts, func(r Runtime) bool { return strings.EqualFold(r.Name, name) }); i >= 0 {
		return i
	}
	return slices.IndexFunc(rts, func(r Runtime) bool { return strings.EqualFold(r.Title, name) })
}

// overlay applies the set fields of a over base.
func (a AgentServer) overlay(base Runtime) Runtime {
	rt := base.clone()
	if a.Command != "" {
		rt.Command = a.Command
		rt.Alternates = nil
		rt.NPMPackage = "" // mnote's install would not be what runs
	}
	if a.Args != nil {
		rt.Args = slices.Clone(a.Args)
		rt.Alternates = nil
	}
	if a.Env != nil {
		if rt.Env == nil {
			rt.Env = make(map[string]string, len(a.Env))
		}
		maps.Copy(rt.Env, a.Env)
	}
	if a.Cwd != "" {
		rt.Cwd = a.Cwd
	}
	if a.InitTimeoutSecs > 0 {
		rt.InitTimeoutSecs = a.InitTimeoutSecs
	}
	if a.InheritEnv {
		rt.InheritEnv = true
	}
	if a.NotesTools != nil {
		rt.NoNotesTools = !*a.NotesTools
	}
	if a.AdditionalDirectories != nil {
		rt.AdditionalDirectories = slices.Clone(a.AdditionalDirectories)
	}
	if a.Title != "" {
		rt.Title = a.Title
	}
	if a.Registry != nil {
		src := *a.Registry
		rt.Registry = &src
	}
	return rt
}

// describeJSONError adds the line and column to JSON syntax and type errors.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(data, syn.Offset)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		line, col := position(data, typ.Offset)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	return err
}

// position turns the offset of an encoding/json error (the number of bytes
// read, so the offending byte is the one before it) into a 1-based line and
// column.
func position(data []byte, offset int64) (line, col int) {
	off := int(offset) - 1
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = 1 + len(before) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}
