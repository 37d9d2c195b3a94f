package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"mnote/internal/atomicfile"
)

// The thread cache keeps, beside the index, the JSON of a session's thread
// snapshot as its transcript last produced it, so that opening a long past
// session reads one file instead of replaying every record (a 40 MB
// transcript of 134,000 updates takes about 300 ms to replay, its 7.6 MB
// snapshot a few ms to read). Like the index it is derived data: an entry
// is used only while the transcript's size and modification time are the
// ones it was made from, and deleting the folder loses nothing.
const threadCacheVersion = 2

// ThreadCachePath is where the thread cache of a session lives.
func (p Paths) ThreadCachePath(id string) string {
	return filepath.Join(p.DataDir, "cache", id+".thread.json")
}

// TranscriptStamp identifies one state of a transcript file.
type TranscriptStamp struct {
	Size    int64 `json:"size"`
	MtimeNs int64 `json:"mtimeNs"`
}

// StampOf stats a transcript.
func StampOf(transcript string) (TranscriptStamp, error) {
	st, err := os.Stat(transcript)
	if err != nil {
		return TranscriptStamp{}, err
	}
	return TranscriptStamp{Size: st.Size(), MtimeNs: st.ModTime().UnixNano()}, nil
}

type threadCacheHeader struct {
	V int `json:"v"`
	TranscriptStamp
	// CRC32C of the snapshot: a damaged entry is never sent to a page.
	CRC uint32 `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ReadThreadCache returns the cached snapshot JSON when it was made from
// the transcript state stamp; ok is false otherwise (missing, stale,
// unreadable — the caller replays the transcript).
func ReadThreadCache(path string, stamp TranscriptStamp) (snapshot []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 4096)
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, false
	}
	var h threadCacheHeader
	if json.Unmarshal(line, &h) != nil || h.V != threadCacheVersion || h.TranscriptStamp != stamp {
		return nil, false
	}
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	buf := bytes.NewBuffer(make([]byte, 0, max(0, int(st.Size())-len(line))))
	if _, err := io.Copy(buf, r); err != nil || buf.Len() == 0 || crc32.Checksum(buf.Bytes(), castagnoli) != h.CRC {
		return nil, false
	}
	return buf.Bytes(), true
}

// WriteThreadCache stores snapshot (a thread.Snapshot's JSON) as made
// from the transcript state stamp: written to a temporary file and renamed
// over the old entry, so a reader sees the old or the new one whole.
func WriteThreadCache(path string, stamp TranscriptStamp, snapshot []byte) error {
	if len(snapshot) == 0 {
		return errors.New("store: empty thread snapshot")
	}
	dir := filepath.Dir(path)
	if err := mkdirPrivate(dir); err != nil {
		return fmt.Errorf("store: thread cache folder: %w", err)
	}
	head, _ := json.Marshal(threadCacheHeader{V: threadCacheVersion, TranscriptStamp: stamp, CRC: crc32.Checksum(snapshot, castagnoli)})
	err := atomicfile.Write(path, 0o600, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 64<<10)
		w.Write(head)
		w.WriteByte('\n')
		w.Write(snapshot)
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("store: thread cache: %w", err)
	}
	return nil
}

// RemoveThreadCache forgets a session's cache entry (it was deleted).
func RemoveThreadCache(p Paths, id string) {
	os.Remove(p.ThreadCachePath(id))
}
