package jsonscan

import (
	"encoding/json"

	segjson "github.com/segmentio/encoding/json"
)

// Decode is encoding/json's Unmarshal for the paths where decoding speed
// shows (an agent's requests, a transcript's records), done by
// segmentio/encoding: it decodes the same into the same types, about twice
// as fast, and the binary carries it anyway (the MCP SDK decodes with it),
// so it costs no size. encoding/json stays the reference the fuzz tests
// compare the scanners with.
//
// segmentio has no nesting limit, and it takes minutes over 100,000
// nested arrays decoded into an interface: an agent could stall mnote with
// one line. So b is checked first (Valid: linear, nesting at most
// MaxDepth, as encoding/json allows); what fails goes to encoding/json,
// for its error message.
func Decode(b []byte, v any) error {
	if !Valid(b) {
		return json.Unmarshal(b, v)
	}
	return segjson.Unmarshal(b, v)
}
