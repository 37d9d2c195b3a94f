package thread

import "testing"

func costUpdate(amount, currency string) string {
	return `{"sessionUpdate":"usage_update","used":1,"size":10,"cost":{"amount":` + amount + `,"currency":"` + currency + `"}}`
}

// usage_update's cost is the session's running total: the thread keeps
// it and works out each turn's share.
func TestTurnCost(t *testing.T) {
	th := newTestThread()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "one"}})
	apply(t, th, costUpdate("0.01", "USD"), costUpdate("0.03", "USD"))
	u := th.Snapshot().Usage
	if u.Cost == nil || u.Cost.Amount != 0.03 || u.TurnCost == nil || u.TurnCost.Amount != 0.03 || u.TurnCost.Currency != "USD" {
		t.Fatalf("first turn: %+v %+v", u.Cost, u.TurnCost)
	}
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "two"}})
	if u := th.Snapshot().Usage; u.TurnCost != nil || u.Cost.Amount != 0.03 {
		t.Fatalf("a new turn keeps the total and has no cost yet: %+v %+v", u.Cost, u.TurnCost)
	}
	apply(t, th, costUpdate("0.1", "USD"))
	u = th.Snapshot().Usage
	if u.Cost.Amount != 0.1 || u.TurnCost.Amount != 0.07 { // not 0.07000000000000001
		t.Fatalf("second turn: %+v %+v", u.Cost, u.TurnCost)
	}
	// A turn without a cost report keeps none.
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "three"}})
	apply(t, th, `{"sessionUpdate":"usage_update","used":2,"size":10}`)
	if u := th.Snapshot().Usage; u.TurnCost != nil || u.Cost.Amount != 0.1 {
		t.Fatalf("turn without cost: %+v %+v", u.Cost, u.TurnCost)
	}
	// Another currency: the total follows, the turn's share is unknown.
	apply(t, th, costUpdate("2", "EUR"))
	if u := th.Snapshot().Usage; u.TurnCost != nil || u.Cost.Currency != "EUR" {
		t.Fatalf("currency change: %+v %+v", u.Cost, u.TurnCost)
	}
	// A snapshot's costs are copies.
	s := th.Snapshot()
	s.Usage.Cost.Amount = 99
	if th.Snapshot().Usage.Cost.Amount != 2 {
		t.Fatal("snapshot shares the cost")
	}
}
