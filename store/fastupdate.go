package store

import (
	"bytes"
	"encoding/json"

	"mnote/thread"
)

// The layout ACP agents write a chunk notification in. fastChunkUpdate
// matches it literally; anything else goes to the decoder.
const (
	chunkPrefix  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`
	chunkUpdate  = `","update":{"sessionUpdate":"`
	chunkContent = `","content":`
	chunkMsgID   = `,"messageId":"`
	chunkEnd     = `}}}`
)

// fastChunkUpdate decodes the commonest line of a transcript, a
// session/update carrying a message or thought chunk, when it is laid out
// exactly as
//
//	{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"…","update":{"sessionUpdate":"agent_message_chunk","content":{…}[,"messageId":"…"]}}}
//
// without reflection. Any other layout, field, escape or non-ASCII id gives
// ok false and the caller uses the decoder. FuzzFastChunkUpdate checks the
// two agree whenever this one answers.
func fastChunkUpdate(b []byte) (*thread.Update, bool) {
	if !bytes.HasPrefix(b, []byte(chunkPrefix)) {
		return nil, false
	}
	i := len(chunkPrefix)
	sid, ok := plainString(b, i)
	if !ok {
		return nil, false
	}
	i = sid
	if !bytes.HasPrefix(b[i:], []byte(chunkUpdate)) {
		return nil, false
	}
	i += len(chunkUpdate)
	ke, ok := plainString(b, i)
	if !ok {
		return nil, false
	}
	u := &thread.Update{}
	switch string(b[i:ke]) {
	case thread.KindAgentMessageChunk:
		u.SessionUpdate = thread.KindAgentMessageChunk
	case thread.KindAgentThoughtChunk:
		u.SessionUpdate = thread.KindAgentThoughtChunk
	case thread.KindUserMessageChunk:
		u.SessionUpdate = thread.KindUserMessageChunk
	default:
		return nil, false
	}
	i = ke
	if !bytes.HasPrefix(b[i:], []byte(chunkContent)) {
		return nil, false
	}
	i += len(chunkContent)
	ce, ok := skipValue(b, i)
	if !ok || ce == i || b[i] == ' ' {
		return nil, false
	}
	content := b[i:ce]
	i = ce
	if bytes.HasPrefix(b[i:], []byte(chunkMsgID)) {
		i += len(chunkMsgID)
		me, ok := plainString(b, i)
		if !ok {
			return nil, false
		}
		id := string(b[i:me])
		u.MessageID = &id
		i = me + 1
	}
	if string(b[i:]) != chunkEnd {
		return nil, false
	}
	u.Content = json.RawMessage(bytes.Clone(content))
	return u, true
}

// plainString returns the index of the closing quote of a string body
// starting at b[i] that has only printable ASCII and no escapes.
func plainString(b []byte, i int) (int, bool) {
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			return i, true
		}
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return i, false
		}
	}
	return i, false
}
