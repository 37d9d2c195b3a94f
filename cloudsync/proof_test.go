package cloudsync_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/cloudsync"
	"mnote/cloudsync/cloudsynctest"
	"mnote/internal/testenv"
)

// newCanary is a string that appears nowhere by chance.
func newCanary() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "CANARY" + strings.ToUpper(hex.EncodeToString(b))
}

// encodings are the forms in which a leaked canary could travel: as is,
// case-folded, hex, URL-escaped, and base64 (standard and URL alphabets)
// at each of the three byte alignments — for base64 the part that depends
// only on the canary's bytes.
func encodings(canary string) map[string]string {
	out := map[string]string{
		"raw": canary, "lower": strings.ToLower(canary), "hex": hex.EncodeToString([]byte(canary)),
		"HEX": strings.ToUpper(hex.EncodeToString([]byte(canary))), "url": url.QueryEscape(canary),
	}
	for a := range 3 {
		s := strings.Repeat("\x00", a) + canary
		start, end := (a+2)/3*4, (a+len(canary))/3*4
		for name, enc := range map[string]*base64.Encoding{"base64": base64.RawStdEncoding, "base64url": base64.RawURLEncoding} {
			full := enc.EncodeToString([]byte(s))
			out[fmt.Sprintf("%s@%d", name, a)] = full[start:end]
		}
	}
	return out
}

// Proof (b): with sync on, a canary placed in the prompt, the answer, a
// thought, tool input and output, a plan and the contents of files read
// and written never appears, in any encoding, in any byte sent to the
// control plane (the real one, behind a proxy that records every byte);
// nor does the workspace path. Titles are off, then on with a title the
// agent chose: the title travels, the canary still does not.
func TestCanaryNeverSent(t *testing.T) {
	for _, titles := range []bool{false, true} {
		t.Run(fmt.Sprintf("titles=%v", titles), func(t *testing.T) {
			cp := cloudsynctest.New(t)
			token := cp.AddUser("alice")
			m := newMachine(t, cloudsync.Options{})
			ctx := t.Context()
			if err := m.sync.Configure(ctx, cp.URL, &token, titles); err != nil {
				t.Fatal(err)
			}
			if err := m.sync.Enable(ctx); err != nil {
				t.Fatal(err)
			}
			canary := newCanary()
			seedCanaryFile(t, m.ws, canary)
			first := canarySteps(m.ws, canary)
			if titles {
				// With titles allowed the title is sent: that is the
				// point. Here the agent names the session (the title
				// mnote guesses from a first prompt would hold the
				// canary, and that is the user's choice to send).
				first = strings.Replace(first, "[", `[{"title":"Weekly notes"},`, 1)
			}
			id := m.session(ctx, first, canarySteps(m.ws, canary))
			if err := m.sync.SyncNow(ctx); err != nil {
				t.Fatal(err)
			}
			// A second session, and a deletion.
			id2 := m.session(ctx, first)
			if err := m.sync.SyncNow(ctx); err != nil {
				t.Fatal(err)
			}
			if err := m.sync.EnqueueDelete(ctx, id2); err != nil {
				t.Fatal(err)
			}
			if err := m.sync.SyncNow(ctx); err != nil {
				t.Fatal(err)
			}

			// The canary is really in the local data (the test is not vacuous).
			tr, _ := os.ReadFile(m.paths.TranscriptPath(id))
			for _, part := range []string{"pondering " + canary, "The answer is", "tool output " + canary, "file contents " + canary, "step " + canary} {
				if !bytes.Contains(tr, []byte(part)) {
					t.Fatalf("the transcript lacks %q", part)
				}
			}
			if b, err := os.ReadFile(filepath.Join(m.ws, "out-"+canary+".md")); err != nil || !strings.Contains(string(b), canary) {
				t.Fatalf("the agent's file was not written: %v", err)
			}
			// Records were sent, through the recording proxy.
			sent := cp.Sent()
			if cp.Count("PUT", "/v1/sessions/"+id) < 2 || cp.Count("DELETE", "/v1/sessions/"+id2) != 1 || !bytes.Contains(sent, []byte(id)) {
				t.Fatalf("records not sent: %d PUT, %d DELETE", cp.Count("PUT", "/v1/sessions/"+id), cp.Count("DELETE", "/v1/sessions/"+id2))
			}
			if !bytes.Contains(sent, []byte("Authorization: Bearer ")) {
				t.Fatal("the recording holds no request headers")
			}
			for name, enc := range encodings(canary) {
				if i := bytes.Index(sent, []byte(enc)); i >= 0 {
					t.Errorf("the canary (%s) was sent: …%s…", name, sent[max(0, i-200):min(len(sent), i+len(enc)+50)])
				}
			}
			for _, local := range []string{m.ws, m.paths.DataDir, m.paths.ConfigFile} {
				if bytes.Contains(sent, []byte(local)) {
					t.Errorf("a local path was sent: %s", local)
				}
			}
			if titles != bytes.Contains(sent, []byte(`"title":"Weekly notes"`)) {
				t.Errorf("titles=%v but the title was sent: %v", titles, !titles)
			}
			t.Logf("%d bytes sent in %d requests; the canary is in %d bytes of transcript", len(sent), len(cp.Requests()), len(tr))
		})
	}
}

// Proof (a): with sync off, a full session opens no network connection of
// mnote's own. The measured part runs in a child process in a new network
// namespace (unshare -rn), where only loopback exists: a decoy control
// plane listens on it, sync is set up to point at it (but off), and the
// child runs full sessions with the sync client built as the app builds
// it. Every non-loopback connect fails there; the decoy must accept none.
func TestSyncOffOpensNoConnection(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		testenv.SkipOrFail(t, "unshare (util-linux) is not installed; this proof needs a network namespace")
	}
	if out, err := exec.Command(unshare, testenv.UnshareNet(), "true").CombinedOutput(); err != nil {
		testenv.SkipOrFail(t, fmt.Sprintf("unshare %s does not work here (%v: %s); this proof needs a network namespace", testenv.UnshareNet(), err, bytes.TrimSpace(out)))
	}
	agent := acptest.TestAgent(t) // built here: the child has no network
	cmd := exec.CommandContext(t.Context(), unshare, testenv.UnshareNet(), os.Args[0], "-test.run=^TestSyncOffChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "MNOTE_SYNC_OFF_CHILD=1", "MNOTE_TESTAGENT_BIN="+agent)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	var accepts = -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "DECOY_ACCEPTS_DURING_SESSIONS="); ok {
			fmt.Sscan(v, &accepts)
		}
	}
	if accepts != 0 || !bytes.Contains(out, []byte("--- PASS: TestSyncOffChild")) {
		t.Fatalf("decoy accepted %d connections (want 0):\n%s", accepts, out)
	}
	t.Logf("in the namespace: %s", grepLines(out, "NETNS"))
}

func grepLines(out []byte, prefix string) string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, prefix) {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	return strings.Join(keep, "; ")
}

// TestSyncOffChild is the measured part of TestSyncOffOpensNoConnection;
// it runs only in that test's child process.
func TestSyncOffChild(t *testing.T) {
	if os.Getenv("MNOTE_SYNC_OFF_CHILD") == "" {
		t.Skip("run by TestSyncOffOpensNoConnection inside a network namespace")
	}
	if err := loopbackUp(); err != nil {
		t.Fatalf("bring up loopback in the namespace: %v", err)
	}
	// Only loopback works here.
	d := net.Dialer{Timeout: 3 * time.Second}
	for _, addr := range []string{"192.0.2.1:443", "1.1.1.1:443", "[2001:db8::1]:443"} {
		if c, err := d.Dial("tcp", addr); err == nil {
			c.Close()
			t.Fatalf("%s is reachable: this is not an isolated namespace", addr)
		}
	}
	fmt.Println("NETNS: non-loopback connects fail")

	// The decoy control plane counts every connection it accepts.
	decoy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer decoy.Close()
	var accepts atomic.Int64
	go func() {
		for {
			c, err := decoy.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()

	// Sync is set up (URL = the decoy, a token) but off, as for a user who
	// turned it off; the sync client is built as the app builds it.
	m := newMachine(t, cloudsync.Options{})
	ctx := t.Context()
	token := "mnote_decoy-token-0123456789"
	if err := m.sync.Configure(ctx, "http://"+decoy.Addr().String(), &token, true); err != nil {
		t.Fatal(err)
	}
	canary := newCanary()
	seedCanaryFile(t, m.ws, canary)
	id := m.session(ctx, canarySteps(m.ws, canary), canarySteps(m.ws, canary))
	m.session(ctx, canarySteps(m.ws, canary))
	// Everything the app would do around sessions while sync is off.
	if err := m.sync.Backfill(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.sync.EnqueueDelete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := m.sync.SyncNow(ctx); !errors.Is(err, cloudsync.ErrDisabled) {
		t.Fatalf("SyncNow with sync off: %v", err)
	}
	if st, err := m.sync.Status(ctx); err != nil || st.Enabled || st.Pending != 0 {
		t.Fatalf("status %+v %v", st, err)
	}
	if err := m.sync.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let a stray connection, if any, be accepted and counted
	during := accepts.Load()
	fmt.Printf("DECOY_ACCEPTS_DURING_SESSIONS=%d\n", during)

	// The decoy does count: one connection of the test's own.
	c, err := net.Dial("tcp", decoy.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	waitFor(t, "the control connection to be counted", func() bool { return accepts.Load() == during+1 })
	fmt.Println("NETNS: the decoy counted the test's own control connection")
	// And it would have caught sync: turned on, the same client dials it.
	on, err := cloudsync.Open(cloudsync.Options{Paths: m.paths, Sessions: m.ix})
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	if err := on.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := on.SyncNow(ctx); err == nil {
		t.Fatal("sync to the decoy succeeded")
	}
	if n := accepts.Load(); n <= during+1 {
		t.Fatalf("sync turned on did not reach the decoy (%d accepts)", n)
	}
	fmt.Println("NETNS: with sync on, the decoy is reached")
	if during != 0 {
		t.Fatalf("the decoy accepted %d connections during the sessions", during)
	}
}
