package app_test

import (
	"strings"
	"testing"

	"mnote/app"
)

// An export suggests a file name from the session's title, made safe, and
// redacted like the export: no local path reaches the name.
func TestExportFilenameFromTitle(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "Trip: Lisbon / Porto — día 2"}, nil)
	var out app.Exported
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "md"}, &out)
	if out.Filename != "Trip-Lisbon-Porto-día-2.md" {
		t.Fatalf("filename %q", out.Filename)
	}

	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "../../etc/passwd " + h.ws + "/private/plan.md"}, nil)
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "html"}, &out)
	base := strings.TrimSuffix(out.Filename, ".html")
	if strings.ContainsAny(base, `/\.`) || strings.Contains(out.Filename, strings.Trim(strings.ReplaceAll(h.ws, "/", "-"), "-")) ||
		!strings.HasSuffix(out.Filename, ".html") || base == "" {
		t.Fatalf("filename %q (workspace %s)", out.Filename, h.ws)
	}

	// Nothing usable in the title: the id.
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "«»—!?"}, nil)
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "jsonl"}, &out)
	if out.Filename != "mnote-"+sum.ID+".jsonl" {
		t.Fatalf("filename %q", out.Filename)
	}
}
