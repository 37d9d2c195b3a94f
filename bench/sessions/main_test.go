package main

import (
	"testing"

	"mnote/acp/acptest"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// A short run of the benchmark: three sessions in parallel finish their
// turns, and the memory sampled covers mnote and its agent process.
func TestParallelSessions(t *testing.T) {
	res, err := once(t.TempDir(), 3, 2, 50, acptest.TestAgent(t), acptest.Mnote(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.took <= 0 || res.peakSelf <= 0 || res.peak <= res.peakSelf || res.agents < 1 {
		t.Errorf("result %+v: want a time, mnote's memory and an agent's", res)
	}
}
