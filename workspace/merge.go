package workspace

import "strings"

// hunk is one change of a line diff: base lines [s, e) replaced by lines.
type hunk struct {
	s, e  int
	lines []string
}

// hunksOf groups the edit script from base to x into hunks.
func hunksOf(base, x []string) []hunk {
	var out []hunk
	script := diffLines(base, x)
	for i := 0; i < len(script); {
		if script[i].op == ' ' {
			i++
			continue
		}
		h := hunk{s: script[i].a, e: script[i].a}
		for ; i < len(script) && script[i].op != ' '; i++ {
			if script[i].op == '-' {
				h.e = script[i].a + 1
			} else {
				h.lines = append(h.lines, script[i].line)
			}
		}
		out = append(out, h)
	}
	return out
}

// touches: two hunks change the same base lines, or one inserts where
// the other changes (the order of the two would be a guess).
func touches(a, b hunk) bool {
	if max(a.s, b.s) < min(a.e, b.e) {
		return true
	}
	if a.s == a.e || b.s == b.e {
		return a.s <= b.e && b.s <= a.e
	}
	return false
}

// merge3 merges the changes from base to mine and from base to theirs,
// line by line. ok is false when they touch the same lines differently
// (then merged is ""); the same change made on both sides is taken once.
func merge3(base, mine, theirs string) (merged string, ok bool) {
	if mine == theirs || theirs == base {
		return mine, true
	}
	if mine == base {
		return theirs, true
	}
	bl := splitLines(base)
	mh, th := hunksOf(bl, splitLines(mine)), hunksOf(bl, splitLines(theirs))
	var sb strings.Builder
	pos, i, j := 0, 0, 0
	for i < len(mh) || j < len(th) {
		// Start a group with the hunk that begins first, then take in
		// every hunk of either side that touches it.
		var gm, gt []hunk
		if j >= len(th) || (i < len(mh) && mh[i].s <= th[j].s) {
			gm = append(gm, mh[i])
			i++
		} else {
			gt = append(gt, th[j])
			j++
		}
		gs, ge := groupSpan(gm, gt)
		for grown := true; grown; {
			grown = false
			span := hunk{s: gs, e: ge}
			if i < len(mh) && touches(span, mh[i]) {
				gm = append(gm, mh[i])
				i++
				grown = true
			}
			if j < len(th) && touches(span, th[j]) {
				gt = append(gt, th[j])
				j++
				grown = true
			}
			gs, ge = groupSpan(gm, gt)
		}
		sb.WriteString(strings.Join(bl[pos:gs], ""))
		m, t := applyHunks(bl, gs, ge, gm), applyHunks(bl, gs, ge, gt)
		switch {
		case len(gt) == 0:
			sb.WriteString(m)
		case len(gm) == 0 || m == t:
			sb.WriteString(t)
		default:
			return "", false
		}
		pos = ge
	}
	sb.WriteString(strings.Join(bl[pos:], ""))
	return sb.String(), true
}

// groupSpan is the base range the hunks of a group cover.
func groupSpan(a, b []hunk) (s, e int) {
	s, e = -1, -1
	for _, hs := range [][]hunk{a, b} {
		for _, h := range hs {
			if s < 0 || h.s < s {
				s = h.s
			}
			if h.e > e {
				e = h.e
			}
		}
	}
	return s, e
}

// applyHunks is base[s:e] with hs (inside that range, in order) applied.
func applyHunks(base []string, s, e int, hs []hunk) string {
	var sb strings.Builder
	pos := s
	for _, h := range hs {
		sb.WriteString(strings.Join(base[pos:h.s], ""))
		sb.WriteString(strings.Join(h.lines, ""))
		pos = h.e
	}
	sb.WriteString(strings.Join(base[pos:e], ""))
	return sb.String()
}
