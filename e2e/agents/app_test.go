package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/thread"
)

// appRun is mnote's services run in this process over the harness's
// MNOTE_HOME and workspace, called through the Bridge as the window
// calls them, with the agent's preset from config.json (so the agent
// runs under the fake model, in the network namespace when there is
// one) and the notes tools served by the built mnote.
type appRun struct {
	t   *testing.T
	h   *harness
	svc *app.Services
	rec *app.Recorder
}

// inApp runs fn against the services, then shuts them down (stopping the
// agents they started).
func (h *harness) inApp(fn func(a *appRun)) {
	h.t.Helper()
	h.inAppWith(nil, fn)
}

// inAppWith is inApp with the services' configuration changed by edit
// (the pool's limits).
func (h *harness) inAppWith(edit func(*app.Config), fn func(a *appRun)) {
	h.t.Helper()
	rec := &app.Recorder{}
	cfg := app.Config{
		Paths: h.mnotePaths(), Workspace: h.ws, Emitter: rec,
		Detector:    runtimes.NewDetector(runtimes.DetectOptions{Inherited: true}),
		InitTimeout: 90 * time.Second, CancelGrace: 5 * time.Second,
		MCPCommand: h.mnote,
	}
	if edit != nil {
		edit(&cfg)
	}
	svc, err := app.New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	defer svc.Shutdown()
	fn(&appRun{t: h.t, h: h, svc: svc, rec: rec})
}

func (a *appRun) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(a.t.Context(), 3*time.Minute)
}

// call runs a method as the window does; the error is the JSON message
// the page would get.
func (a *appRun) call(method string, args, out any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := a.svc.Bridge().Call(method, string(b))
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal([]byte(res), out); err != nil {
			return fmt.Errorf("%s: result %s: %w", method, res, err)
		}
	}
	return nil
}

func (a *appRun) mustCall(method string, args, out any) {
	a.t.Helper()
	if err := a.call(method, args, out); err != nil {
		a.t.Fatalf("%s: %v", method, err)
	}
}

// waitIndexed waits until the notes index finds rel for query.
func (a *appRun) waitIndexed(rel, query string) {
	a.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var hits []struct {
			Path string `json:"path"`
		}
		err := a.call("notes.search", map[string]any{"query": query}, &hits)
		for _, hit := range hits {
			if hit.Path == rel {
				return
			}
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the notes index never found %s for %q (last: %+v, %v)", rel, query, hits, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// create starts a session with the harness's agent in the workspace.
func (a *appRun) create() string {
	a.t.Helper()
	var sum app.SessionSummary
	a.mustCall("sessions.create", map[string]any{"agent": a.h.spec.name}, &sum)
	return sum.ID
}

// checkModel checks the agent's models as the window shows them (from
// its config option of category "model" when it has one, else its legacy
// "models") and sets the current one again through sessions.setModel,
// which mnote sends the way the agent offers: set_config_option or, for
// legacy models alone, set_model.
func (a *appRun) checkModel(id string) {
	a.t.Helper()
	var snap app.Snapshot
	a.mustCall("sessions.open", map[string]any{"id": id}, &snap)
	th := snap.Thread
	if len(th.Models) == 0 || !slices.ContainsFunc(th.Models, func(m thread.Model) bool { return m.ModelID == th.CurrentModelID }) {
		a.t.Fatalf("app: model %q of %+v", th.CurrentModelID, th.Models)
	}
	a.mustCall("sessions.setModel", map[string]any{"id": id, "modelId": th.CurrentModelID}, nil)
	a.mustCall("sessions.open", map[string]any{"id": id}, &snap)
	if snap.Thread.CurrentModelID != th.CurrentModelID {
		a.t.Fatalf("app: after setting model %q it is %q", th.CurrentModelID, snap.Thread.CurrentModelID)
	}
	a.t.Logf("app: %s offers %d models, %q current", a.h.spec.name, len(th.Models), th.CurrentModelID)
}

type threadEvent struct {
	SessionID string          `json:"sessionId"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// turn sends a prompt and answers every permission request of the turn
// with its allow-once option (as a person clicking Allow), until the
// turn ends with end_turn. It returns the titles of the requests.
func (a *appRun) turn(id, text string) []string {
	a.t.Helper()
	return a.turnWith(map[string]any{"id": id, "text": text})
}

// turnWith is turn with the whole sessions.prompt arguments (context,
// mentions).
func (a *appRun) turnWith(args map[string]any) []string {
	a.t.Helper()
	id, _ := args["id"].(string)
	ctx, cancel := a.ctx()
	defer cancel()
	from := a.rec.Len()
	var started app.TurnStarted
	a.mustCall("sessions.prompt", args, &started)
	var asked []string
	for {
		var te threadEvent
		i, _, err := a.rec.Wait(ctx, from, func(ev app.RecordedEvent) bool {
			te = threadEvent{}
			if ev.Name != app.EventThread || json.Unmarshal(ev.Data, &te) != nil || te.SessionID != id {
				return false
			}
			return te.Type == app.EvPermission || te.Type == app.EvTurn
		})
		if err != nil {
			a.t.Fatalf("turn %d: %v (permission requests so far %q)", started.Turn, err, asked)
		}
		from = i + 1
		if te.Type == app.EvPermission {
			var req app.PermissionRequest
			if err := json.Unmarshal(te.Payload, &req); err != nil {
				a.t.Fatal(err)
			}
			asked = append(asked, req.Kind+" "+req.ToolCallID+" "+req.Title)
			opt := ""
			for _, kind := range []string{"allow_once", "allow_always"} {
				for _, o := range req.Options {
					if opt == "" && o.Kind == kind {
						opt = o.OptionID
					}
				}
			}
			if opt == "" {
				a.t.Fatalf("permission request %+v offers no allow option", req)
			}
			a.mustCall("permissions.decide", map[string]any{"sessionId": id, "requestId": req.RequestID, "optionId": opt}, nil)
			continue
		}
		var tp app.TurnPayload
		if json.Unmarshal(te.Payload, &tp) != nil || tp.State != "ended" || tp.Turn != started.Turn {
			continue
		}
		if tp.StopReason != "end_turn" {
			a.t.Fatalf("turn %d ended %q: %s", tp.Turn, tp.StopReason, tp.Error)
		}
		return asked
	}
}

// answer is the agent's text in the session's thread.
func (a *appRun) answer(id string) string {
	a.t.Helper()
	var snap struct {
		Thread struct {
			Entries []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"entries"`
		} `json:"thread"`
	}
	a.mustCall("sessions.open", map[string]any{"id": id}, &snap)
	var b strings.Builder
	for _, e := range snap.Thread.Entries {
		if e.Kind == "assistant_message" {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}
