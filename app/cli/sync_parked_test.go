package cli_test

import (
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/cloudsync/cloudsynctest"
)

// A record the control plane refuses (400) does not hold the others
// back, and `mnote sync status` shows it with the refusal.
func TestSyncStatusShowsRefusedRecord(t *testing.T) {
	h := newHarness(t)
	cp := cloudsynctest.New(t)
	token := cp.AddUser("alice")
	var ids []string
	for _, text := range []string{"first", "second"} {
		r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"`+text+` answer"}`))
		ids = append(ids, r.last()["sessionId"].(string))
	}
	if r := h.runIn(token+"\n", "sync", "set", "--url", cp.URL, "--token-stdin"); r.code != 0 {
		t.Fatalf("sync set: %d %s%s", r.code, r.stdout, r.stderr)
	}
	cp.Inject(cloudsynctest.Fault{Method: "PUT", PathPrefix: "/v1/sessions/" + ids[0], Status: 400})
	if r := h.run("sync", "on"); r.code != 0 || !strings.Contains(r.stdout, "0 records waiting") {
		t.Fatalf("sync on: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if cp.Count("PUT", "/v1/sessions/"+ids[1]) == 0 {
		t.Fatal("the second record was not sent after the first was refused")
	}
	r := h.run("sync", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "Refused:       1") || !strings.Contains(r.stdout, ids[0]+"  session "+ids[0]+": control plane: injected 400") {
		t.Fatalf("sync status:\n%s%s", r.stdout, r.stderr)
	}
}
