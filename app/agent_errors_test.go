package app_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/runtimes"
	"mnote/app"
)

// waitStatus waits for the agent:status event of name from from on.
func waitStatus(t *testing.T, h *harness, from int, name string) (int, app.AgentStatusEvent) {
	t.Helper()
	var st app.AgentStatusEvent
	i, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		var e app.AgentStatusEvent
		if ev.Name != app.EventAgentStatus || json.Unmarshal(ev.Data, &e) != nil || e.Name != name {
			return false
		}
		st = e
		return true
	})
	if err != nil {
		t.Fatalf("no agent:status of %s: %v", name, err)
	}
	return i, st
}

// An agent that exits at start: agents.check fails agent_exited with its
// exit code, and agent:start, agent:status and agents.list carry the same
// reason and params (with the agent's title) beside the English error, so
// that the page words them in its language. After a start that works the
// agent is ready again, without an error.
func TestAgentErrorsCarryReasonAndParams(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// The test agent refuses an unknown flag: it exits with code 2 before
	// it answers initialize.
	h.saveAgent("dies", "--no-such-flag")
	from := h.rec.Len()
	e := h.call("agents.check", map[string]any{"name": "dies"}, nil)
	if codeOf(e) != app.CodeAgentFailed || e.Reason != app.ReasonAgentExited || e.Params["code"] != "2" {
		t.Fatalf("agents.check: %+v", e)
	}
	want := map[string]string{"agent": "dies", "code": "2"}

	_, se := waitStart(t, h, from, "dies", app.StartFailed)
	if se.Error == "" || se.ErrorReason != app.ReasonAgentExited || !maps.Equal(se.ErrorParams, want) {
		t.Fatalf("agent:start: %+v", se)
	}
	_, st := waitStatus(t, h, from, "dies")
	if st.Status != app.AgentFailed || st.Error == "" || st.ErrorReason != app.ReasonAgentExited || !maps.Equal(st.ErrorParams, want) {
		t.Fatalf("agent:status: %+v", st)
	}
	a := agentNamed(t, h, "dies")
	if a.Status != app.AgentFailed || a.Error != st.Error || a.ErrorReason != app.ReasonAgentExited || !maps.Equal(a.ErrorParams, want) {
		t.Fatalf("agents.list: %+v", a)
	}
	// The JSON the page reads.
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil || raw["errorReason"] != "agent_exited" || raw["errorParams"] == nil {
		t.Fatalf("agent:status JSON %s", b)
	}

	// Fixed: the next start works, and the failure is gone.
	from = h.rec.Len()
	h.saveAgent("dies")
	if _, st := waitStatus(t, h, from, "dies"); st.Status != app.AgentReady || st.Error != "" || st.ErrorReason != "" || st.ErrorParams != nil {
		t.Fatalf("agent:status after the fix: %+v", st)
	}
	h.mustCall("agents.check", map[string]any{"name": "dies"}, nil)
	if a := agentNamed(t, h, "dies"); a.Status != app.AgentReady || a.Error != "" || a.ErrorReason != "" || a.ErrorParams != nil {
		t.Fatalf("agents.list after the fix: %+v", a)
	}
}

// fakeFailingNPM is an npm that prints a line and exits with code, or (0)
// exits without installing anything.
func fakeFailingNPM(t *testing.T, code string) []string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho 'npm error code E404'\nexit " + code + "\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C"}
}

// A failed install's agent:install says why with a reason: npm failed
// (with its exit code), or npm succeeded but the agent is not found.
func TestInstallErrorReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code, reason string
		params       map[string]string
	}{
		{"3", app.ReasonInstallNpmFailed, map[string]string{"agent": "Qwen Code", "code": "3"}},
		{"0", app.ReasonInstallNotFound, map[string]string{"agent": "Qwen Code"}},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			h := installHarness(t, fakeFailingNPM(t, tc.code))
			h.mustCall("agents.install", map[string]any{"name": "qwen"}, nil)
			end, _ := waitInstall(t, h, "qwen")
			if end.Phase != app.InstallFailed || end.Error == "" || end.ErrorReason != tc.reason || !maps.Equal(end.ErrorParams, tc.params) {
				t.Fatalf("install ended %+v", end)
			}
		})
	}
}

// An agent that asks to sign in while mnote held back variables of its
// environment that look like keys: the error (sessions.create), the
// agent's status and a notice mid-turn name them and say how to give one,
// with the params the page words them with. A preset gets its own
// provider's key, which is not named: Claude Code (the test agent in its
// place) gets ANTHROPIC_API_KEY, and only the others are held back.
func TestNeedsAuthNamesHeldBackKeys(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "ANTHROPIC_API_KEY=sk-ant-given", "OPENAI_API_KEY=sk-held", "GITHUB_TOKEN=gh-held", "MNOTE_SYNC_TOKEN=never-named"}
	h := newHarnessWith(t, func(cfg *app.Config) {
		cfg.Detector = runtimes.NewDetector(runtimes.DetectOptions{Inherited: true, Env: env})
	})
	cfg := `{"agent_servers": {"claude-code": {"command": "` + acptest.TestAgent(t) + `", "args": ["--scenario-json", "{\"authRequired\": true}"]}}}`
	if err := os.WriteFile(h.paths.ConfigFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h.saveAgent("my-agent", acptest.Scenario(`{"authRequired": true}`)...)

	for _, tc := range []struct{ agent, title, held string }{
		{"claude-code", "Claude Code", "GITHUB_TOKEN, OPENAI_API_KEY"},
		{"my-agent", "my-agent", "ANTHROPIC_API_KEY, GITHUB_TOKEN, OPENAI_API_KEY"},
	} {
		from := h.rec.Len()
		e := h.call("sessions.create", map[string]any{"agent": tc.agent}, nil)
		if codeOf(e) != app.CodeNeedsAuth || e.Reason != app.ReasonAgentNeedsAuth {
			t.Fatalf("%s: sessions.create: %+v", tc.agent, e)
		}
		want := map[string]string{"agent": tc.title, "heldBack": tc.held, "agentName": tc.agent}
		if !maps.Equal(e.Params, want) {
			t.Errorf("%s: params %v, want %v", tc.agent, e.Params, want)
		}
		if !strings.Contains(e.Message, tc.held) || !strings.Contains(e.Message, "mnote agents --set-key "+tc.agent+" NAME") ||
			strings.Contains(e.Message, "MNOTE_SYNC_TOKEN") {
			t.Errorf("%s: message %q", tc.agent, e.Message)
		}
		_, st := waitStatus(t, h, from, tc.agent)
		if st.Status != app.AgentNeedsLogin || st.ErrorParams["heldBack"] != tc.held || !strings.Contains(st.Error, "--set-key") {
			t.Errorf("%s: agent:status %+v", tc.agent, st)
		}
	}

	// Mid-turn: the agent says its key was refused.
	h.saveAgent("keyed")
	sum := h.create("keyed")
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(`{"error":{"code":-32000,"message":"Authentication required"}}`))
	var n app.NoticePayload
	h.waitEvent(sum.ID, from, app.EvNotice, func(p json.RawMessage) bool { return json.Unmarshal(p, &n) == nil && n.Level == "error" })
	if n.Reason != app.ReasonAgentNeedsAuth || n.Action != "login" || n.Params["heldBack"] != "ANTHROPIC_API_KEY, GITHUB_TOKEN, OPENAI_API_KEY" ||
		n.Params["agentName"] != "keyed" || !strings.Contains(n.Message, "mnote agents --set-key keyed NAME") {
		t.Fatalf("notice: %+v", n)
	}
}
