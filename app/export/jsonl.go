package export

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// JSONL copies a transcript (one JSON record a line). With a Redactor,
// every string of every line is redacted (see Redactor.JSON) and the line
// written compact; a line that is not JSON (a torn last line) is redacted
// as text (e-mail addresses too with r.WithEmails). Without one the
// transcript is copied byte for byte.
func JSONL(w io.Writer, transcript io.Reader, r *Redactor) error {
	if r == nil {
		_, err := io.Copy(w, transcript)
		return err
	}
	br := bufio.NewReaderSize(transcript, 256<<10)
	bw := bufio.NewWriterSize(w, 256<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			body := bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(body)) > 0 {
				out, rerr := r.JSON(body)
				if rerr != nil {
					out = []byte(r.String(string(body)))
				}
				bw.Write(out)
			}
			if bytes.HasSuffix(line, []byte("\n")) {
				bw.WriteByte('\n')
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read transcript line %d: %w", n, err)
		}
	}
	return bw.Flush()
}
