package thread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"mnote/internal/jsonscan"
)

// Apply applies one session/update. It returns what changed, or an error
// wrapping ErrUnknownKind (with the kind name) for kinds it does not know and
// ErrInvalidUpdate for updates it cannot use; on error nothing changed.
func (t *Thread) Apply(u *Update) (Change, error) {
	if u == nil {
		return Change{}, fmt.Errorf("thread: nil update: %w", ErrInvalidUpdate)
	}
	entryKind, known := kindInfo(u.SessionUpdate)
	if !known {
		return Change{}, fmt.Errorf("thread: %w %q", ErrUnknownKind, u.SessionUpdate)
	}
	if t.replaying && t.replayDrop && entryKind {
		t.replayDropped++
		return Change{}, nil
	}
	ch, err := t.apply(u)
	if err == nil && t.replaying {
		t.replayApplied++
	}
	return ch, err
}

// kindInfo reports whether an update kind is known and whether it creates or
// changes entries (as opposed to session state).
func kindInfo(kind string) (entryKind, known bool) {
	switch kind {
	case KindUserMessageChunk, KindAgentMessageChunk, KindAgentThoughtChunk,
		KindToolCall, KindToolCallUpdate, KindPlan:
		return true, true
	case KindAvailableCommandsUpdate, KindCurrentModeUpdate, KindConfigOptionUpdate,
		KindSessionInfoUpdate, KindUsageUpdate:
		return false, true
	}
	return false, false
}

func (t *Thread) apply(u *Update) (Change, error) {
	switch u.SessionUpdate {
	case KindAgentMessageChunk:
		return t.applyChunk(EntryAssistantMessage, u)
	case KindAgentThoughtChunk:
		return t.applyChunk(EntryThought, u)
	case KindUserMessageChunk:
		return t.applyChunk(EntryUserMessage, u)
	case KindToolCall, KindToolCallUpdate:
		return t.applyToolCall(u)
	case KindPlan:
		return t.applyPlan(u)
	case KindAvailableCommandsUpdate:
		var cmds []Command
		if err := decodeList(u.AvailableCommands, &cmds); err != nil {
			return Change{}, fmt.Errorf("thread: %s: %w", u.SessionUpdate, err)
		}
		t.commands = cmds
		return Change{Op: OpMeta, Kind: MetaCommands}, nil
	case KindCurrentModeUpdate:
		if u.CurrentModeID == nil {
			return Change{}, fmt.Errorf("thread: %s without currentModeId: %w", u.SessionUpdate, ErrInvalidUpdate)
		}
		t.currentMode = *u.CurrentModeID
		return Change{Op: OpMeta, Kind: MetaMode}, nil
	case KindConfigOptionUpdate:
		if !isNull(u.ConfigOptions) && !jsonscan.Valid(u.ConfigOptions) {
			return Change{}, fmt.Errorf("thread: %s: malformed configOptions: %w", u.SessionUpdate, ErrInvalidUpdate)
		}
		t.configOptions = nil
		if !isNull(u.ConfigOptions) {
			t.configOptions = cloneRaw(u.ConfigOptions)
		}
		return Change{Op: OpMeta, Kind: MetaConfigOptions}, nil
	case KindSessionInfoUpdate:
		if u.Title != nil && !t.userTitle {
			t.title = *u.Title
		}
		if u.UpdatedAt != nil {
			t.updatedAt = *u.UpdatedAt
		}
		return Change{Op: OpMeta, Kind: MetaSessionInfo}, nil
	case KindUsageUpdate:
		if u.Used != nil {
			t.usage.Used = *u.Used
		}
		if u.Size != nil {
			t.usage.Size = *u.Size
		}
		if u.Cost != nil {
			t.noteCost(*u.Cost)
		}
		return Change{Op: OpMeta, Kind: MetaUsage}, nil
	}
	return Change{}, fmt.Errorf("thread: %w %q", ErrUnknownKind, u.SessionUpdate)
}

// decodeList decodes a JSON list; absent or null gives nil.
func decodeList[T any](raw json.RawMessage, out *[]T) error {
	if isNull(raw) {
		*out = nil
		return nil
	}
	switch o := any(out).(type) {
	case *[]ToolCallContent:
		if l, ok := toolContents(raw); ok {
			*o = l
			return nil
		}
	case *[]Location:
		if l, ok := locations(raw); ok {
			*o = l
			return nil
		}
	}
	if err := jsonscan.Decode(raw, out); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidUpdate, err)
	}
	return nil
}

// applyChunk appends a message or thought chunk. This is the hot path.
func (t *Thread) applyChunk(kind string, u *Update) (Change, error) {
	text, block, err := chunkContent(u.Content)
	if err != nil {
		return Change{}, fmt.Errorf("thread: %s content: %w", u.SessionUpdate, err)
	}
	usage := false
	if len(u.Meta) > 0 && bytes.Contains(u.Meta, usageKey) {
		usage = t.noteMetaUsage(u.Meta)
	}
	if text == "" && block == nil {
		if usage {
			return Change{Op: OpMeta, Kind: MetaUsage}, nil
		}
		return Change{}, nil
	}
	if kind == EntryUserMessage && t.swallowEcho(text, block) {
		return Change{}, nil
	}
	var mid string
	if u.MessageID != nil {
		mid = *u.MessageID
	}
	var e *entry
	if t.open >= 0 {
		e = t.entries[t.open]
		if e.kind != kind || (mid != "" && e.messageID != "" && mid != e.messageID) {
			e = nil
		}
	}
	if e == nil {
		if kind == EntryUserMessage {
			t.startTurn()
		}
		e = t.newEntry(kind)
		e.messageID = mid
		e.streaming = true
		t.open = len(t.entries) - 1
		kept := text
		if t.forget && kind != EntryUserMessage && len(kept) > ForgetKeepsHead {
			kept = strings.ToValidUTF8(kept[:ForgetKeepsHead], "")
		}
		e.addContent(kept, block)
		return Change{Op: OpUpsert, EntryID: e.id, Kind: kind, Delta: text}, nil
	}
	if e.messageID == "" {
		e.messageID = mid
	}
	if t.forget && kind != EntryUserMessage && block == nil {
		// Nobody reads it: the transcript and the change's delta have it.
		return Change{Op: OpAppend, EntryID: e.id, Kind: kind, Delta: text}, nil
	}
	e.addContent(text, block)
	if block != nil {
		return Change{Op: OpUpsert, EntryID: e.id, Kind: kind}, nil
	}
	return Change{Op: OpAppend, EntryID: e.id, Kind: kind, Delta: text}, nil
}

// chunkContent decodes the ContentBlock of a chunk: its text, or the block
// kept raw when it is not text. Absent or null content is empty. A JSON
// object encoding/json cannot map onto ContentBlock is kept raw as well;
// anything else is an error.
func chunkContent(raw json.RawMessage) (string, *Block, error) {
	if text, ok := textBlock(raw); ok {
		return text, nil, nil
	}
	if isNull(raw) {
		return "", nil, nil
	}
	var cb ContentBlock
	if err := jsonscan.Decode(raw, &cb); err != nil {
		if i := jsonscan.SkipSpace(raw, 0); i < len(raw) && raw[i] == '{' && jsonscan.Valid(raw) {
			var typ struct {
				Type string `json:"type"`
			}
			_ = jsonscan.Decode(raw, &typ) // best effort: the type may be the odd field
			return "", &Block{Type: typ.Type, Raw: cloneRaw(raw)}, nil
		}
		return "", nil, fmt.Errorf("%w: %w", ErrInvalidUpdate, err)
	}
	if cb.Type == "text" {
		return cb.Text, nil, nil
	}
	return "", &Block{Type: cb.Type, Raw: cloneRaw(raw)}, nil
}

// swallowEcho drops a user_message_chunk that only echoes the prompt just
// recorded by AddUserPrompt (some agents send the prompt back), so it does
// not show twice.
func (t *Thread) swallowEcho(text string, block *Block) bool {
	if t.echo < 0 || t.echo != len(t.entries)-1 {
		return false
	}
	e := t.entries[t.echo]
	switch {
	case block != nil && t.echoBlocks < len(e.blocks) && e.blocks[t.echoBlocks].Type == block.Type:
		t.echoBlocks++
		return true
	case block == nil && strings.HasPrefix(string(e.text[t.echoText:]), text):
		t.echoText += len(text)
		return true
	}
	t.echo = -1
	return false
}

func (e *entry) addContent(text string, block *Block) {
	if block != nil {
		block.Offset = len(e.text)
		e.blocks = append(e.blocks, *block)
	}
	if len(e.text)+len(text) > cap(e.text) {
		// Double: long streams would otherwise be copied over and over
		// (append grows large slices by only 1.25x).
		buf := make([]byte, len(e.text), 2*cap(e.text)+len(text)+64)
		copy(buf, e.text)
		e.text = buf
	}
	e.text = append(e.text, text...)
}

var usageKey = []byte(`"usage"`)

// noteMetaUsage records the token counts of a chunk's _meta.usage and
// reports whether there were any.
func (t *Thread) noteMetaUsage(meta json.RawMessage) bool {
	var m struct {
		Usage json.RawMessage `json:"usage"`
	}
	if err := jsonscan.Decode(meta, &m); err != nil {
		return false // _meta is free-form; a shape we do not know is ignored
	}
	tokens, _ := parseTokens(m.Usage)
	if len(tokens) == 0 {
		return false
	}
	t.usage.LastTokens = tokens
	if t.usage.TurnTokens == nil {
		t.usage.TurnTokens = make(map[string]int64, len(tokens))
	}
	if t.usage.SessionTokens == nil {
		t.usage.SessionTokens = make(map[string]int64, len(tokens))
	}
	for k, v := range tokens {
		t.usage.TurnTokens[k] += v
		t.usage.SessionTokens[k] += v
	}
	return true
}

// parseTokens keeps the numeric fields of a usage object.
func parseTokens(raw json.RawMessage) (map[string]int64, error) {
	if isNull(raw) {
		return nil, nil
	}
	m, ok := jsonscan.Object(raw, 0)
	if !ok {
		return nil, errors.New("usage is not an object")
	}
	out := make(map[string]int64, 4)
	for m.Next() {
		k, kok := m.KeyText()
		v, ok := m.Value()
		if !ok || !kok {
			continue // Close reports a malformed value; an odd key is not a count
		}
		s := string(v)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out[k] = n
		} else if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			out[k] = int64(math.Round(f))
		}
	}
	if end, ok := m.Close(); !ok || jsonscan.SkipSpace(raw, end) != len(raw) {
		return nil, errors.New("malformed usage object")
	}
	return out, nil
}

// RecordTurnUsage records the usage object of a session/prompt response
// ({"inputTokens":..,"outputTokens":..,"totalTokens":..}) as the current
// turn's token total, replacing what _meta.usage reports summed up for it.
func (t *Thread) RecordTurnUsage(usage json.RawMessage) (Change, error) {
	if isNull(usage) {
		return Change{}, nil
	}
	tokens, err := parseTokens(usage)
	if err != nil {
		return Change{}, fmt.Errorf("thread: prompt usage: %w: %w", ErrInvalidUpdate, err)
	}
	if len(tokens) == 0 {
		return Change{}, nil
	}
	if t.usage.SessionTokens == nil {
		t.usage.SessionTokens = make(map[string]int64, len(tokens))
	}
	// Swap the turn's share of the session sums.
	for k, v := range t.usage.TurnTokens {
		t.usage.SessionTokens[k] -= v
		if _, kept := tokens[k]; !kept && t.usage.SessionTokens[k] == 0 {
			delete(t.usage.SessionTokens, k)
		}
	}
	for k, v := range tokens {
		t.usage.SessionTokens[k] += v
	}
	t.usage.LastTokens = tokens
	t.usage.TurnTokens = maps.Clone(tokens)
	return Change{Op: OpMeta, Kind: MetaUsage}, nil
}

// noteCost records the session's cumulative cost from a usage_update and
// the turn's share of it: the difference from the cost when the turn
// began (all of it when none was reported before), rounded to 1e-9 so
// that float noise does not show. A change of currency leaves the turn's
// share unknown.
func (t *Thread) noteCost(c Cost) {
	if math.IsNaN(c.Amount) || math.IsInf(c.Amount, 0) {
		return
	}
	t.usage.Cost = &c
	t.usage.TurnCost = nil
	base := 0.0
	if b := t.turnCostBase; b != nil {
		if b.Currency != c.Currency {
			return
		}
		base = b.Amount
	}
	turn := math.Round((c.Amount-base)*1e9) / 1e9
	t.usage.TurnCost = &Cost{Amount: turn, Currency: c.Currency}
}

// startTurn begins a new turn (a user prompt).
func (t *Thread) startTurn() {
	t.turn++
	t.planIdx = -1
	if t.forget {
		t.forgetTurn()
	}
	t.stopReason = ""
	t.usage.TurnTokens = nil
	t.usage.TurnCost = nil
	t.turnCostBase = nil
	if t.usage.Cost != nil {
		c := *t.usage.Cost
		t.turnCostBase = &c
	}
	if t.usage.Cache != nil {
		t.usage.Cache.Turn = CacheFigures{}
	}
}

// AddUserPrompt records the client's own prompt as the user message entry
// of a new turn. Text blocks are concatenated into the entry's text; other
// blocks are kept raw (an image with a Hash without its Data: the page
// fetches the bytes by the hash).
func (t *Thread) AddUserPrompt(blocks []ContentBlock) Change {
	blocks = StoredBlocks(blocks)
	t.startTurn()
	e := t.newEntry(EntryUserMessage)
	t.echo, t.echoText, t.echoBlocks = len(t.entries)-1, 0, 0
	for _, b := range blocks {
		if b.Type == "text" {
			e.text = append(e.text, b.Text...)
			continue
		}
		raw, err := json.Marshal(b)
		if err != nil { // only a malformed Resource; keep what we know
			b.Resource = nil
			raw, _ = json.Marshal(b)
		}
		e.addContent("", &Block{Type: b.Type, Raw: raw})
	}
	return Change{Op: OpUpsert, EntryID: e.id, Kind: EntryUserMessage}
}

// applyPlan replaces the current turn's plan entry, creating it the first
// time.
func (t *Thread) applyPlan(u *Update) (Change, error) {
	var plan []PlanEntry
	if err := decodeList(u.Entries, &plan); err != nil {
		return Change{}, fmt.Errorf("thread: plan: %w", err)
	}
	if plan == nil {
		plan = []PlanEntry{}
	}
	t.plan = plan
	if t.planIdx >= 0 {
		e := t.entries[t.planIdx]
		e.plan = slices.Clone(plan)
		return Change{Op: OpUpsert, EntryID: e.id, Kind: EntryPlan}, nil
	}
	e := t.newEntry(EntryPlan)
	e.plan = slices.Clone(plan)
	t.planIdx = len(t.entries) - 1
	return Change{Op: OpUpsert, EntryID: e.id, Kind: EntryPlan}, nil
}

// ApplySessionResult records the modes, config options and legacy models of a
// session/new, session/load or session/resume result. Other fields are
// ignored.
func (t *Thread) ApplySessionResult(result json.RawMessage) (Change, error) {
	if isNull(result) {
		return Change{}, nil
	}
	var r struct {
		Modes *struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []Mode `json:"availableModes"`
		} `json:"modes"`
		Models *struct {
			CurrentModelID  string  `json:"currentModelId"`
			AvailableModels []Model `json:"availableModels"`
		} `json:"models"`
		ConfigOptions json.RawMessage `json:"configOptions"`
	}
	if err := jsonscan.Decode(result, &r); err != nil {
		return Change{}, fmt.Errorf("thread: session result: %w: %w", ErrInvalidUpdate, err)
	}
	if r.Modes == nil && r.ConfigOptions == nil && r.Models == nil {
		return Change{}, nil
	}
	if r.Models != nil {
		t.currentModel = r.Models.CurrentModelID
		t.models = r.Models.AvailableModels
	}
	if r.Modes != nil {
		t.currentMode = r.Modes.CurrentModeID
		t.modes = r.Modes.AvailableModes
	}
	if r.ConfigOptions != nil {
		t.configOptions = nil
		if !isNull(r.ConfigOptions) {
			t.configOptions = cloneRaw(r.ConfigOptions)
		}
	}
	return Change{Op: OpMeta, Kind: MetaSession}, nil
}

// Title is the session's title: the user's, else the agent's, else
// mnote's guess.
func (t *Thread) Title() string { return t.title }

// GuessTitle names a session that has no title yet (mnote's guess from
// the first prompt); a title the agent sends later replaces it.
func (t *Thread) GuessTitle(title string) Change {
	if t.title == "" && !t.userTitle {
		t.title = title
	}
	return Change{Op: OpMeta, Kind: MetaSessionInfo}
}

// SetTitle names the session for the user; titles the agent sends later
// no longer replace it.
func (t *Thread) SetTitle(title string) Change {
	t.title, t.userTitle = title, true
	return Change{Op: OpMeta, Kind: MetaSessionInfo}
}
