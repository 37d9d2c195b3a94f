package thread

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
)

// MarshalJSON writes the block as ACP has it: an image block carrying
// its Data leaves its Hash out (the agent gets the bytes, not mnote's
// name for them); without Data the Hash is the reference.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	type plain ContentBlock
	p := plain(b)
	if p.Data != "" {
		p.Hash = ""
	}
	return json.Marshal(p)
}

// StoredBlocks is blocks as a transcript keeps them: an image block that
// has a Hash loses its Data (the bytes are in a file of their own). The
// blocks given are not changed.
func StoredBlocks(blocks []ContentBlock) []ContentBlock {
	out, copied := blocks, false
	for i, b := range blocks {
		if b.Hash == "" || b.Data == "" {
			continue
		}
		if !copied {
			out, copied = append([]ContentBlock(nil), blocks...), true
		}
		out[i].Data = ""
	}
	return out
}

// ImageHash is the name of image bytes beside a transcript: their hex
// SHA-256.
func ImageHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

var imageKey = []byte(`"image"`)

// RedactPromptLine is an outgoing session/prompt JSON-RPC line as a
// transcript keeps it: every image block's base64 data replaced by the
// hash of its bytes, so the transcript holds no image. A line without
// images, or one it cannot read, is returned as it is.
func RedactPromptLine(line []byte) []byte {
	if !bytes.Contains(line, imageKey) {
		return line
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return line
	}
	var prompt []map[string]json.RawMessage
	if json.Unmarshal(params["prompt"], &prompt) != nil {
		return line
	}
	changed := false
	for _, b := range prompt {
		var typ, data string
		if json.Unmarshal(b["type"], &typ) != nil || typ != "image" || json.Unmarshal(b["data"], &data) != nil {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			raw = []byte(data) // not base64: still not kept
		}
		delete(b, "data")
		b["hash"], _ = json.Marshal(ImageHash(raw))
		changed = true
	}
	if !changed {
		return line
	}
	var err error
	if params["prompt"], err = json.Marshal(prompt); err != nil {
		return line
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return line
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return out
}
