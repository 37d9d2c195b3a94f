package app_test

import (
	"testing"
)

// A session's cost (usage_update's running total) and its last turn's
// share are in the snapshot, and still there when the session is opened
// again after a restart (rebuilt from the transcript).
func TestCostSurvivesReopen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	cost := func(amount string) string {
		return `{"usage":{"used":10,"size":1000,"cost":{"amount":` + amount + `,"currency":"EUR"}}}`
	}
	h.turnDone(sum.ID, cost("0.5"), `{"message":"one"}`)
	h.turnDone(sum.ID, cost("1.25"), `{"message":"two"}`)
	check := func(when string) {
		t.Helper()
		u := h.open(sum.ID).Thread.Usage
		if u.Cost == nil || u.Cost.Amount != 1.25 || u.Cost.Currency != "EUR" || u.TurnCost == nil || u.TurnCost.Amount != 0.75 {
			t.Fatalf("%s: cost %+v, turn %+v", when, u.Cost, u.TurnCost)
		}
	}
	check("live")
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	h.start()
	check("after a restart")
}
