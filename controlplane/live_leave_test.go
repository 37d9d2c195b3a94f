package controlplane_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"mnote/controlplane/api"
)

// Members who close their live streams while the session keeps changing
// (the end of every fan-out run, a laptop lid closed mid-turn) are not a
// store failure: the server logs no warning for them, which an operator
// would otherwise chase.
func TestLiveClientLeavingMidReadIsNotAStoreFailure(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		id := shareOf(t, h, "leaving")
		if _, err := h.A.SetMember(t.Context(), id, "bob", api.RoleViewer, sealed("bob views")); err != nil {
			t.Fatal(err)
		}
		const streams = 30
		var seq int64
		for round := range 3 {
			var open []*api.LiveStream
			cancels := make([]context.CancelFunc, 0, streams)
			for range streams {
				ctx, cancel := context.WithCancel(t.Context())
				s, err := h.B.Live(ctx, id, seq, "dev1")
				if err != nil {
					t.Fatal(err)
				}
				open, cancels = append(open, s), append(cancels, cancel)
			}
			var wg sync.WaitGroup
			wg.Go(func() {
				for range 40 {
					seq++
					mustAppend(t, h.A, id, seq, entry(api.KindComment, "", fmt.Sprint("round ", round, " seq ", seq)))
				}
			})
			for i, s := range open {
				cancels[i]()
				s.Close()
			}
			wg.Wait()
		}
		h.srv.Close() // waits for every stream's handler to end
		for line := range strings.Lines(h.logs.String()) {
			if strings.Contains(line, "store failure") {
				t.Fatalf("a client leaving logged as a store failure: %s", line)
			}
		}
	}, noKeepalive)
}
