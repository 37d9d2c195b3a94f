package controlplane_test

import (
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"mnote/controlplane/api"
)

// The server never reads, logs or copies a blob: a canary sealed inside
// an entry's ciphertext and inside a roster statement is, after appends,
// a refused append, a live stream and reads, in no log line (neither in
// clear nor base64), and in no column of the database but the two that
// keep those blobs.
func TestSharedCanaryOnlyInBlobColumns(t *testing.T) {
	const canary = "CANARY-7f3e9a-never-in-clear"
	b64 := base64.StdEncoding.EncodeToString([]byte(canary))
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		mustPut(t, h.A, rec("canary", 1))
		if _, err := h.A.ShareSession(ctx, "canary", []byte("genesis "+canary)); err != nil {
			t.Fatal(err)
		}
		if _, err := h.A.SetMember(ctx, "canary", "bob", api.RoleViewer, []byte("bob "+canary)); err != nil {
			t.Fatal(err)
		}
		lr := openLive(t, h.B, "canary", 0)
		lr.next(api.EventReady)
		mustLease(t, h.A, "canary", "run1")
		mustAppend(t, h.A, "canary", 1, api.AppendEntryRequest{Epoch: 1, Kind: api.KindPrompt, RunID: "run1", AuthorDevice: "d1", Ciphertext: []byte("prompt " + canary)})
		_, err := h.B.AppendEntry(ctx, "canary", 2, api.AppendEntryRequest{Epoch: 1, Kind: api.KindComment, AuthorDevice: "d2", Ciphertext: []byte("refused " + canary)})
		wantCode(t, err, 403, api.CodeForbidden)
		// A malformed body that carries it.
		if st, _, _ := h.raw(http.MethodPut, "/v1/sessions/canary/entries/2", h.tokenA, []byte(`{"kind":"`+canary+`"}`)); st != 400 {
			t.Fatalf("malformed body: %d", st)
		}
		if ev := lr.next(api.EventEntry); !strings.Contains(string(ev.Entry.Ciphertext), canary) {
			t.Fatalf("the live entry lost its ciphertext: %+v", ev.Entry)
		}
		if page, err := h.B.Entries(ctx, "canary", 0, 0); err != nil || len(page.Entries) != 1 {
			t.Fatalf("entries: %+v, %v", page, err)
		}

		logs := h.logs.String()
		if !strings.Contains(logs, "/v1/sessions/{id}/entries/{seq}") {
			t.Fatalf("the access log was not captured:\n%s", logs)
		}
		if strings.Contains(logs, canary) || strings.Contains(logs, b64) {
			t.Fatalf("a log line holds the canary:\n%s", logs)
		}
		got := columnsHolding(t, h, canary)
		want := []string{"entries.ciphertext", "roster_log.statement"}
		if !slices.Equal(got, want) {
			t.Fatalf("the canary is in %v; want only %v", got, want)
		}
		if got := columnsHolding(t, h, b64); len(got) != 0 {
			t.Fatalf("the canary's base64 is in %v", got)
		}
	})
}

// columnsHolding lists the table.column of every column of the store
// holding s in some row, sorted.
func columnsHolding(t testing.TB, h *harness, s string) []string {
	t.Helper()
	db := adminDB(t, h)
	type col struct{ table, name, typ string }
	var cols []col
	var q string
	if h.kind == "sqlite" {
		q = `SELECT m.name, p.name, p.type FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`
	} else {
		q = `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if len(cols) < 20 {
		t.Fatalf("only %d columns found", len(cols))
	}
	var out []string
	for _, c := range cols {
		var (
			n   int
			err error
		)
		switch {
		case h.kind == "sqlite":
			err = db.QueryRow(fmt.Sprintf(`SELECT count(*) FROM %q WHERE instr(CAST(%q AS BLOB), CAST(? AS BLOB)) > 0`, c.table, c.name), s).Scan(&n)
		case c.typ == "bytea":
			err = db.QueryRow(fmt.Sprintf(`SELECT count(*) FROM %q WHERE position($1::bytea IN %q) > 0`, c.table, c.name), []byte(s)).Scan(&n)
		default:
			err = db.QueryRow(fmt.Sprintf(`SELECT count(*) FROM %q WHERE position($1 IN %q::text) > 0`, c.table, c.name), s).Scan(&n)
		}
		if err != nil && err != sql.ErrNoRows {
			t.Fatalf("search %s.%s: %v", c.table, c.name, err)
		}
		if n > 0 {
			out = append(out, c.table+"."+c.name)
		}
	}
	slices.Sort(out)
	return out
}
