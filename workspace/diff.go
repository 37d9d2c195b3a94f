package workspace

import (
	"strconv"
	"strings"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// maxEditDistance bounds the Myers search (memory grows with its square);
// beyond it the differing middle is shown as removed then added.
const maxEditDistance = 1000

// UnifiedDiff returns a unified diff (as diff -u and git apply read it)
// from a to b, with the given file names in the header; "" when equal.
// Lines are compared whole; a last line without a newline is marked
// "\ No newline at end of file".
func UnifiedDiff(fromName, toName, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	script := diffLines(al, bl)
	var sb strings.Builder
	sb.WriteString("--- " + fromName + "\n+++ " + toName + "\n")
	for i := 0; i < len(script); {
		// Find the next change.
		for i < len(script) && script[i].op == ' ' {
			i++
		}
		if i == len(script) {
			break
		}
		start := max(i-diffContext, 0)
		// Extend while the next change is within twice the context.
		end := i
		for j := i; j < len(script); j++ {
			if script[j].op != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		end = min(end+diffContext, len(script))
		writeHunk(&sb, script[start:end])
		i = end
	}
	return sb.String()
}

type edit struct {
	op   byte // ' ', '-', '+'
	line string
	a, b int // 0-based line numbers in a and b before this edit
}

func writeHunk(sb *strings.Builder, h []edit) {
	var na, nb int
	for _, e := range h {
		if e.op != '+' {
			na++
		}
		if e.op != '-' {
			nb++
		}
	}
	sb.WriteString("@@ -" + hunkRange(h[0].a, na) + " +" + hunkRange(h[0].b, nb) + " @@\n")
	for _, e := range h {
		sb.WriteByte(e.op)
		sb.WriteString(e.line)
		if !strings.HasSuffix(e.line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}

// splitLines splits s after each newline, keeping them.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// diffLines is the shortest edit script from a to b (Myers), with the
// common prefix and suffix trimmed first.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for i := 0; i < pre; i++ {
		out = append(out, edit{op: ' ', line: a[i], a: i, b: i})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ia, ib := len(a)-suf+i, len(b)-suf+i
		out = append(out, edit{op: ' ', line: a[ia], a: ia, b: ib})
	}
	return out
}

// myers diffs a and b (offsets oa, ob in the whole files).
func myers(a, b []string, oa, ob int) []edit {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n+m > 2*maxEditDistance*maxEditDistance {
		return replaceAll(a, b, oa, ob)
	}
	// Intern lines so comparisons are integer ones.
	ids := map[string]int{}
	ai, bi := make([]int, n), make([]int, m)
	for i, l := range a {
		id, ok := ids[l]
		if !ok {
			id = len(ids)
			ids[l] = id
		}
		ai[i] = id
	}
	for i, l := range b {
		id, ok := ids[l]
		if !ok {
			id = len(ids)
			ids[l] = id
		}
		bi[i] = id
	}
	maxD := min(n+m, maxEditDistance)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	found := false
	for d := 0; d <= maxD && !found; d++ {
		snap := make([]int, 2*d+3) // v[-d-1 .. d+1]
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && ai[x] == bi[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return replaceAll(a, b, oa, ob)
	}
	// Walk back through the trace.
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		snap := trace[d] // v before step d, indexed k+d+1
		get := func(k int) int { return snap[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, edit{op: ' ', line: a[x], a: oa + x, b: ob + y})
		}
		if x == px {
			y--
			rev = append(rev, edit{op: '+', line: b[y], a: oa + x, b: ob + y})
		} else {
			x--
			rev = append(rev, edit{op: '-', line: a[x], a: oa + x, b: ob + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, edit{op: ' ', line: a[x], a: oa + x, b: ob + y})
	}
	out := make([]edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

func replaceAll(a, b []string, oa, ob int) []edit {
	out := make([]edit, 0, len(a)+len(b))
	for i, l := range a {
		out = append(out, edit{op: '-', line: l, a: oa + i, b: ob})
	}
	for i, l := range b {
		out = append(out, edit{op: '+', line: l, a: oa + len(a), b: ob + i})
	}
	return out
}
