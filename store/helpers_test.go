package store

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"mnote/thread"
)

// sessionScript writes realistic ACP sessions through a Writer: the app
// records mnote writes and the JSON-RPC lines exchanged with the agent.
type sessionScript struct {
	w        *Writer
	x        *Indexer // when set, observes every record as the live app would
	id       string
	agentID  string
	rpcID    int
	promptID int // id of the turn's session/prompt request
	turn     int
	tool     int
	err      error
}

func newScript(w *Writer, id string) *sessionScript {
	return &sessionScript{w: w, id: id, agentID: "agent-" + id}
}

func (s *sessionScript) raw(dir, kind, data string) {
	if s.err != nil {
		return
	}
	if !json.Valid([]byte(data)) {
		panic("invalid test JSON: " + data)
	}
	s.append(dir, kind, []byte(data))
}

func (s *sessionScript) append(dir, kind string, data []byte) {
	rec, err := s.w.AppendRecord(dir, kind, data)
	if err != nil {
		s.err = err
		return
	}
	if s.x != nil {
		var hint *thread.Update
		if dir == DirIn && kind == KindSessionUpdate {
			hint, _ = decodeUpdate(data) // the ACP reader's decode, in the app
		}
		s.x.Observe(rec, hint)
	}
}

func (s *sessionScript) app(kind string, v any) {
	if s.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.append(DirApp, kind, data)
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// start writes the session header and binds a runtime.
func (s *sessionScript) start(title, workspace string, created int64) {
	s.app(KindSession, SessionRecord{ID: s.id, Title: title, Workspace: workspace, CreatedMs: created})
	s.rpcID++
	s.raw(DirOut, "initialize", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}`, s.rpcID))
	s.raw(DirIn, KindResponse, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`, s.rpcID))
	s.rpcID++
	s.raw(DirOut, KindSessionNew, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":%s,"mcpServers":[]}}`, s.rpcID, q(workspace)))
	s.raw(DirIn, KindResponse, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%s,"modes":{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"}]}}}`, s.rpcID, q(s.agentID)))
	s.app(KindRuntimeBound, RuntimeBoundRecord{Binding: 1, Runtime: "claude-code", Command: "claude-code-acp", AgentSessionID: s.agentID, How: HowNew})
	s.app(KindRuntimeStatus, RuntimeStatusRecord{Binding: 1, Status: "ready"})
}

func (s *sessionScript) update(u string) {
	s.raw(DirIn, KindSessionUpdate, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`+q(s.agentID)+`,"update":`+u+`}}`)
}

func (s *sessionScript) chunk(kind, text string) {
	s.update(`{"sessionUpdate":"` + kind + `","content":{"type":"text","text":` + q(text) + `}}`)
}

// prompt starts a turn with the user's text.
func (s *sessionScript) prompt(text string) {
	s.turn++
	s.app(KindTurnStarted, TurnStartedRecord{Turn: s.turn})
	s.app(KindPrompt, map[string]any{"turn": s.turn, "blocks": []map[string]string{{"type": "text", "text": text}}, "text": text})
	s.rpcID++
	s.promptID = s.rpcID
	s.raw(DirOut, KindSessionPrompt, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%s,"prompt":[{"type":"text","text":%s}]}}`, s.rpcID, q(s.agentID), q(text)))
}

// answer streams an assistant message in chunks of about chunkLen bytes.
func (s *sessionScript) answer(kind, text string, chunkLen int) {
	for len(text) > 0 {
		n := min(chunkLen, len(text))
		for n < len(text) && text[n]&0xC0 == 0x80 {
			n++
		}
		s.chunk(kind, text[:n])
		text = text[n:]
	}
}

// toolCall runs one tool call, optionally through a permission request.
func (s *sessionScript) toolCall(kind, title string, permission string) string {
	s.tool++
	id := "call_" + strconv.Itoa(s.tool)
	s.update(`{"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":` + q(title) + `,"kind":"` + kind + `","status":"pending","locations":[{"path":"/ws/notes/a.md"}],"rawInput":{"path":"/ws/notes/a.md"}}`)
	if permission != "" {
		s.rpcID++
		reqID := 1000 + s.rpcID
		s.raw(DirIn, KindRequestPermission, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":%s,"toolCall":{"toolCallId":%q,"title":%s,"kind":%q,"content":[{"type":"diff","path":"/ws/notes/a.md","oldText":"a","newText":"b"}]},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`, reqID, q(s.agentID), id, q(title), kind))
		s.app(KindPermissionAsked, map[string]any{"turn": s.turn, "requestId": reqID, "toolCallId": id, "title": title, "kind": kind,
			"options": json.RawMessage(`[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]`)})
		optID := "allow"
		if strings.HasPrefix(permission, "reject") {
			optID = "reject"
		}
		s.app(KindPermissionDecided, map[string]any{"turn": s.turn, "requestId": reqID, "toolCallId": id, "outcome": "selected", "optionId": optID, "optionKind": permission, "by": "user"})
		s.raw(DirOut, KindResponse, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, reqID, optID))
	}
	if strings.HasPrefix(permission, "reject") {
		s.update(`{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"failed"}`)
		return id
	}
	s.update(`{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"in_progress"}`)
	s.update(`{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed","content":[{"type":"content","content":{"type":"text","text":"done"}}],"rawOutput":{"ok":true}}`)
	return id
}

// end closes the turn.
func (s *sessionScript) end(stopReason string, in, out int) {
	s.raw(DirIn, KindResponse, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":%q,"usage":{"inputTokens":%d,"outputTokens":%d,"totalTokens":%d}}}`, s.promptID, stopReason, in, out, in+out))
	s.app(KindTurnEnded, map[string]any{"turn": s.turn, "stopReason": stopReason, "usage": map[string]any{"used": in + out, "size": 200000, "inputTokens": in, "outputTokens": out}, "updates": 10})
}

// vocab is a Zipf-distributed vocabulary for realistic text.
type vocab struct {
	words []string
	cjk   []bool // words[i] is Chinese: written without a space after a Chinese word
	zipf  *rand.Zipf
	rng   *rand.Rand
}

var syllables = []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "der", "ing", "tion", "al", "per", "con", "ex", "pro", "ment", "ar", "is", "un", "re", "de", "ble", "or", "an", "ste", "qui", "zo", "fa", "gle"}

var common = strings.Fields("the of and to a in is it you that he was for on are with as I his they be at one have this from or had by hot word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find note file markdown function test error agent session search index query table change commit")

func newVocab(seed uint64, size int) *vocab {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := append([]string(nil), common...)
	seen := make(map[string]bool, size)
	for _, w := range words {
		seen[w] = true
	}
	for len(words) < size {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &vocab{words: words, rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(words)-1))}
}

func (v *vocab) word() string { return v.words[v.zipf.Uint64()] }

// hanChars are common Chinese characters, for Chinese words of a mixed
// vocabulary.
const hanChars = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可而子也你能好下过面看天去同小心之都然得前开把说还自里高三所学样年想长行方又如经实文事明理本点当意与现法间无定度情体新相知机进动问题代表设计缓存命中率检索笔记搜索索引数据模型文件会话智能权限工具调用思考过程检查点撤销"

// newMixedVocab is newVocab with every third word past the common ones a
// Chinese word of two to four characters: text of people who write in
// Chinese and English.
func newMixedVocab(seed uint64, size int) *vocab {
	v := newVocab(seed, size)
	han := []rune(hanChars)
	v.cjk = make([]bool, len(v.words))
	seen := make(map[string]bool)
	for i := len(common); i < len(v.words); i += 3 {
		for {
			n := 2 + v.rng.IntN(3)
			w := make([]rune, n)
			for j := range w {
				w[j] = han[v.rng.IntN(len(han))]
			}
			if s := string(w); !seen[s] {
				seen[s] = true
				v.words[i], v.cjk[i] = s, true
				break
			}
		}
	}
	return v
}

// sentence returns about n words of text.
func (v *vocab) sentence(n int) string {
	var b strings.Builder
	prevCJK := false
	for i := range n {
		k := v.zipf.Uint64()
		isCJK := v.cjk != nil && v.cjk[k]
		if i > 0 && !(isCJK && prevCJK) {
			b.WriteByte(' ')
		}
		prevCJK = isCJK
		b.WriteString(v.words[k])
		if v.rng.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('.')
	return b.String()
}

// rareWord returns a word from the middle of the distribution, the kind
// of word people search for.
func (v *vocab) rareWord() string {
	lo, hi := 150, min(len(v.words), 5000)
	// log-uniform between lo and hi
	r := math.Exp(math.Log(float64(lo)) + v.rng.Float64()*(math.Log(float64(hi))-math.Log(float64(lo))))
	return v.words[int(r)]
}

// shape is how a written session streams.
type shape struct {
	chunk     int // bytes per message chunk
	permEvery int // every n-th turn's tool call asks permission
}

var defaultShape = shape{chunk: 24, permEvery: 2}

// writeSession writes a whole session with the given number of turns; x,
// if not nil, observes it live.
func writeSession(t testing.TB, w *Writer, x *Indexer, id, title, workspace string, turns int, v *vocab) {
	t.Helper()
	writeShaped(t, w, x, id, title, workspace, turns, v, defaultShape)
}

// writeShaped writes turns of five entries each: prompt, thought, answer,
// tool call, answer.
func writeShaped(t testing.TB, w *Writer, x *Indexer, id, title, workspace string, turns int, v *vocab, sh shape) {
	t.Helper()
	s := newScript(w, id)
	s.x = x
	s.start(title, workspace, 1_700_000_000_000)
	for i := range turns {
		s.prompt(v.sentence(8 + i%7))
		s.answer("agent_thought_chunk", v.sentence(20), sh.chunk*2)
		s.answer("agent_message_chunk", v.sentence(30), sh.chunk)
		if i%sh.permEvery == 0 {
			s.toolCall("edit", "Edit notes/a.md", "allow_once")
		} else {
			s.toolCall("read", "Read notes/b.md", "")
		}
		s.answer("agent_message_chunk", v.sentence(15), sh.chunk)
		s.end("end_turn", 1200+i, 300+i)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
}
