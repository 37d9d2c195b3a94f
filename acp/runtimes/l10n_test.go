package runtimes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// frontendCatalogue is the window's catalogue of an area in a locale
// (frontend/messages/<area>/<locale>.json): only its plain messages.
func frontendCatalogue(t *testing.T, area, locale string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "frontend", "messages", area, locale+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%s/%s.json: %v", area, locale, err)
	}
	out := map[string]string{}
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

var han = regexp.MustCompile(`\p{Han}`)

// The presets' texts the window shows (how to log in, more on installing)
// are keys of its catalogue, in both languages: the English the same as
// here (the command line and the JSON API show that), the Chinese written
// in Chinese. A preset text without a key, a key missing from a catalogue,
// or a Chinese message put back in English fails here.
func TestPresetTextsInBothCatalogues(t *testing.T) {
	en, zh := frontendCatalogue(t, "agents", "en"), frontendCatalogue(t, "agents", "zh-CN")
	n := 0
	for _, rt := range Presets() {
		for _, c := range []struct{ what, text, key string }{
			{"login", rt.LoginHint, rt.LoginHintKey},
			{"install_note", rt.InstallNote, rt.InstallNoteKey},
		} {
			if c.text == "" {
				if c.key != "" {
					t.Errorf("%s: key %s for no text", rt.Name, c.key)
				}
				continue
			}
			n++
			if c.key != PresetKey(rt.Name, c.what) {
				t.Errorf("%s: %s text %q has key %q, want %q", rt.Name, c.what, c.text, c.key, PresetKey(rt.Name, c.what))
				continue
			}
			if en[c.key] != c.text {
				t.Errorf("frontend/messages/agents/en.json %s = %q, want Go's %q", c.key, en[c.key], c.text)
			}
			if z := zh[c.key]; z == "" || z == c.text || !han.MatchString(z) {
				t.Errorf("frontend/messages/agents/zh-CN.json %s = %q: not in Chinese", c.key, z)
			}
		}
	}
	if n < 12 {
		t.Fatalf("only %d preset texts checked", n)
	}
}

// The command line's Chinese of the presets' texts is the window's.
func TestPresetTextMatchesCatalogue(t *testing.T) {
	zh := frontendCatalogue(t, "agents", "zh-CN")
	n := 0
	for k, v := range zh {
		if strings.HasPrefix(k, "agents_preset_") {
			n++
			if presetZH[k] != v {
				t.Errorf("presetZH[%s] = %q, the catalogue says %q", k, presetZH[k], v)
			}
		}
	}
	if n != len(presetZH) || n < 12 {
		t.Errorf("%d catalogue keys, %d in presetZH", n, len(presetZH))
	}
	claude, _ := Lookup(Presets(), "claude-code")
	if got := PresetText(claude.LoginHintKey, claude.LoginHint, "zh-CN"); got != zh[claude.LoginHintKey] {
		t.Errorf("zh-CN login hint %q", got)
	}
	if got := PresetText(claude.LoginHintKey, claude.LoginHint, "en"); got != claude.LoginHint {
		t.Errorf("en login hint %q", got)
	}
}
