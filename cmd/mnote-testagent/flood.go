package main

import (
	"log/slog"
	"strconv"
)

// floodBatch is the number of lines encoded, written (and, with a progress
// file, flushed and reported) at a time.
const floodBatch = 1000

// huge sends one agent_message_chunk whose text is n bytes of 'x'. The line
// is built in a single allocation; the state file gets the same bytes.
func (t *turn) huge(n int64) {
	prefix := updatePrefix(t.s.id)
	const head = `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`
	const tail = `"}}`
	line := make([]byte, 0, int64(len(prefix)+len(head)+len(tail)+len(updateSuffix))+n)
	line = append(line, prefix...)
	start := len(line)
	line = append(line, head...)
	body := len(line)
	line = line[:body+int(n)]
	for i := body; i < len(line); i++ {
		line[i] = 'x'
	}
	line = append(line, tail...)
	end := len(line)
	line = append(line, updateSuffix...)

	s := t.s
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	t.a.out.write(line, true)
	if t.record {
		t.a.recordLocked(s, line[start:end], true)
	}
}

// flood sends n pre-encoded session/update lines as fast as stdout takes
// them. mix is "chunks" (default) or "bench"; with progressFile set, the
// output is flushed every floodBatch lines and the count written so far is
// stored in that file.
func (t *turn) flood(n int, mix, progressFile string) {
	s := t.s
	s.mu.Lock()
	s.floodSeq++
	seq := s.floodSeq
	s.mu.Unlock()

	prefix := updatePrefix(s.id)
	var lines, records []byte
	var upd []byte
	tools := 0 // tool updates emitted so far (bench mix)
	for i := 0; i < n; {
		lines, records = lines[:0], records[:0]
		end := min(i+floodBatch, n)
		for ; i < end; i++ {
			if mix == "bench" {
				upd = benchUpdate(upd[:0], seq, i, &tools)
			} else {
				upd = chunkUpdate(upd[:0], "agent_message_chunk", "tok ", i, " lorem ipsum dolor sit amet. ")
			}
			lines = append(lines, prefix...)
			lines = append(lines, upd...)
			lines = append(lines, updateSuffix...)
			if t.record {
				records = append(records, upd...)
				records = append(records, '\n')
			}
		}
		flush := progressFile != "" || i == n
		s.sendMu.Lock()
		t.a.out.write(lines, flush)
		if t.record {
			t.a.recordLocked(s, records, false)
		}
		s.sendMu.Unlock()
		if progressFile != "" {
			if err := writeFileAtomic(progressFile, []byte(strconv.Itoa(i))); err != nil {
				slog.Error("write flood progress", "file", progressFile, "err", err)
			}
		}
	}
	if n == 0 && progressFile != "" {
		_ = writeFileAtomic(progressFile, []byte("0"))
	}
}

// appendPadded appends n in decimal, zero-padded to six digits.
func appendPadded(dst []byte, n int) []byte {
	for p := 100000; p > 1 && n < p; p /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(n), 10)
}

// chunkUpdate encodes a ~40-byte text chunk "<lead><i padded><rest>".
func chunkUpdate(dst []byte, kind, lead string, i int, rest string) []byte {
	dst = append(dst, `{"sessionUpdate":"`...)
	dst = append(dst, kind...)
	dst = append(dst, `","content":{"type":"text","text":"`...)
	dst = append(dst, lead...)
	dst = appendPadded(dst, i)
	dst = append(dst, rest...)
	return append(dst, `"}}`...)
}

// benchUpdate encodes line i of a "bench" flood. Per 100 lines: positions
// 9, 29, 49, 69, 89 are thought chunks, 19, 39, 59, 79, 99 tool updates
// (alternating a new pending tool_call and its completing tool_call_update),
// the other 90 message chunks.
func benchUpdate(dst []byte, seq, i int, tools *int) []byte {
	switch i % 20 {
	case 9:
		return chunkUpdate(dst, "agent_thought_chunk", "think ", i, " weighing the next step. ")
	case 19:
		k := *tools
		*tools++
		file := k / 2
		if k%2 == 0 {
			dst = append(dst, `{"sessionUpdate":"tool_call","toolCallId":"`...)
			dst = appendToolID(dst, seq, file)
			dst = append(dst, `","title":"Read file `...)
			dst = strconv.AppendInt(dst, int64(file), 10)
			dst = append(dst, `","kind":"read","status":"pending","locations":[{"path":"/flood/file-`...)
			dst = appendPadded(dst, file)
			return append(dst, `.txt"}]}`...)
		}
		dst = append(dst, `{"sessionUpdate":"tool_call_update","toolCallId":"`...)
		dst = appendToolID(dst, seq, file)
		dst = append(dst, `","status":"completed","content":[{"type":"content","content":{"type":"text","text":"read file `...)
		dst = strconv.AppendInt(dst, int64(file), 10)
		return append(dst, `: 42 lines"}}]}`...)
	default:
		return chunkUpdate(dst, "agent_message_chunk", "tok ", i, " lorem ipsum dolor sit amet. ")
	}
}

// appendToolID appends "flood<seq>-tc<file padded>".
func appendToolID(dst []byte, seq, file int) []byte {
	dst = append(dst, "flood"...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, "-tc"...)
	return appendPadded(dst, file)
}
