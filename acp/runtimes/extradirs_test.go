package runtimes

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// additional_directories: read, kept through a save, given to the
// runtime; a relative or unclean path is refused with the entry named.
func TestAdditionalDirectoriesConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	var c Config
	if err := json.Unmarshal([]byte(`{"agent_servers":{"mine":{"command":"x","additional_directories":["/srv/a","/srv/b"]},"codex":{"additional_directories":["/srv/c"]}}}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := SaveConfig(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	rts := back.Runtimes()
	mine, _ := Lookup(rts, "mine")
	codex, _ := Lookup(rts, "codex")
	if !slices.Equal(mine.AdditionalDirectories, []string{"/srv/a", "/srv/b"}) || !slices.Equal(codex.AdditionalDirectories, []string{"/srv/c"}) {
		t.Fatalf("mine %v, codex %v", mine.AdditionalDirectories, codex.AdditionalDirectories)
	}
	for _, bad := range []string{`"notes"`, `"/srv/../etc"`, `""`} {
		err := json.Unmarshal([]byte(`{"agent_servers":{"mine":{"command":"x","additional_directories":[`+bad+`]}}}`), &c)
		if err == nil || !strings.Contains(err.Error(), `agent_servers["mine"]: additional_directories`) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
