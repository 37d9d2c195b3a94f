package runtimes

import (
	"slices"
	"strings"
)

// What of mnote's own environment an agent inherits.
//
// By default only what a program needs to run and to find its own
// configuration (its config folders, login state and OS keyring) passes,
// plus its own provider's variables: each preset names them
// (Runtime.ProviderEnv: Claude Code gets ANTHROPIC_* and CLAUDE_CODE_*,
// Codex OPENAI_* and CODEX_*, …), keys included, so that an agent gets its
// own key from the shell and no other's. Other credentials that happen to
// be in mnote's environment (AWS_*, another provider's key, GITHUB_TOKEN,
// …) are held back (Resolved.HeldBack names the key-looking ones, for the
// hint when the agent then asks to log in); an agent also gets variables
// the user configured for it (the entry's "env" in config.json, keys kept
// with `mnote agents --set-key`). An entry with "inherit_env": true gets
// the whole environment instead. mnote's own variables (MNOTE_*, its sync
// and control plane tokens among them) never pass, except MNOTE_HOME, so
// that an agent running `mnote search` sees the same notes.

// passEnvNames are variables every agent gets (compared without regard to
// case).
var passEnvNames = []string{
	// The user, the shell, the locale and the terminal.
	"PATH", "HOME", "USER", "LOGNAME", "USERNAME", "SHELL", "LANG", "LANGUAGE",
	"TERM", "COLORTERM", "TZ", "TMPDIR", "TMP", "TEMP",
	// The desktop session: browser logins, the OS keyring (goose keeps
	// keys there), ssh-agent for git over ssh.
	"DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK",
	// Network: proxies and the certificates of a TLS-inspecting proxy.
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	// Node, Bun and Python tool managers that agents are installed with.
	"NVM_DIR", "NVM_BIN", "NVM_INC", "VOLTA_HOME", "ASDF_DIR", "ASDF_DATA_DIR",
	"BUN_INSTALL", "PNPM_HOME", "UV_TOOL_DIR", "UV_TOOL_BIN_DIR",
	// Agents' own config folders.
	"CODEX_HOME", "CLAUDE_CONFIG_DIR",
	// Windows.
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE",
	"APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "HOMEDRIVE", "HOMEPATH",
	// mnote's data folder (not a secret), for agents that run mnote.
	"MNOTE_HOME",
}

// passEnvPrefixes are families of variables every agent gets, except names
// that look like a credential (secretLooking).
var passEnvPrefixes = []string{
	"LC_", "XDG_", "NODE_", "NPM_CONFIG_", "FNM_", "MISE_",
	// Agents' own settings (a key among them is held back, except from
	// the agent whose ProviderEnv names it).
	"CLAUDE_", "CODEX_", "GEMINI_CLI_", "QWEN_", "OPENCODE_", "GOOSE_", "KIMI_",
	"HERMES_", "REASONIX_", "COPILOT_", "CLINE_",
}

// secretWords mark a variable name as a credential.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
	"CREDENTIAL", "APIKEY", "API_KEY", "PRIVATE", "AUTH", "COOKIE"}

// secretLooking reports whether a variable name looks like it carries a
// credential (*_TOKEN, *_KEY, *SECRET*, *PASSWORD*, …).
func secretLooking(upper string) bool {
	if strings.HasSuffix(upper, "_KEY") || strings.HasSuffix(upper, "_PAT") {
		return true
	}
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(upper, w) })
}

// isMnoteEnv reports whether a variable is one of mnote's own, which no
// agent inherits (MNOTE_HOME excepted).
func isMnoteEnv(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasPrefix(n, "MNOTE_") && n != "MNOTE_HOME"
}

// PassesEnv reports whether an agent inherits the variable name from
// mnote's environment: with inherit (the entry's "inherit_env") every
// variable but mnote's own, otherwise only the allow-list. A runtime's own
// provider variables pass too (Runtime.PassesEnv).
func PassesEnv(name string, inherit bool) bool {
	if IsDeniedEnv(name) || isMnoteEnv(name) {
		return false
	}
	if inherit {
		return true
	}
	n := strings.ToUpper(name)
	if slices.Contains(passEnvNames, n) {
		return true
	}
	return slices.ContainsFunc(passEnvPrefixes, func(p string) bool { return strings.HasPrefix(n, p) }) &&
		!secretLooking(n)
}

// PassesEnv reports whether the runtime inherits the variable name from
// mnote's environment: the allow-list (all of it with InheritEnv), and its
// own provider's variables (ProviderEnv), keys among them; never mnote's
// own.
func (rt Runtime) PassesEnv(name string) bool {
	if PassesEnv(name, rt.InheritEnv) {
		return true
	}
	if IsDeniedEnv(name) || isMnoteEnv(name) {
		return false
	}
	return matchEnv(rt.ProviderEnv, strings.ToUpper(name))
}

// matchEnv reports whether the upper-case name matches one of patterns:
// "NAME" exactly, or "PREFIX_*" any name starting with PREFIX_ (compared
// without regard to case).
func matchEnv(patterns []string, upper string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		p = strings.ToUpper(p)
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			return strings.HasPrefix(upper, prefix)
		}
		return upper == p
	})
}

// heldBack are the names in env (NAME=value entries, mnote's environment)
// that look like a credential (secretLooking) and that rt does not get:
// neither inherited (PassesEnv) nor configured for it (set: its env and
// kept keys). mnote's own variables are left out: they never pass. Sorted,
// each once.
func (rt Runtime) heldBack(env []string, set ...map[string]string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		if k == "" || !secretLooking(u) || IsDeniedEnv(k) || isMnoteEnv(k) || rt.PassesEnv(k) {
			continue
		}
		if slices.ContainsFunc(set, func(m map[string]string) bool { _, ok := m[k]; return ok }) {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
