package fanout

import (
	"crypto/sha256"
	"testing"
	"time"

	"mnote/controlplane/api"
)

// The tally finds what went wrong: an entry a member never received, one
// received twice or with other bytes, an accepted append missing from
// the log, and a log entry nobody sent.
func TestTallyCountsLossDuplicatesAndCorruption(t *testing.T) {
	t0 := time.Now()
	blobs := [][]byte{[]byte("one"), []byte("two"), []byte("three")}
	var log []api.Entry
	ss := &session{id: "s", sent: map[int64]sent{}}
	for i, b := range blobs {
		seq := int64(i + 1)
		log = append(log, api.Entry{Seq: seq, Ciphertext: b})
		ss.sent[seq] = sent{hash: sha256.Sum256(b), at: t0, by: 0, timely: true}
	}
	r := &runner{sessions: []*session{ss}}
	mk := func(member int) *client {
		c := &client{r: r, sess: ss, member: member, got: map[int64]received{}}
		ss.members = append(ss.members, c)
		return c
	}
	all := func(c *client) {
		for i, b := range blobs {
			c.got[int64(i+1)] = received{hash: sha256.Sum256(b), at: t0.Add(time.Duration(i+1) * time.Millisecond)}
		}
	}
	a, b := mk(0), mk(1)
	all(a)
	all(b)

	var res Result
	r.tally(&res, [][]api.Entry{log})
	if !res.OK() || res.Delivered != 6 || res.Expected != 6 || res.Samples != 3 || res.Appended != 3 {
		t.Fatalf("a clean run: %+v", res)
	}
	if res.P50 != 2*time.Millisecond || res.Max != 3*time.Millisecond {
		t.Fatalf("latency of the other member only: p50 %s max %s", res.P50, res.Max)
	}

	delete(b.got, 2)                                                  // lost
	a.dups = 1                                                        // received twice
	a.got[3] = received{hash: sha256.Sum256([]byte("THREE")), at: t0} // other bytes
	ss.sent[4] = sent{hash: sha256.Sum256([]byte("four"))}            // accepted, not in the log
	res = Result{}
	r.tally(&res, [][]api.Entry{log})
	if res.Lost != 2 || res.Duplicated != 1 || res.Corrupt != 1 || res.OK() {
		t.Fatalf("lost %d (want 2), duplicated %d (want 1), corrupt %d (want 1)", res.Lost, res.Duplicated, res.Corrupt)
	}

	// A log entry nobody sent, and a gap in the log.
	delete(ss.sent, 4)
	all(a)
	all(b)
	a.dups = 0
	bad := append([]api.Entry{}, log[0], log[2])
	res = Result{}
	r.tally(&res, [][]api.Entry{bad})
	if res.Corrupt == 0 || res.OK() {
		t.Fatalf("a gap in the log: %+v", res)
	}
}
