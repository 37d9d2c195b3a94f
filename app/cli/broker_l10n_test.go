package cli

import (
	"encoding/json"
	"testing"

	"mnote/acp"
	"mnote/internal/l10n"
)

// A request without a title (mnote's own edit_note) is named on the
// terminal by its kind and file, in the terminal's language.
func TestPermTitleWithoutTitle(t *testing.T) {
	tc, _ := json.Marshal(map[string]any{"locations": []any{map[string]any{"path": "/n/计划.md"}}})
	req := &acp.PermissionRequest{ToolCall: tc, Kind: "edit"}
	if got := permTitle(l10n.ZH, req); got != "编辑 /n/计划.md" {
		t.Errorf("zh: %q", got)
	}
	if got := permTitle(l10n.EN, req); got != "edit /n/计划.md" {
		t.Errorf("en: %q", got)
	}
	req.Title = "Run tests"
	if got := permTitle(l10n.ZH, req); got != "Run tests" {
		t.Errorf("an agent's own title: %q", got)
	}
}
