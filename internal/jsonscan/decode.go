package jsonscan

import (
	segjson "github.com/segmentio/encoding/json"
)

// Decode is encoding/json's Unmarshal for the paths where decoding speed
// shows (an agent's requests, a transcript's records), done by
// segmentio/encoding: it decodes the same into the same types, about twice
// as fast, and the binary carries it anyway (the MCP SDK decodes with it),
// so it costs no size. encoding/json stays the reference the fuzz tests
// compare the scanners with.
func Decode(b []byte, v any) error {
	return segjson.Unmarshal(b, v)
}
