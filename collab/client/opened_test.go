package client_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/collab/client"
	"mnote/collab/projection"
	"mnote/store"
)

// An opened entry goes to the page once: its fields and the projection
// entry, not the entry's JSON a second time.
func TestOpenedJSONCarriesTheEntryOnce(t *testing.T) {
	raw, _ := json.Marshal(projection.Entry{Kind: projection.KindAnswer, Text: "命中率 82%"})
	o := client.Opened{SharedEntryRecord: store.SharedEntryRecord{Seq: 3, Kind: projection.KindAnswer, Actor: "bob", Entry: raw}, Entry: projection.Entry{Kind: projection.KindAnswer, Text: "命中率 82%"}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "命中率 82%"); n != 1 {
		t.Fatalf("the text is in the JSON %d times: %s", n, b)
	}
	var back struct {
		Seq   int64
		Actor string
		Entry projection.Entry
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Seq != 3 || back.Actor != "bob" || back.Entry.Text != "命中率 82%" {
		t.Fatalf("%s: %+v %v", b, back, err)
	}
}
