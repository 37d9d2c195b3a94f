package thread

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Models come from the legacy "models" field of a session result, or from
// the config option of category "model", which wins when both are sent.
func TestModelsBothShapes(t *testing.T) {
	legacy := `"models":{"currentModelId":"fast","availableModels":[{"modelId":"fast","name":"Fast"},{"modelId":"deep","name":"Deep","description":"slow"}]}`
	th := newTestThread()
	if c := th.ModelChoice(); c != (ModelChoice{}) {
		t.Fatalf("no models yet: %+v", c)
	}
	if _, err := th.ApplySessionResult(json.RawMessage(`{"sessionId":"s",` + legacy + `}`)); err != nil {
		t.Fatal(err)
	}
	s := th.Meta()
	if c := th.ModelChoice(); c != (ModelChoice{Legacy: true}) || s.CurrentModelID != "fast" || len(s.Models) != 2 || s.Models[1].Description != "slow" {
		t.Fatalf("legacy: %+v %q %+v", c, s.CurrentModelID, s.Models)
	}
	th.SetCurrentModel("deep")
	if s := th.Meta(); s.CurrentModelID != "deep" {
		t.Fatalf("after SetCurrentModel: %q", s.CurrentModelID)
	}

	// A config option of another category, or not a select, offers no model.
	apply(t, th, `{"sessionUpdate":"config_option_update","configOptions":[`+
		`{"id":"effort","category":"thought_level","type":"select","currentValue":"low","options":[{"value":"low","name":"Low"}]},`+
		`{"id":"m","category":"model","type":"boolean","currentValue":true}]}`)
	if c := th.ModelChoice(); c != (ModelChoice{Legacy: true}) || th.Meta().CurrentModelID != "deep" {
		t.Fatalf("no model option: %+v %q", c, th.Meta().CurrentModelID)
	}

	// The model config option (with groups) supersedes the legacy field.
	apply(t, th, `{"sessionUpdate":"config_option_update","configOptions":[`+
		`{"id":"effort","category":"thought_level","type":"select","currentValue":"low","options":[{"value":"low","name":"Low"}]},`+
		`{"id":"model","name":"Model","category":"model","type":"select","currentValue":"b","options":[`+
		`{"value":"a","name":"A","description":"first"},`+
		`{"group":"more","name":"More","options":[{"value":"b","name":"B"},{"value":"c","name":"C"}]}]}]}`)
	s = th.Meta()
	want := []Model{{ModelID: "a", Name: "A", Description: "first"}, {ModelID: "b", Name: "B"}, {ModelID: "c", Name: "C"}}
	if c := th.ModelChoice(); c != (ModelChoice{ConfigID: "model"}) || s.CurrentModelID != "b" || !reflect.DeepEqual(s.Models, want) {
		t.Fatalf("config option: %+v %q %+v", c, s.CurrentModelID, s.Models)
	}
	// Its currentValue is the current model.
	apply(t, th, `{"sessionUpdate":"config_option_update","configOptions":[`+
		`{"id":"model","category":"model","type":"select","currentValue":"a","options":[{"value":"a","name":"A"}]}]}`)
	if s := th.Snapshot(); s.CurrentModelID != "a" || len(s.Models) != 1 {
		t.Fatalf("after the update: %q %+v", s.CurrentModelID, s.Models)
	}
	// Without config options the legacy models come back.
	apply(t, th, `{"sessionUpdate":"config_option_update","configOptions":[]}`)
	if c := th.ModelChoice(); c != (ModelChoice{Legacy: true}) || th.Meta().CurrentModelID != "deep" {
		t.Fatalf("options gone: %+v %q", c, th.Meta().CurrentModelID)
	}
}

// Reading the models never lets the caller change the thread.
func TestModelsAreCopies(t *testing.T) {
	th := newTestThread()
	if _, err := th.ApplySessionResult(json.RawMessage(`{"models":{"currentModelId":"x","availableModels":[{"modelId":"x","name":"X"}]}}`)); err != nil {
		t.Fatal(err)
	}
	th.Meta().Models[0].Name = "changed"
	if th.Meta().Models[0].Name != "X" {
		t.Fatal("Meta shares the models")
	}
}
