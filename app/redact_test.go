package app_test

import (
	"bytes"
	"strings"
	"testing"

	"mnote/app"
	"mnote/cloudsync"
	"mnote/cloudsync/cloudsynctest"
)

// What the window sends off the machine is redacted by key shape: a
// DashScope-style key (sk- and 32 hex digits) and an e-mail address in a
// session's title and its messages reach neither the synced record nor a
// share; exports keep the address unless redactEmails is set.
func TestSyncedTitleAndShareRedacted(t *testing.T) {
	t.Parallel()
	const key, email = "sk-9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c", "jane.doe@example.com"
	cp := cloudsynctest.New(t)
	token := cp.AddUser("ann")
	h := newHarness(t)
	sum := h.create("test")
	h.answer(sum.ID, "use "+key+" and mail "+email)
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "key " + key + " for " + email}, nil)

	var st cloudsync.Status
	h.mustCall("sync.configure", map[string]any{"url": cp.URL, "token": token, "allowTitles": true}, &st)
	h.mustCall("sync.enable", map[string]any{"on": true}, &st)
	if err := eventually(testWait, func() bool {
		h.mustCall("sync.now", struct{}{}, &st)
		return st.Pending == 0 && cp.Count("PUT", "/v1/sessions/"+sum.ID) > 0
	}); err != nil {
		t.Fatalf("the session was not synced: %+v", st)
	}
	var sh struct{ ID string }
	h.mustCall("shares.publish", map[string]any{"id": sum.ID}, &sh)
	sent := cp.Sent()
	for _, s := range []string{key, key[10:26], email} {
		if bytes.Contains(sent, []byte(s)) {
			t.Errorf("%q reached the control plane", s)
		}
	}
	if !bytes.Contains(sent, []byte(`"title":"key [redacted] for [email]"`)) {
		t.Errorf("the synced title is not the redacted one")
	}

	var md app.Exported
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "md"}, &md)
	if strings.Contains(md.Content, key) || !strings.Contains(md.Content, email) {
		t.Errorf("md export: the key is kept or the address is not: %.300s", md.Content)
	}
	for _, format := range []string{"md", "html", "jsonl"} {
		var out app.Exported
		h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": format, "redact": true, "redactEmails": true}, &out)
		if strings.Contains(out.Content, key) || strings.Contains(out.Content, email) {
			t.Errorf("%s export with redactEmails keeps the key or the address", format)
		}
	}
}
