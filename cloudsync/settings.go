package cloudsync

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"mnote/internal/atomicfile"
	"mnote/store"
)

// File names beside config.json.
const (
	settingsFileName = "sync.json"  // Settings, mode 0600
	tokenFileName    = "sync-token" // the bearer token alone, mode 0600
	saltFileName     = "sync-salt"  // the workspace id salt (hex), mode 0600
)

// TokenEnv, when set, is the sync token instead of the token file (for
// scripted use; it is never written to disk). Agents never inherit it
// (runtimes.IsDeniedEnv).
const TokenEnv = "MNOTE_SYNC_TOKEN"

// Settings are the user's sync choices. The token is not part of them: it
// lives in its own file and is never logged or shown.
type Settings struct {
	// URL is the control plane, e.g. "https://cp.example.org". Plain
	// http is accepted only for a loopback host.
	URL string `json:"url,omitempty"`
	// Enabled is false until the user turns sync on.
	Enabled bool `json:"enabled"`
	// AllowTitles lets session titles be synced.
	AllowTitles bool `json:"allowTitles"`
}

// files are where the settings and the token are kept.
type files struct {
	settings, token, salt string
}

func filesFor(p store.Paths) files {
	dir := filepath.Dir(p.ConfigFile)
	return files{settings: filepath.Join(dir, settingsFileName), token: filepath.Join(dir, tokenFileName),
		salt: filepath.Join(dir, saltFileName)}
}

// saltBytes is the size of the workspace id salt.
const saltBytes = 32

// loadSalt returns this user's workspace id salt (WorkspaceID), making
// it the first time: 32 random bytes, hex, in a 0600 file. It never
// replaces a salt that exists (two processes making one at once agree on
// the first), so workspace ids stay the same across runs.
func (f files) loadSalt() ([]byte, error) {
	if salt, err := readSalt(f.salt); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return salt, err
	}
	if err := createPrivate(f.salt, []byte(hex.EncodeToString(randBytes(saltBytes))+"\n")); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("sync: save the workspace salt: %w", err)
	}
	return readSalt(f.salt)
}

func readSalt(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sync: workspace salt: %w", err)
	}
	salt, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(salt) < 16 {
		return nil, fmt.Errorf("sync: workspace salt %s is damaged (want %d hex bytes); delete it to make a new one (synced workspaces then get new ids)", path, saltBytes)
	}
	return salt, nil
}

// load reads the settings and the token. Missing files are the defaults
// (off, no URL, no token).
func (f files) load() (Settings, string, error) {
	var s Settings
	b, err := os.ReadFile(f.settings)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return s, "", fmt.Errorf("sync settings: %w", err)
	case len(strings.TrimSpace(string(b))) > 0:
		if err := json.Unmarshal(b, &s); err != nil {
			return Settings{}, "", fmt.Errorf("sync settings %s: %w; fix or delete the file, then run 'mnote sync set'", f.settings, err)
		}
	}
	token := os.Getenv(TokenEnv)
	if token == "" {
		b, err := os.ReadFile(f.token)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return s, "", fmt.Errorf("sync token: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	return s, token, nil
}

// saveSettings writes the settings file (0600, folder 0700).
func (f files) saveSettings(s Settings) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("sync settings: %w", err)
	}
	if err := writePrivate(f.settings, append(b, '\n')); err != nil {
		return fmt.Errorf("save sync settings: %w", err)
	}
	return nil
}

// saveToken writes the token file (0600, folder 0700); "" removes it.
func (f files) saveToken(token string) error {
	if token == "" {
		if err := os.Remove(f.token); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the sync token: %w", err)
		}
		return nil
	}
	if err := writePrivate(f.token, []byte(token+"\n")); err != nil {
		return fmt.Errorf("save the sync token: %w", err)
	}
	return nil
}

// createPrivate writes data to path, made with mode 0600 in a folder made
// 0700, only if path does not exist yet (fs.ErrExist then): the file is
// written aside and linked into place, so nobody reads half of it.
func createPrivate(path string, data []byte) error {
	tmp := path + ".new-" + hex.EncodeToString(randBytes(6))
	if err := writePrivate(tmp, data); err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Link(tmp, path)
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// writePrivate writes data to path atomically (a temporary file renamed
// over it) with mode 0600, in a folder made 0700.
func writePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// ErrBadURL is matched (errors.Is) by every refusal of CheckURL.
var ErrBadURL = errors.New("invalid control plane URL")

type urlError struct{ msg string }

func (e *urlError) Error() string        { return e.msg }
func (e *urlError) Is(target error) bool { return target == ErrBadURL }

func badURL(format string, a ...any) error { return &urlError{fmt.Sprintf(format, a...)} }

// CheckURL validates a control plane URL: http or https with a host, no
// credentials, query or fragment; plain http only to a loopback host
// (the token must not cross a network in clear). It returns the URL
// without a trailing slash.
func CheckURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", badURL("control plane URL %q: %v", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", badURL("control plane URL %q: must start with https://", raw)
	case u.Host == "":
		return "", badURL("control plane URL %q has no host", raw)
	case u.User != nil:
		return "", badURL("control plane URL must not hold a user or password; give the token with --token-stdin")
	case u.RawQuery != "" || u.Fragment != "":
		return "", badURL("control plane URL %q must not have a query or fragment", raw)
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return "", badURL("control plane URL %q: plain http is only allowed to this machine (localhost); use https://", raw)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Secrets returns the sync values an export or a share must hide: the
// token (from its file or MNOTE_SYNC_TOKEN), when one is set. It only
// reads files.
func Secrets(p store.Paths) ([]string, error) {
	_, token, err := filesFor(p).load()
	if err != nil || token == "" {
		return nil, err
	}
	return []string{token}, nil
}
