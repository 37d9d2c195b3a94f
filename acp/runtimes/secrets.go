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
)

// SecretsFileName is the file beside config.json that keeps the values
// given with SetSecret (agents' API keys), mode 0600 in a 0700 folder.
const SecretsFileName = "secrets.json"

// SecretsPath is the secrets file that goes with config.json at configPath.
func SecretsPath(configPath string) string {
	return filepath.Join(filepath.Dir(configPath), SecretsFileName)
}

// Secrets are environment values kept for agents: runtime name →
// variable → value. They reach an agent only through its environment
// (Resolve); nothing in mnote logs, records or exports them.
type Secrets map[string]map[string]string

// secretsFile is the on-disk shape of secrets.json.
type secretsFile struct {
	Agents Secrets `json:"agents"`
}

// For returns a copy of the values kept for a runtime (nil when none).
func (s Secrets) For(runtime string) map[string]string {
	for name, vars := range s {
		if strings.EqualFold(name, runtime) && len(vars) > 0 {
			return maps.Clone(vars)
		}
	}
	return nil
}

// Names returns, per runtime, the names of the variables kept (never the
// values), sorted.
func (s Secrets) Names() map[string][]string {
	out := make(map[string][]string, len(s))
	for name, vars := range s {
		if len(vars) > 0 {
			out[name] = slices.Sorted(maps.Keys(vars))
		}
	}
	return out
}

// LoadSecrets reads a secrets file. A missing file is empty. A file that
// others can read is made private (0600) first, with a warning.
func LoadSecrets(path string) (Secrets, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read agent secrets: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read agent secrets: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return nil, fmt.Errorf("agent secrets %s can be read by other users and could not be made private (chmod 600 it): %w", path, err)
		}
		slog.Warn("agent secrets file could be read by other users; it was made private (0600)", "file", path)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("read agent secrets: %w", err)
	}
	if len(bytes.TrimSpace(buf.Bytes())) == 0 {
		return nil, nil
	}
	var sf secretsFile
	if err := json.Unmarshal(buf.Bytes(), &sf); err != nil {
		// The error names a position, never the file's content.
		return nil, fmt.Errorf("agent secrets %s: %w; fix or delete the file, then set the keys again with 'mnote agents --set-key'", path, describeJSONError(buf.Bytes(), err))
	}
	return sf.Agents, nil
}

// SecretsFor returns the values kept beside config.json at configPath.
func SecretsFor(configPath string) (Secrets, error) {
	return LoadSecrets(SecretsPath(configPath))
}

// SetSecret keeps value as environment variable name for the runtime (its
// Name, e.g. "qwen"), in the secrets file beside config.json at configPath;
// an empty value removes it. The file is written atomically with mode 0600,
// its folder made 0700. The agent gets the variable the next time it
// starts (see Config.Runtimes and Detector.Resolve).
func SetSecret(configPath, runtime, name, value string) error {
	runtime = strings.TrimSpace(runtime)
	if runtime == "" {
		return errors.New("set agent key: no agent name given")
	}
	if !validEnvName(name) {
		return fmt.Errorf("set agent key: %q is not an environment variable name (letters, digits and _, not starting with a digit)", name)
	}
	if IsDeniedEnv(name) {
		return fmt.Errorf("set agent key: %s is one of mnote's own secrets and is never given to agents", name)
	}
	if strings.ContainsRune(value, 0) {
		return errors.New("set agent key: the value contains a NUL byte")
	}
	path := SecretsPath(configPath)
	s, err := LoadSecrets(path)
	if err != nil {
		return err
	}
	if s == nil {
		s = Secrets{}
	}
	key := runtime
	for n := range s {
		if strings.EqualFold(n, runtime) {
			key = n
		}
	}
	vars := s[key]
	if value == "" {
		delete(vars, name)
		if len(vars) == 0 {
			delete(s, key)
		}
	} else {
		if vars == nil {
			vars = map[string]string{}
			s[key] = vars
		}
		vars[name] = value
	}
	data, err := json.MarshalIndent(secretsFile{Agents: s}, "", "  ")
	if err != nil {
		return fmt.Errorf("set agent key: %w", err)
	}
	if err := writePrivate(path, append(data, '\n')); err != nil {
		return fmt.Errorf("set agent key: %w", err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("set agent key: make %s private: %w", filepath.Dir(path), err)
	}
	return nil
}

// SecretNames are the names of the variables kept for the runtime with
// SetSecret (never their values).
func (rt Runtime) SecretNames() []string {
	return slices.Sorted(maps.Keys(rt.secretEnv))
}
