package shared_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"mnote/app"
	"mnote/app/shared"
	"mnote/cloudsync/cloudsynctest"
	"mnote/collab/keys"
	"mnote/collab/roster"
)

// The changed-key warning, from a control plane that lies: it replaces
// bob's device list with one of its own making (a device of its own, in a
// chain it started). ada's window refuses to run a turn (nothing would be
// sealed for a device she has not accepted), shared.members marks bob,
// and once she accepts (after comparing safety numbers) turns run again.
func TestChangedKeysBlockUntilAccepted(t *testing.T) {
	cp := cloudsynctest.New(t)
	ada := newHome(t, cp.URL, cp.AddUser("ada"))
	bob := newHome(t, cp.URL, cp.AddUser("bob"))
	bob.must("shared.devices", struct{}{}, nil)
	ada.must("shared.devices", struct{}{}, nil)

	var sum app.SessionSummary
	ada.must("sessions.create", map[string]any{"agent": "test"}, &sum)
	id := sum.ID
	ada.must("shared.share", map[string]any{"id": id}, nil)
	ada.must("shared.add", map[string]any{"id": id, "account": "bob", "role": "editor"}, nil)
	if p := ada.prompt(id, "before the server lied"); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's first shared turn: %v", p)
	}

	// The server swaps bob's whole device list for one of its own.
	db, err := sql.Open("sqlite3", strings.TrimPrefix(cp.DB, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var uid string
	if err := db.QueryRow(`SELECT id FROM users WHERE name = 'bob'`).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	rogue, err := keys.NewDevice("bob", "bob's laptop", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := roster.NewDeviceList(rogue, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := rogue.Public().Marshal()
	now := time.Now().UnixNano()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM device_log WHERE user_id = ?`, []any{uid}},
		{`DELETE FROM devices WHERE user_id = ?`, []any{uid}},
		{`INSERT INTO devices (user_id, id, public_key, created_ns, updated_ns) VALUES (?, ?, ?, ?, ?)`, []any{uid, rogue.ID(), pub, now, now}},
		{`INSERT INTO device_log (user_id, seq, device_id, statement, created_ns) VALUES (?, 1, ?, ?, ?)`, []any{uid, rogue.ID(), stmt, now}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}

	e := ada.call("sessions.prompt", map[string]any{"id": id, "text": "after the server lied"}, nil)
	if e == nil || e.Code != app.CodeForbidden || e.Reason != shared.ReasonKeyChanged || e.Params["account"] != "bob" {
		t.Fatalf("a turn with bob's devices swapped: %+v", e)
	}
	var ms shared.Members
	ada.must("shared.members", map[string]any{"id": id}, &ms)
	var marked bool
	for _, m := range ms.Members {
		marked = marked || m.Account == "bob" && m.KeysChanged
	}
	if !marked {
		t.Fatalf("bob is not marked in the members: %+v", ms)
	}

	// Accepted (the person compared safety numbers): turns run again.
	ada.must("shared.acceptKeys", map[string]any{"account": "bob"}, nil)
	if p := ada.prompt(id, "accepted"); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's turn after accepting: %v", p)
	}
}
