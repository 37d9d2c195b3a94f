package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"mnote/mcp"
)

// noteReader answers read_note as mnote does: the note read from disk
// whole, split into lines and numbered.
type noteReader struct{ path string }

func (n noteReader) CallTool(_ context.Context, _ string, _ json.RawMessage) (mcp.Result, error) {
	b, err := os.ReadFile(n.path)
	if err != nil {
		return mcp.Result{}, err
	}
	text := string(b)
	lines := strings.SplitAfter(text, "\n")
	var sb strings.Builder
	fmt.Fprintf(&sb, "note.md, lines 1-%d of %d:\n", len(lines), len(lines))
	for i, ln := range lines {
		fmt.Fprintf(&sb, "%d| %s", i+1, ln)
	}
	return mcp.Result{Text: sb.String()}, nil
}

// writeNote writes a note of size bytes, in lines of 400 characters.
func writeNote(t testing.TB, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "note.md")
	line := strings.Repeat("All work and no play makes a dull note; ", 10)[:399] + "\n"
	if err := os.WriteFile(p, []byte(strings.Repeat(line, size/len(line))), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// peakRSS is this process's peak resident set (VmHWM), in bytes.
func peakRSS(t testing.TB) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc: ", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// readNoteLoad is the attack: calls read_note calls of a note of size
// bytes sent at once on one connection, with the host's default limits,
// their answers read as they come (not decoded: the measure is mnote's
// side). It returns the peak resident set of the process.
func readNoteLoad(t *testing.T, calls, size int) int64 {
	h, err := mcp.Listen(filepath.Join(t.TempDir(), "s"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tok, err := h.Register(noteReader{writeNote(t, size)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := fmt.Fprintf(c, "{\"token\":%q}\n", tok); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"ok":true`) {
		t.Fatalf("hello: %q %v", line, err)
	}
	go func() {
		for i := range calls {
			if _, err := fmt.Fprintf(c, "{\"id\":%d,\"tool\":\"read_note\",\"args\":{\"path\":\"note.md\"}}\n", i+1); err != nil {
				return
			}
		}
	}()
	for range calls {
		n, head := 0, ""
		for {
			chunk, err := r.ReadSlice('\n')
			if head == "" {
				head = string(chunk[:min(len(chunk), 64)])
			}
			n += len(chunk)
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				t.Fatalf("after %d bytes: %v", n, err)
			}
		}
		if n < size || !strings.Contains(head, `"text":"note.md, lines 1-`) {
			t.Fatalf("an answer of %d bytes: %q", n, head)
		}
	}
	return peakRSS(t)
}

// 150 concurrent read_note calls of a 9 MiB note on one connection keep
// mnote's memory bounded: the host runs as many at once as its budget of
// bytes in flight allows. The load runs in a child process of its own,
// whose peak resident set (VmHWM: exact, not sampled) is the measure.
func TestReadNoteMemoryBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	if os.Getenv("MNOTE_MCP_MEMTEST") != "" {
		fmt.Printf("peak-rss %d\n", readNoteLoad(t, 150, 9<<20))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadNoteMemoryBounded$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "MNOTE_MCP_MEMTEST=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "peak-rss ")
	peak, perr := strconv.ParseInt(strings.Fields(after + " x")[0], 10, 64)
	if !ok || perr != nil {
		t.Fatalf("no peak in the child's output:\n%s", out)
	}
	t.Logf("peak resident set of 150 concurrent read_note of a 9 MiB note: %d MiB", peak>>20)
	if peak > 400<<20 {
		t.Errorf("peak resident set %d MiB, want under 400 MiB", peak>>20)
	}
}
