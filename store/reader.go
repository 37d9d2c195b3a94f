package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"mnote/internal/jsonscan"
)

// Record is one transcript line.
type Record struct {
	V    int
	Seq  int64
	TsMs int64
	Dir  string // DirIn, DirOut or DirApp
	Kind string
	// Data is the record's JSON value. When the record comes from
	// ReadTranscript it is valid JSON, valid only during the callback.
	Data json.RawMessage
	// End is the file offset just past this record's line, 0 when unknown.
	// The live caller sets it to Writer.Size() after Append so the index
	// knows how much of the file it has seen.
	End int64
}

// ReadStats describes what ReadTranscript read.
type ReadStats struct {
	Records int   // records passed to the callback
	Lines   int   // complete lines, blank ones included
	Corrupt int   // complete lines skipped because they are not records
	Bytes   int64 // offset just past the last complete line
	LastSeq int64 // seq of the last good record
	// CorruptLines holds the 1-based line numbers of the first
	// maxCorruptLines skipped lines.
	CorruptLines []int
	// Torn is true when the file ends with an incomplete line (a crash
	// mid-write, or a writer still writing); it was ignored.
	Torn bool
}

const maxCorruptLines = 100

// readBufSize is the reader's initial buffer; it grows for longer lines.
const readBufSize = 1 << 20

// ReadTranscript calls fn for every record of a transcript, in file order.
// A line that is not a valid record is skipped with a warning and counted
// in the stats; a torn last line is ignored silently. Lines have no length
// limit. Reading needs no lock and tolerates a concurrent Writer. An error
// returned by fn stops the read and is returned as is.
func ReadTranscript(path string, fn func(Record) error) (ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return ReadStats{}, fmt.Errorf("store: read transcript: %w", err)
	}
	defer f.Close()
	return readRecords(f, path, false, fn)
}

// readRecords is ReadTranscript on an open reader; name is for messages.
// lazy skips validating each record's data unless it looks like a torn
// line glued to the next record; the caller's decoding validates what it
// uses.
func readRecords(r io.Reader, name string, lazy bool, fn func(Record) error) (ReadStats, error) {
	var st ReadStats
	buf := make([]byte, readBufSize)
	start, end := 0, 0 // unread bytes are buf[start:end]
	var off int64      // file offset of buf[start]
	eof := false
	for {
		nl := bytes.IndexByte(buf[start:end], '\n')
		if nl < 0 {
			if eof {
				st.Torn = end > start
				return st, nil
			}
			if start > 0 { // keep the partial line, make room
				end = copy(buf, buf[start:end])
				start = 0
			}
			if end == len(buf) {
				nb := make([]byte, 2*len(buf))
				copy(nb, buf[:end])
				buf = nb
			}
			n, err := r.Read(buf[end:])
			end += n
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return st, fmt.Errorf("store: read transcript %s: %w", name, err)
			}
			continue
		}
		line := buf[start : start+nl]
		lineEnd := off + int64(nl) + 1
		start += nl + 1
		off = lineEnd
		st.Lines++
		st.Bytes = lineEnd
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, ok := parseRecord(line, lazy)
		if !ok {
			st.Corrupt++
			if len(st.CorruptLines) < maxCorruptLines {
				st.CorruptLines = append(st.CorruptLines, st.Lines)
			}
			slog.Warn("store: skipping corrupt transcript line", "file", name, "line", st.Lines, "bytes", len(line))
			continue
		}
		rec.End = lineEnd
		st.Records++
		st.LastSeq = rec.Seq
		if err := fn(rec); err != nil {
			return st, err
		}
	}
}

// parseRecord parses one line. The writer's own layout takes a fast path;
// anything else (other key order, spacing, escapes in dir or kind) goes
// through a generic decoder. Data must be valid JSON.
func parseRecord(line []byte, lazy bool) (Record, bool) {
	if rec, ok := parseFast(line, lazy); ok {
		return rec, true
	}
	return parseSlow(line)
}

// gluedRecord is how a record starts; inside another record's data it
// means a torn line was continued by the next record.
var gluedRecord = []byte(`{"v":`)

// parseFast parses exactly what appendRecord writes.
func parseFast(b []byte, lazy bool) (rec Record, ok bool) {
	const (
		pV    = `{"v":`
		pSeq  = `,"seq":`
		pTs   = `,"ts_ms":`
		pDir  = `,"dir":"`
		pKind = `","kind":"`
		pData = `","data":`
	)
	i := 0
	lit := func(p string) bool {
		if len(b)-i < len(p) || string(b[i:i+len(p)]) != p {
			return false
		}
		i += len(p)
		return true
	}
	num := func() (int64, bool) {
		start := i
		var n int64
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 18 {
			n = n*10 + int64(b[i]-'0')
			i++
		}
		return n, i > start && (i == len(b) || b[i] < '0' || b[i] > '9')
	}
	str := func() (string, bool) {
		start := i
		for i < len(b) && b[i] != '"' {
			if b[i] == '\\' || b[i] < 0x20 {
				return "", false
			}
			i++
		}
		return intern(b[start:i]), i < len(b)
	}
	var v int64
	if !lit(pV) {
		return rec, false
	}
	if v, ok = num(); !ok || !lit(pSeq) {
		return rec, false
	}
	if rec.Seq, ok = num(); !ok || !lit(pTs) {
		return rec, false
	}
	if rec.TsMs, ok = num(); !ok || !lit(pDir) {
		return rec, false
	}
	// str stops at the closing quote, where pKind and pData start.
	if rec.Dir, ok = str(); !ok || !lit(pKind) {
		return rec, false
	}
	if rec.Kind, ok = str(); !ok || !lit(pData) {
		return rec, false
	}
	if len(b) <= i || b[len(b)-1] != '}' {
		return rec, false
	}
	data := b[i : len(b)-1]
	if rec.Dir == "" || rec.Kind == "" || v < 1 || len(data) == 0 {
		return rec, false
	}
	if lazy {
		if bytes.Contains(data, gluedRecord) && !jsonscan.Valid(data) {
			return rec, false
		}
	} else if !jsonscan.Valid(data) {
		return rec, false
	}
	rec.V = int(v)
	rec.Data = data
	return rec, true
}

// slowRecord is the envelope for the generic decoder.
type slowRecord struct {
	V    *int            `json:"v"`
	Seq  int64           `json:"seq"`
	TsMs int64           `json:"ts_ms"`
	Dir  string          `json:"dir"`
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data"`
}

func parseSlow(line []byte) (Record, bool) {
	if !jsonscan.Valid(line) {
		return Record{}, false
	}
	var sr slowRecord
	if err := jsonscan.Decode(line, &sr); err != nil {
		return Record{}, false
	}
	if sr.V == nil || *sr.V < 1 || sr.Dir == "" || sr.Kind == "" || len(sr.Data) == 0 {
		return Record{}, false
	}
	return Record{V: *sr.V, Seq: sr.Seq, TsMs: sr.TsMs, Dir: sr.Dir, Kind: sr.Kind, Data: sr.Data}, true
}

// intern returns the common dir and kind strings without allocating.
func intern(b []byte) string {
	switch string(b) {
	case DirIn:
		return DirIn
	case DirOut:
		return DirOut
	case DirApp:
		return DirApp
	case KindSessionUpdate:
		return KindSessionUpdate
	case KindResponse:
		return KindResponse
	case KindRequestPermission:
		return KindRequestPermission
	case KindPrompt:
		return KindPrompt
	case KindTurnStarted:
		return KindTurnStarted
	case KindTurnEnded:
		return KindTurnEnded
	case KindSessionPrompt:
		return KindSessionPrompt
	}
	return string(b)
}
