package agents_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mnote/acp/acptest/fakemodel"
	"mnote/store"
)

// Qwen Code 0.24.4: settings in $HOME/.qwen, an OpenAI-compatible endpoint
// from the environment; the key is given with mnote agents --set-key.
var qwen = agentSpec{
	name: "qwen", command: "qwen", args: []string{"--acp"}, keyVar: "OPENAI_API_KEY", models: "both",
	setup: func(h *harness) map[string]string {
		h.write(".qwen/settings.json", `{"security":{"auth":{"selectedType":"openai"}},
 "model":{"name":"fake-model","generationConfig":{"contextWindowSize":131072}},
 "privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},
 "general":{"enableAutoUpdate":false},"ui":{"enableFollowupSuggestions":false},
 "memory":{"enableManagedAutoMemory":false,"enableManagedAutoDream":false,"enableAutoSkill":false},
 "tools":{"approvalMode":"default"}}`)
		return map[string]string{"HOME": h.agentHome, "OPENAI_BASE_URL": h.modelURL() + "/v1", "OPENAI_MODEL": "fake-model"}
	},
}

// OpenCode 1.18.33: a custom provider in opencode.json whose key comes
// from the environment ({env:...}), set with mnote agents --set-key;
// edits ask permission.
var opencode = agentSpec{
	name: "opencode", command: "opencode", args: []string{"acp"}, keyVar: "MNOTE_FAKE_MODEL_KEY", writesItself: true, models: "config",
	setup: func(h *harness) map[string]string {
		h.write("config/opencode/opencode.json", fmt.Sprintf(`{"model":"fake/fake-model","small_model":"fake/fake-model",
 "enabled_providers":["fake"],"autoupdate":false,"share":"disabled","permission":{"edit":"ask"},
 "provider":{"fake":{"npm":"@ai-sdk/openai-compatible","name":"Fake","options":{"baseURL":%q,"apiKey":"{env:MNOTE_FAKE_MODEL_KEY}"},
  "models":{"fake-model":{"name":"Fake model","tool_call":true,"reasoning":true,"limit":{"context":128000,"output":4096}}}}}}`, h.modelURL()+"/v1"))
		return map[string]string{
			"HOME": h.agentHome, "XDG_CONFIG_HOME": filepath.Join(h.agentHome, "config"),
			"XDG_DATA_HOME": filepath.Join(h.agentHome, "data"), "XDG_CACHE_HOME": filepath.Join(h.agentHome, "cache"),
			"XDG_STATE_HOME": filepath.Join(h.agentHome, "state"), "OPENCODE_DISABLE_MODELS_FETCH": "1",
			"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
		}
	},
}

// Reasonix 1.38.11: the provider in $REASONIX_HOME/config.toml, its key
// in $REASONIX_HOME/.env (it reads no key from the environment); its
// tool_approval config option set to read-only makes edits ask.
var reasonix = agentSpec{
	name: "reasonix", command: "reasonix", args: []string{"acp"}, options: []string{"tool_approval=read-only"}, models: "both",
	setup: func(h *harness) map[string]string {
		h.write("rx/config.toml", fmt.Sprintf(`default_model = "deepseek"

[[providers]]
name = "deepseek"
kind = "openai"
base_url = %q
models = ["deepseek-v4-flash", "deepseek-v4-pro"]
default = "deepseek-v4-flash"
api_key_env = "DEEPSEEK_API_KEY"
`, h.modelURL()))
		h.write("rx/.env", "DEEPSEEK_API_KEY="+h.apiKey+"\n")
		return map[string]string{"HOME": h.agentHome, "REASONIX_HOME": filepath.Join(h.agentHome, "rx"),
			"REASONIX_TELEMETRY": "0", "DO_NOT_TRACK": "1"}
	},
}

func TestQwenCode(t *testing.T) {
	t.Parallel()
	runScenario(t, qwen, nil)
}

func TestOpenCode(t *testing.T) {
	t.Parallel()
	runScenario(t, opencode, nil)
}

func TestReasonix(t *testing.T) {
	t.Parallel()
	h := runScenario(t, reasonix, checkReasonixCache)
	if h == nil || t.Failed() {
		return
	}
	// A key the provider refuses (HTTP 401 from the model server) is the
	// "log in" exit code 5, with the agent's advice, not a crash.
	h.write("rx/.env", "DEEPSEEK_API_KEY=sk-revoked\n")
	r := h.prompt("", prompt1, "")
	reqs := h.requests()[r.before:]
	if r.code != 5 || !strings.Contains(r.stderr, "needs authentication") || !strings.Contains(r.stderr, "reasonix setup") ||
		len(reqs) == 0 || reqs[len(reqs)-1].Status != 401 {
		t.Errorf("with a refused key: exit %d (want 5), model requests %+v\n%s", r.code, reqs, r.stderr)
	}
}

// runScenario drives one agent through mnote: a full turn with a
// permission request, a second turn from a fresh process through
// session/load, and a cancelled third turn. extra, when set, checks more
// after the first two turns.
func runScenario(t *testing.T, spec agentSpec, extra func(h *harness, id string, turn1, turn2 *result)) *harness {
	h := newHarness(t, spec)
	if h.netns {
		t.Logf("%s runs in a private network namespace with only loopback", spec.name)
	} else {
		_, why := canUnshare()
		t.Logf("%s runs on the host's loopback (no network namespace: %s)", spec.name, why)
	}

	// Turn 1: a new session.
	r1 := h.prompt("", prompt1, "")
	if r1.code != 0 {
		t.Fatalf("turn 1: exit %d\nstdout:\n%s\nstderr:\n%s", r1.code, r1.stdout, r1.stderr)
	}
	sess := r1.session()
	id, _ := sess["sessionId"].(string)
	if sess["how"] != "new" || id == "" || sess["agent"] == nil {
		t.Fatalf("session line %v", sess)
	}
	checkTurn(t, h, r1, 1)
	if got := h.note(); got != "# Hello\nhi\n" {
		t.Fatalf("after turn 1 the note is %q", got)
	}
	transcript, _ := sess["transcript"].(string)
	if fi, err := os.Stat(transcript); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("transcript %s: %v", transcript, err)
	}
	k := kinds(h.transcript(transcript))
	for _, want := range []string{"out session/new", "out session/prompt", "app permission_asked", "app permission_decided", "app turn_ended"} {
		if k[want] == 0 {
			t.Errorf("transcript has no %q record: %v", want, k)
		}
	}
	// Every agent's edit is recorded with the file's hashes before and
	// after (fs/write_text_file). Qwen and Reasonix edit only through it;
	// OpenCode also writes the file on disk itself, so whether mnote's
	// write still finds the old content depends on timing.
	var written []map[string]any
	for _, r := range h.transcript(transcript) {
		if r["kind"] == "file_written" {
			written = append(written, r["data"].(map[string]any))
		}
	}
	if len(written) == 0 {
		t.Errorf("no file_written record (kinds %v)", k)
	}
	for _, w := range written {
		if !spec.writesItself && w["beforeSha256"] == w["afterSha256"] {
			t.Errorf("file_written %v: mnote's write changed nothing, yet %s edits only through the client", w, spec.name)
		}
	}
	secretInNoFile(t, h)

	// Turn 2: a fresh mnote process continues the session; the agent
	// replays its history (session/load), which must not duplicate it.
	r2 := h.prompt(id, prompt2, "")
	if r2.code != 0 {
		t.Fatalf("turn 2: exit %d\nstdout:\n%s\nstderr:\n%s", r2.code, r2.stdout, r2.stderr)
	}
	if s := r2.session(); s["how"] != "load" || s["sessionId"] != id || s["agentSessionId"] != sess["agentSessionId"] {
		t.Fatalf("turn 2 session line %v (want how load, same ids as %v)", s, sess)
	}
	checkTurn(t, h, r2, 2)
	if got := h.note(); got != "# Hello\nhi\nhi\n" {
		t.Fatalf("after turn 2 the note is %q", got)
	}
	recs := h.transcript(transcript)
	var replayEnd map[string]any
	for _, r := range recs {
		if r["kind"] == "replay" && r["data"].(map[string]any)["phase"] == "end" {
			replayEnd = r["data"].(map[string]any)
		}
	}
	if replayEnd == nil || replayEnd["dropped"].(float64) == 0 {
		t.Errorf("no session/load replay recorded (replay end: %v)", replayEnd)
	}
	checkNoDuplicates(t, h, id)
	// The shape its results offer models in (docs/agents.md says which).
	for _, m := range []string{"session/new", "session/load"} {
		if got := modelShape(recs, m); got != spec.models {
			t.Errorf("%s offers models as %q in its %s result, want %q", spec.name, got, m, spec.models)
		}
	}
	if extra != nil {
		extra(h, id, r1, r2)
	}

	// Turn 3: cancelled mid-turn (Ctrl+C while the model stalls).
	r3 := h.prompt(id, prompt3, "thought_chunk")
	if r3.code != 4 || r3.stop()["stopReason"] != "cancelled" {
		t.Fatalf("turn 3: exit %d (want 4), stop %v\nstdout:\n%s\nstderr:\n%s", r3.code, r3.stop(), r3.stdout, r3.stderr)
	}
	reqs := h.requests()[r3.before:]
	if len(reqs) == 0 || reqs[len(reqs)-1].Step != fakemodel.StepStall {
		t.Errorf("turn 3: the model's last request was not the stalled one: %+v", reqs)
	}
	if k := kinds(h.transcript(transcript)); k["out session/cancel"] == 0 {
		t.Errorf("turn 3: no session/cancel in the transcript: %v", k)
	}
	if got := h.note(); got != "# Hello\nhi\nhi\n" {
		t.Errorf("the cancelled turn changed the note: %q", got)
	}
	t.Logf("%s: turn 1 %s, turn 2 (load) %s, cancelled turn %s", spec.name, r1.took.Round(1e6), r2.took.Round(1e6), r3.took.Round(1e6))
	return h
}

// checkTurn checks one completed turn: thoughts, a read and an edit tool
// call, a permission request approved, the answer, and what the model
// server was asked.
func checkTurn(t *testing.T, h *harness, r *result, turn int) {
	t.Helper()
	if len(r.ofType("thought_chunk")) == 0 {
		t.Errorf("turn %d: no thought_chunk", turn)
	}
	toolKinds := map[string]bool{}
	for _, typ := range []string{"tool_call", "tool_call_update"} {
		for _, l := range r.ofType(typ) {
			if k, ok := l["kind"].(string); ok {
				toolKinds[k] = true
			}
		}
	}
	if !toolKinds["read"] || !toolKinds["edit"] {
		t.Errorf("turn %d: tool kinds %v, want read and edit", turn, toolKinds)
	}
	var asked, decided int
	for _, p := range r.ofType("permission") {
		switch p["phase"] {
		case "asked":
			asked++
		case "decided":
			decided++
			if p["outcome"] != "selected" {
				t.Errorf("turn %d: permission %v", turn, p)
			}
		}
	}
	if asked == 0 || decided != asked {
		t.Errorf("turn %d: %d permission requests, %d decided; want at least one, all approved", turn, asked, decided)
	}
	if got := r.text(); got != answer {
		t.Errorf("turn %d: answer %q, want %q", turn, got, answer)
	}
	if s := r.stop(); s["stopReason"] != "end_turn" || s["turn"] != float64(turn) {
		t.Errorf("turn %d: stop line %v", turn, s)
	}
	// The model server got the turn's requests, each with the key.
	var steps []string
	for _, q := range h.requests()[r.before:r.after] {
		steps = append(steps, q.Step)
		if !q.KeySent || q.Status != 200 {
			t.Errorf("turn %d: request %+v", turn, q)
		}
	}
	for _, want := range []string{fakemodel.StepRead, fakemodel.StepEdit, fakemodel.StepAnswer} {
		if !slices.Contains(steps, want) {
			t.Errorf("turn %d: the model was never asked for the %s step (steps %v)", turn, want, steps)
		}
	}
	if slices.Contains(steps, fakemodel.StepError) {
		t.Errorf("turn %d: the fake model could not follow its script (steps %v); see the request log %s", turn, steps, h.modelLog)
	}
}

// checkNoDuplicates reads the session back in a fresh process (mnote
// show): two prompts, two answers, each tool call of a turn once. (An id
// may come back in a later turn: Reasonix asks permission for "gate-1" in
// every process.)
func checkNoDuplicates(t *testing.T, h *harness, id string) {
	t.Helper()
	th, info := h.show(id)
	entries, _ := th["entries"].([]any)
	var users, answers []string
	toolIDs := map[string]int{}
	for _, e := range entries {
		m := e.(map[string]any)
		switch m["kind"] {
		case "user_message":
			users = append(users, fmt.Sprint(m["text"]))
		case "assistant_message":
			answers = append(answers, fmt.Sprint(m["text"]))
		case "tool_call":
			toolIDs[fmt.Sprint(m["turn"], "/", m["toolCall"].(map[string]any)["toolCallId"])]++
		}
	}
	if !slices.Equal(users, []string{prompt1, prompt2}) {
		t.Errorf("user messages %q, want the two prompts once each", users)
	}
	if !slices.Equal(answers, []string{answer, answer}) {
		t.Errorf("answers %q, want two", answers)
	}
	if len(toolIDs) < 4 {
		t.Errorf("tool calls %v, want a read and an edit per turn", toolIDs)
	}
	for tc, n := range toolIDs {
		if n != 1 {
			t.Errorf("tool call %s appears %d times", tc, n)
		}
	}
	if info["Turns"] != 2.0 {
		t.Errorf("session info turns = %v", info["Turns"])
	}
}

// secretInNoFile checks that the model key, given through mnote's
// secrets, is written nowhere under MNOTE_HOME but secrets.json.
func secretInNoFile(t *testing.T, h *harness) {
	t.Helper()
	if h.spec.keyVar == "" {
		return
	}
	filepath.WalkDir(h.mnoteHm, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(path) == "secrets.json" {
			return err
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), h.apiKey) {
			t.Errorf("%s holds the agent's key", path)
		}
		return nil
	})
}

// checkReasonixCache checks Reasonix's prompt-cache figures: its status
// notification reports, per turn, the hits and misses the model server
// returned; mnote prints them (--json usage line), keeps them in the
// transcript (mnote show restores them) and in the turn's index row.
func checkReasonixCache(h *harness, id string, r1, r2 *result) {
	t := h.t
	t.Helper()
	all := h.requests()
	for i, r := range []*result{r1, r2} {
		var hit, miss int64
		for _, q := range all[r.before:r.after] {
			if q.Usage != nil {
				hit += q.Usage.PromptCacheHitTokens
				miss += q.Usage.PromptCacheMissTokens
			}
		}
		var cache map[string]any
		for _, l := range r.ofType("usage") {
			if c, ok := l["cache"].(map[string]any); ok {
				cache = c
			}
		}
		turn, _ := cache["turn"].(map[string]any)
		if turn == nil || turn["hitTokens"] != float64(hit) || turn["missTokens"] != float64(miss) || hit == 0 {
			t.Errorf("turn %d: cache figures %v, want %d hit / %d miss tokens (the model server's sums)", i+1, cache, hit, miss)
		}
		if i == 0 {
			want := float64(hit) / float64(hit+miss)
			if r, _ := turn["hitRatio"].(float64); r < want-0.001 || r > want+0.001 {
				t.Errorf("turn 1: hit ratio %v, want %.4f", turn["hitRatio"], want)
			}
		}
	}
	th, _ := h.show(id)
	usage, _ := th["usage"].(map[string]any)
	c, _ := usage["cache"].(map[string]any)
	if c == nil || c["session"] == nil {
		t.Errorf("mnote show: no cache figures restored from the transcript: %v", usage)
	}
	// Each turn's figures, for the window's trend: the server's sums.
	cacheTurns, _ := c["turns"].([]any)
	if len(cacheTurns) != 2 {
		t.Errorf("mnote show: cache turns %v, want 2", c["turns"])
	}
	for i, r := range []*result{r1, r2} {
		if i >= len(cacheTurns) {
			break
		}
		var hit int64
		for _, q := range all[r.before:r.after] {
			if q.Usage != nil {
				hit += q.Usage.PromptCacheHitTokens
			}
		}
		if tc, _ := cacheTurns[i].(map[string]any); tc["turn"] != float64(i+1) || tc["hitTokens"] != float64(hit) {
			t.Errorf("mnote show: cache turn %d is %v, want %d hit tokens", i+1, tc, hit)
		}
	}
	ix, err := store.OpenIndex(t.Context(), filepath.Join(h.mnoteHm, "data", "mnote.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	turns, err := ix.Turns(t.Context(), id)
	if err != nil || len(turns) != 2 || turns[0].CacheHitTokens == 0 || turns[1].CacheHitTokens == 0 {
		t.Errorf("index turn rows: %+v, %v", turns, err)
	}
}
