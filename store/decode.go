package store

import (
	"bytes"
	"encoding/json"
	"log/slog"

	"mnote/internal/jsonscan"
	"mnote/thread"
)

// step is a record decoded for the reducer: everything it needs, owned
// (no references into the reader's buffer), so decoding can run on another
// goroutine than applying.
type step struct {
	seq, ts, end int64
	dir, kind    string

	update *thread.Update // in session/update

	rpcID             string          // in request_permission, in response, out requests we track
	result            json.RawMessage // in response
	usage             json.RawMessage // in response: result.usage
	toolCall, options json.RawMessage // in request_permission

	cache *thread.CacheUsage // in: a notification with prompt-cache figures

	app any // app records: *SessionRecord, *TitleRecord, ...

	applied *applied // what the owner of a shared thread got, if anything
}

// turnEnded is a TurnEndedRecord with its token counts read.
type turnEnded struct {
	TurnEndedRecord
	inputTokens, outputTokens int64
}

// updateEnvelope is an "in" session/update line.
type updateEnvelope struct {
	Params struct {
		Update thread.Update `json:"update"`
	} `json:"params"`
}

// rpcEnvelope is any other JSON-RPC line we look into.
type rpcEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Params struct {
		ToolCall json.RawMessage `json:"toolCall"`
		Options  json.RawMessage `json:"options"`
	} `json:"params"`
}

// decodeRPC decodes what the reducer reads of a JSON-RPC line into env
// (zero), without reflection when it can.
func decodeRPC(b []byte, env *rpcEnvelope) error {
	if rpcMembers(b, env) {
		return nil
	}
	*env = rpcEnvelope{}
	return jsonscan.Decode(b, env)
}

// rpcMembers reads the members of rpcEnvelope by walking the line; ok is
// false whenever it is not sure encoding/json would read the same
// (escaped, repeated or case-variant keys).
func rpcMembers(b []byte, env *rpcEnvelope) bool {
	m, ok := jsonscan.Object(b, 0)
	if !ok {
		return false
	}
	var seen uint8
	take := func(bit uint8, dst *json.RawMessage, m *jsonscan.Members) bool {
		v, ok := m.Value()
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		*dst = bytes.Clone(v)
		return true
	}
	for m.Next() {
		if m.KeyEscaped {
			return false
		}
		switch string(m.Key) {
		case "id":
			ok = take(1, &env.ID, &m)
		case "result":
			ok = take(2, &env.Result, &m)
		case "params":
			if seen&4 != 0 {
				return false
			}
			seen |= 4
			p, pok := jsonscan.Object(b, m.Start)
			ok = pok
			for ok && p.Next() {
				switch {
				case p.KeyEscaped:
					ok = false
				case string(p.Key) == "toolCall":
					ok = take(8, &env.Params.ToolCall, &p)
				case string(p.Key) == "options":
					ok = take(16, &env.Params.Options, &p)
				default:
					ok = !jsonscan.FoldsTo(p.Key, "toolCall", "options")
				}
			}
			if ok {
				var end int
				end, ok = p.Close()
				m.Resume(end, ok)
			}
		default:
			ok = !jsonscan.FoldsTo(m.Key, "id", "result", "params")
		}
		if !ok {
			return false
		}
	}
	end, ok := m.Close()
	return ok && jsonscan.SkipSpace(b, end) == len(b)
}

// decodeUpdate decodes the update of a session/update line.
func decodeUpdate(data []byte) (*thread.Update, bool) {
	u := new(thread.Update)
	if _, ok := thread.ParseUpdateLine(data, u); ok {
		return u, true
	}
	var env updateEnvelope
	if err := jsonscan.Decode(data, &env); err != nil || env.Params.Update.SessionUpdate == "" {
		return nil, false
	}
	return &env.Params.Update, true
}

// idKey normalizes a JSON-RPC id for map lookups.
func idKey(raw json.RawMessage) string {
	return string(bytes.TrimSpace(raw))
}

var usageKey = []byte(`"usage"`)

// decodeStep decodes what the reducer uses of rec into st. hint, if not
// nil, is the decoded update of an "in" session/update record.
func decodeStep(rec Record, hint *thread.Update, st *step) {
	*st = step{seq: rec.Seq, ts: rec.TsMs, end: rec.End, dir: rec.Dir, kind: rec.Kind}
	switch rec.Dir {
	case DirIn:
		switch rec.Kind {
		case KindSessionUpdate:
			st.update = hint
			if st.update == nil {
				st.update, _ = decodeUpdate(rec.Data)
			}
		case thread.MethodReasonixStatus:
			var env struct {
				Params json.RawMessage `json:"params"`
			}
			if jsonscan.Decode(rec.Data, &env) == nil {
				if cu, ok, err := thread.ParseCacheStatus(rec.Kind, env.Params); err == nil && ok {
					st.cache = &cu
				}
			}
		case KindRequestPermission:
			var env rpcEnvelope
			if decodeRPC(rec.Data, &env) == nil && len(env.ID) > 0 {
				st.rpcID, st.toolCall, st.options = idKey(env.ID), env.Params.ToolCall, env.Params.Options
			}
		case KindResponse:
			var env rpcEnvelope
			if decodeRPC(rec.Data, &env) != nil || len(env.ID) == 0 {
				return
			}
			st.rpcID, st.result = idKey(env.ID), env.Result
			if bytes.Contains(env.Result, usageKey) {
				var r struct {
					Usage json.RawMessage `json:"usage"`
				}
				if jsonscan.Decode(env.Result, &r) == nil {
					st.usage = r.Usage
				}
			}
		}
	case DirOut:
		switch rec.Kind {
		case KindSessionNew, KindSessionLoad, KindSessionResume, KindSessionFork, KindSessionPrompt:
			var env rpcEnvelope
			if decodeRPC(rec.Data, &env) == nil && len(env.ID) > 0 {
				st.rpcID = idKey(env.ID)
			}
		}
	case DirApp:
		st.app = decodeApp(rec)
	}
}

// decodeApp decodes an app record's data into its type; nil for kinds the
// reducer does not use and for data it cannot read.
func decodeApp(rec Record) any {
	var v any
	switch rec.Kind {
	case KindSession:
		v = new(SessionRecord)
	case KindTitle:
		v = new(TitleRecord)
	case KindRuntimeBound:
		v = new(RuntimeBoundRecord)
	case KindRuntimeStatus:
		v = new(RuntimeStatusRecord)
	case KindTurnStarted:
		v = new(TurnStartedRecord)
	case KindPrompt:
		v = new(PromptRecord)
	case KindPermissionAsked:
		v = new(PermissionAskedRecord)
	case KindPermissionDecided:
		v = new(PermissionDecidedRecord)
	case KindReplay:
		v = new(ReplayRecord)
	case KindToolCallDone:
		v = new(ToolCallDoneRecord)
	case KindElicitationAsked, KindElicitationAnswered:
		v = new(QuestionRecord)
	case KindTerminalStarted, KindTerminalOutput, KindTerminalExited, KindTerminalReleased:
		v = new(TerminalRecord)
	case KindTurnEnded:
		t := new(turnEnded)
		if err := jsonscan.Decode(rec.Data, &t.TurnEndedRecord); err != nil {
			slog.Debug("store: unreadable app record", "seq", rec.Seq, "kind", rec.Kind, "err", err)
			return nil
		}
		if len(t.Usage) > 0 && string(t.Usage) != "null" {
			var u struct {
				InputTokens  int64 `json:"inputTokens"`
				OutputTokens int64 `json:"outputTokens"`
			}
			jsonscan.Decode(t.Usage, &u) //nolint:errcheck // absent or odd fields stay 0
			t.inputTokens, t.outputTokens = u.InputTokens, u.OutputTokens
		} else {
			t.Usage = nil
		}
		return t
	default:
		return nil
	}
	if err := jsonscan.Decode(rec.Data, v); err != nil {
		slog.Debug("store: unreadable app record", "seq", rec.Seq, "kind", rec.Kind, "err", err)
		return nil
	}
	return v
}
