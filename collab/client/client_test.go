package client_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mnote/cloudsync/cloudsynctest"
	"mnote/collab/client"
	"mnote/collab/keys"
	"mnote/collab/projection"
	"mnote/collab/roster"
	"mnote/controlplane/api"
)

// world is a real control plane with accounts ada and bob, ada's two
// machines and bob's one, each with a home of its own.
type world struct {
	cp                 *cloudsynctest.Server
	adaTok, bobTok     string
	ada, ada2, bob     *client.Client
	adaAPI, bobAPI     *api.Client
	sessionID, adaHome string
	bobHome            string
}

func newMachine(t *testing.T, url, token, name string) (*client.Client, string) {
	t.Helper()
	home := t.TempDir()
	c, err := client.Open(t.Context(), client.Options{Dir: filepath.Join(home, "collab"), API: &api.Client{BaseURL: url, Token: token},
		DeviceName: name, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, home
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldOn(t, cloudsynctest.New(t))
}

// newWorldOn is newWorld on a given control plane (PostgreSQL, say).
func newWorldOn(t *testing.T, cp *cloudsynctest.Server) *world {
	t.Helper()
	w := &world{cp: cp, sessionID: "01jshared0session0ada"}
	w.adaTok, w.bobTok = w.cp.AddUser("ada"), w.cp.AddUser("bob")
	w.adaAPI = &api.Client{BaseURL: w.cp.URL, Token: w.adaTok}
	w.bobAPI = &api.Client{BaseURL: w.cp.URL, Token: w.bobTok}
	w.ada, w.adaHome = newMachine(t, w.cp.URL, w.adaTok, "laptop")
	w.bob, w.bobHome = newMachine(t, w.cp.URL, w.bobTok, "bob's")
	ctx := t.Context()
	for _, c := range []*client.Client{w.ada, w.bob} {
		if _, err := c.Register(ctx); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().UTC()
	if _, err := w.adaAPI.PutSession(ctx, api.SessionRecord{ID: w.sessionID, Version: 1, Runtime: "test", WorkspaceID: "9f86d081884c7d65",
		Status: api.StatusIdle, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := w.ada.Share(ctx, w.sessionID); err != nil {
		t.Fatal(err)
	}
	if err := w.ada.SetMember(ctx, w.sessionID, "bob", roster.Editor); err != nil {
		t.Fatal(err)
	}
	return w
}

// turn runs one turn of c with a prompt and an answer streamed in parts.
func turn(t *testing.T, c *client.Client, id string, n int, prompt, answer string) {
	t.Helper()
	ctx := t.Context()
	run, err := c.StartRun(ctx, id, projection.Prompt(n, prompt, []string{"/home/x/notes/缓存设计.md"}), client.RunEvents{})
	if err != nil {
		t.Fatal(err)
	}
	for part := range strings.SplitSeq(answer, " ") {
		run.Add(projection.Entry{Kind: projection.KindAnswer, Text: part + " "})
	}
	run.Add(projection.Entry{Kind: projection.KindTool, Tool: &projection.Tool{ToolCallID: "t1", Title: "Read 缓存设计.md", Kind: "read", Status: "completed"}})
	if err := run.Finish(ctx, client.RunEnded); err != nil {
		t.Fatal(err)
	}
}

func fetch(t *testing.T, c *client.Client, id string, after int64) []client.Opened {
	t.Helper()
	got, err := c.Fetch(t.Context(), id, after)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestMemberTurnSeenWithActor(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		turn(t, w.ada, w.sessionID, 1, "ada asks", "ada answers here")
		turn(t, w.bob, w.sessionID, 2, "bob asks", "bob gets an answer")
		got := fetch(t, w.ada, w.sessionID, 0)
		var prompts []string
		for _, o := range got {
			if o.Unreadable != "" {
				t.Fatalf("entry %d not opened: %s", o.Seq, o.Unreadable)
			}
			if o.Kind == projection.KindPrompt {
				prompts = append(prompts, o.Actor+":"+o.Entry.Text)
			}
		}
		if strings.Join(prompts, ",") != "ada:ada asks,bob:bob asks" {
			t.Fatalf("prompts = %v", prompts)
		}
		for i, o := range got {
			if o.Seq != int64(i+1) {
				t.Fatalf("entry %d has seq %d", i, o.Seq)
			}
		}
		earlier := client.Earlier(fetch(t, w.bob, w.sessionID, 0))
		for _, want := range []string{"User ada (turn 1):\nada asks", "Assistant (turn 1):\nada answers here", "User bob (turn 2):\nbob asks", "缓存设计.md"} {
			if !strings.Contains(earlier, want) {
				t.Errorf("earlier turns lack %q:\n%s", want, earlier)
			}
		}
		if strings.Contains(earlier, "Read 缓存设计") || strings.Contains(earlier, "/home/x") {
			t.Errorf("earlier turns carry a tool call or a path:\n%s", earlier)
		}
		// Fetching again from the last seq gives nothing twice.
		if again := fetch(t, w.ada, w.sessionID, got[len(got)-1].Seq); len(again) != 0 {
			t.Fatalf("fetched %d entries again", len(again))
		}
	})
}

func TestViewerCannotRun(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		if err := w.ada.SetMember(t.Context(), w.sessionID, "bob", roster.Viewer); err != nil {
			t.Fatal(err)
		}
		_, err := w.bob.StartRun(t.Context(), w.sessionID, projection.Prompt(1, "let me", nil), client.RunEvents{})
		if !errors.Is(err, client.ErrRole) {
			t.Fatalf("viewer's run: %v", err)
		}
		// Not only refused by this client: the server refuses the lease.
		_, err = w.bobAPI.RequestLease(t.Context(), w.sessionID, "run-x", w.bob.Device().DeviceID)
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != api.CodeForbidden {
			t.Fatalf("the server gave a viewer the lease: %v", err)
		}
	})
}

func TestQueuedRunWaitsItsTurn(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	first, err := w.ada.StartRun(ctx, w.sessionID, projection.Prompt(1, "first", nil), client.RunEvents{})
	if err != nil {
		t.Fatal(err)
	}
	queued := make(chan int, 4)
	var wg sync.WaitGroup
	wg.Add(1)
	var second *client.Run
	go func() {
		defer wg.Done()
		second, err = w.bob.StartRun(ctx, w.sessionID, projection.Prompt(2, "second", nil), client.RunEvents{Queued: func(p int) { queued <- p }})
	}()
	if p := <-queued; p != 1 {
		t.Fatalf("queue position %d", p)
	}
	if err := first.Finish(ctx, client.RunEnded); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Finish(ctx, client.RunEnded); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, o := range fetch(t, w.ada, w.sessionID, 0) {
		order = append(order, o.Actor+"/"+o.Kind)
	}
	if got := strings.Join(order, ","); got != "ada/prompt,ada/status,bob/prompt,bob/status" {
		t.Fatalf("log = %s", got)
	}
}

func TestSecondDevicePairsAndContinues(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	turn(t, w.ada, w.sessionID, 1, "before pairing", "an answer")
	ada2, _ := newMachine(t, w.cp.URL, w.adaTok, "desktop")
	if _, err := ada2.Register(ctx); !errors.Is(err, client.ErrNotPaired) {
		t.Fatalf("an unpaired second machine: %v", err)
	}
	codes := make(chan string, 1)
	var sasA, sasB string
	var wg sync.WaitGroup
	wg.Add(1)
	var pairErr error
	go func() {
		defer wg.Done()
		_, pairErr = w.ada.Pair(ctx, client.PairUI{Code: func(c string, _ time.Time) { codes <- c }, Confirm: func(s string) bool { sasA = s; return true }})
	}()
	if err := ada2.Join(ctx, <-codes, client.PairUI{Confirm: func(s string) bool { sasB = s; return true }}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if pairErr != nil {
		t.Fatal(pairErr)
	}
	if sasA == "" || sasA != sasB {
		t.Fatalf("codes %q and %q", sasA, sasB)
	}
	// The second machine reads with the bundled key and continues.
	got := fetch(t, ada2, w.sessionID, 0)
	if len(got) == 0 || got[0].Unreadable != "" || got[0].Entry.Text != "before pairing" {
		t.Fatalf("second machine read %+v", got)
	}
	turn(t, ada2, w.sessionID, 2, "from the desktop", "ok")
	var last client.Opened
	for _, o := range fetch(t, w.bob, w.sessionID, 0) {
		if o.Unreadable != "" {
			t.Fatalf("bob cannot open %d: %s", o.Seq, o.Unreadable)
		}
		if o.Kind == projection.KindPrompt {
			last = o
		}
	}
	if last.Entry.Text != "from the desktop" || last.Actor != "ada" || last.AuthorDevice != ada2.Device().DeviceID {
		t.Fatalf("last prompt %+v", last)
	}
}

func TestPairingRefusedWhenCodesDiffer(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ada2, _ := newMachine(t, w.cp.URL, w.adaTok, "desktop")
	codes := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := w.ada.Pair(ctx, client.PairUI{Code: func(c string, _ time.Time) { codes <- c }, Confirm: func(string) bool { return false }})
		done <- err
	}()
	err := ada2.Join(ctx, <-codes, client.PairUI{Confirm: func(string) bool { return true }})
	if !errors.Is(err, client.ErrPairCancelled) {
		t.Fatalf("join after a refused code: %v", err)
	}
	if err := <-done; !errors.Is(err, client.ErrSASRejected) {
		t.Fatalf("pair: %v", err)
	}
	if _, err := ada2.Register(ctx); !errors.Is(err, client.ErrNotPaired) {
		t.Fatalf("the refused machine was listed: %v", err)
	}
}

func TestRemovedMemberCannotOpenLaterEntries(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		turn(t, w.ada, w.sessionID, 1, "before", "seen by bob")
		before := fetch(t, w.bob, w.sessionID, 0)
		if err := w.ada.RemoveMember(ctx, w.sessionID, "bob"); err != nil {
			t.Fatal(err)
		}
		turn(t, w.ada, w.sessionID, 2, "after", "secret now")
		if _, err := w.bob.Fetch(ctx, w.sessionID, before[len(before)-1].Seq); !errors.Is(err, client.ErrRevoked) {
			t.Fatalf("a removed member fetched: %v", err)
		}
		// Even with the ciphertext (a server that leaks it), bob has no key
		// for the new epoch: none was wrapped for his device.
		page, err := w.adaAPI.Entries(ctx, w.sessionID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		lastEntry := page.Entries[len(page.Entries)-1]
		if lastEntry.Epoch != 2 {
			t.Fatalf("entry after the removal is of epoch %d", lastEntry.Epoch)
		}
		if _, err := w.bobAPI.Keys(ctx, w.sessionID, w.bob.Device().DeviceID, 0); err == nil {
			t.Fatal("a removed member still reads the session's envelopes")
		}
	})
}

func TestServerCannotInjectMemberOrDevice(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		turn(t, w.ada, w.sessionID, 1, "hello", "hi")
		// The server adds mallory with a statement signed by a device of its
		// own, which it claims is ada's (a device list only the server shows).
		w.cp.AddUser("mallory")
		if _, err := w.adaAPI.SetMember(ctx, w.sessionID, "mallory", "editor", forgedAdd(t, w, "mallory")); err != nil {
			t.Fatal(err)
		}
		if _, err := w.bob.Fetch(ctx, w.sessionID, 0); !errors.Is(err, roster.ErrNotOwnerDevice) && !errors.Is(err, roster.ErrUnknownSigner) {
			t.Fatalf("bob accepted a member the owner did not sign: %v", err)
		}
		if _, err := w.bob.StartRun(ctx, w.sessionID, projection.Prompt(2, "x", nil), client.RunEvents{}); err == nil {
			t.Fatal("bob ran a turn in a session whose roster does not verify")
		}
	})
}

// forgedAdd is a roster statement adding account, signed by a device the
// server made, valid against a device list of ada's that only the server
// has (its own device added by ada's real key would need ada's key; here
// the test borrows it to make the server's best possible forgery).
func forgedAdd(t *testing.T, w *world, account string) []byte {
	t.Helper()
	ctx := t.Context()
	adaDev, err := keys.LoadDevice(filepath.Join(w.adaHome, "collab", "device.key"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := w.adaAPI.DeviceLog(ctx, "ada", 0)
	if err != nil {
		t.Fatal(err)
	}
	var chain [][]byte
	for _, s := range log.Statements {
		chain = append(chain, s.Statement)
	}
	real, err := roster.VerifyDevices("ada", chain)
	if err != nil {
		t.Fatal(err)
	}
	rogue, err := keys.NewDevice("ada", "server's", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	add, err := real.AddDevice(adaDev, rogue.Public(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	fake, err := roster.VerifyDevices("ada", append(chain, add))
	if err != nil {
		t.Fatal(err)
	}
	page, err := w.adaAPI.Roster(ctx, w.sessionID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rchain [][]byte
	for _, s := range page.Statements {
		rchain = append(rchain, s.Statement)
	}
	r, err := roster.Verify(rchain, fake)
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := r.Add(rogue, account, roster.Editor, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return stmt
}

func TestServerSwappedDeviceKeyIsRefused(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		turn(t, w.ada, w.sessionID, 1, "hello", "hi")
		// The server puts a device of its own into bob's list, signed by
		// nothing bob has.
		rogue, err := keys.NewDevice("bob", "server's", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := roster.NewDeviceList(rogue, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := rogue.Public().Marshal()
		if _, err := w.bobAPI.PutDevice(ctx, rogue.ID(), pub, stmt); err != nil {
			t.Fatal(err)
		}
		if err := w.ada.SetMember(ctx, w.sessionID, "bob", roster.Editor); err == nil {
			t.Fatal("ada wrapped a key for a device list that does not verify")
		}
		if _, err := w.ada.StartRun(ctx, w.sessionID, projection.Prompt(2, "x", nil), client.RunEvents{}); err == nil {
			t.Fatal("ada ran a turn while bob's devices do not verify")
		}
	})
}

// A device bob's own device signed into his list (pairing) is trusted
// without asking: his list continues the one ada pinned. ada's next run
// wraps the epoch key for it, and bob's phone reads the session.
func TestDeviceSignedInByTheAccountIsTrusted(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	bob2, _ := newMachine(t, w.cp.URL, w.bobTok, "bob's phone")
	codes := make(chan string, 1)
	go w.bob.Pair(ctx, client.PairUI{Code: func(c string, _ time.Time) { codes <- c }, Confirm: func(string) bool { return true }}) //nolint:errcheck // checked through Join
	if err := bob2.Join(ctx, <-codes, client.PairUI{Confirm: func(string) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	if err := w.ada.Pins().Blocked("bob"); err != nil {
		t.Fatalf("bob's own new device blocks ada: %v", err)
	}
	turn(t, w.ada, w.sessionID, 1, "after bob's phone joined", "fine")
	if err := w.ada.SetMember(ctx, w.sessionID, "bob", roster.Editor); err != nil {
		t.Fatal(err)
	}
	got := fetch(t, bob2, w.sessionID, 0)
	if len(got) == 0 || got[0].Unreadable != "" {
		t.Fatalf("bob's new device: %+v", got)
	}
}

func TestCanaryNeverInTheControlPlanesDatabase(t *testing.T) {
	w := newWorld(t)
	canary := "CANARY-shared-" + strings.Repeat("7f", 8)
	turn(t, w.ada, w.sessionID, 1, "prompt "+canary, "answer "+canary)
	turn(t, w.bob, w.sessionID, 2, "bob "+canary, canary)
	if got := fetch(t, w.ada, w.sessionID, 0); !strings.Contains(got[0].Entry.Text, canary) {
		t.Fatal("the canary did not travel at all")
	}
	w.cp.Close()
	dir := filepath.Dir(strings.TrimPrefix(w.cp.DB, "sqlite:"))
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), canary) {
			t.Errorf("%s holds the canary", e.Name())
		}
	}
	if s := w.cp.Sent(); strings.Contains(string(s), canary) {
		t.Error("the canary was sent to the control plane in clear")
	}
	if strings.Contains(string(w.cp.Logs()), canary) {
		t.Error("the control plane logged the canary")
	}
}

func TestFollowDeliversEachEntryOnce(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	var seqs []int64
	var reconnects atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- w.bob.Follow(ctx, w.sessionID, 0, client.LiveEvents{Reconnect: func(error) { reconnects.Add(1) }, Entry: func(o client.Opened) error {
			if o.Unreadable != "" {
				return errors.New("unreadable " + o.Unreadable)
			}
			mu.Lock()
			seqs = append(seqs, o.Seq)
			mu.Unlock()
			return nil
		}})
	}()
	caughtUp := func() {
		t.Helper()
		sh, err := w.adaAPI.SharedSession(ctx, w.sessionID)
		if err != nil {
			t.Fatal(err)
		}
		for {
			mu.Lock()
			n := len(seqs)
			mu.Unlock()
			if int64(n) >= sh.Head {
				return
			}
			select {
			case err := <-done:
				t.Fatalf("follow ended: %v", err)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	turn(t, w.ada, w.sessionID, 1, "one", "a b c")
	caughtUp()
	// The network breaks mid-stream: the stream is opened again from the
	// last seq, and what was appended meanwhile comes once.
	w.cp.DropConns()
	turn(t, w.bob, w.sessionID, 2, "two", "d e f")
	w.cp.DropConns()
	turn(t, w.ada, w.sessionID, 3, "three", "g h")
	caughtUp()
	if n := reconnects.Load(); n == 0 {
		t.Fatal("the stream never broke: the test proves nothing")
	}
	cancel()
	<-done
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("seqs %v", seqs)
		}
	}
}
