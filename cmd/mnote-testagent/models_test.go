package main

import (
	"strings"
	"testing"
)

// -models legacy sends the "models" field and answers session/set_model;
// load/resume report the model it last chose.
func TestModelsLegacy(t *testing.T) {
	p := startAgent(t, []string{"MNOTE_TESTAGENT_STATE=" + t.TempDir()}, "-models", "legacy", "-scenario-json", `{"resume":true}`)
	p.initialize()
	resp, _ := p.call("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}}, nil)
	got := p.mustResult(resp)
	if !strings.Contains(got, `"models":{"currentModelId":"fast","availableModels":[{"modelId":"fast"`) || strings.Contains(got, "configOptions") {
		t.Fatalf("session/new %s", got)
	}
	id := p.newSession("/w")
	resp, _ = p.call("session/set_model", map[string]any{"sessionId": id, "modelId": "bad-one"}, nil)
	if resp.Error == nil {
		t.Fatalf("a bad model accepted: %s", resp.Raw)
	}
	resp, _ = p.call("session/set_model", map[string]any{"sessionId": id, "modelId": "deep"}, nil)
	p.mustResult(resp)
	resp, _ = p.call("session/resume", map[string]any{"sessionId": id, "cwd": "/w"}, nil)
	if got := p.mustResult(resp); !strings.Contains(got, `"currentModelId":"deep"`) {
		t.Fatalf("session/resume %s", got)
	}
}

// "models":"config" adds a select option of category model after the
// scenario's own options; set_config_option refuses a bad value.
func TestModelsConfigOption(t *testing.T) {
	p := startAgent(t, nil, "-scenario-json", `{"models":"config","sessionNewResult":{"configOptions":[{"id":"web","name":"Web","type":"boolean","currentValue":false}]}}`)
	p.initialize()
	resp, _ := p.call("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}}, nil)
	got := p.mustResult(resp)
	if !strings.Contains(got, `"configOptions":[{"id":"web"`) || !strings.Contains(got, `"category":"model","type":"select","currentValue":"fast"`) || strings.Contains(got, `"models"`) {
		t.Fatalf("session/new %s", got)
	}
	id := p.newSession("/w")
	resp, _ = p.call("session/set_config_option", map[string]any{"sessionId": id, "configId": "model", "value": "bad-one"}, nil)
	if resp.Error == nil {
		t.Fatalf("a bad value accepted: %s", resp.Raw)
	}
	resp, _ = p.call("session/set_config_option", map[string]any{"sessionId": id, "configId": "model", "value": "deep"}, nil)
	if got := p.mustResult(resp); !strings.Contains(got, `"currentValue":"deep"`) {
		t.Fatalf("set_config_option %s", got)
	}
}

func TestModelsUnknownShape(t *testing.T) {
	if _, err := loadScenario("", "", "both"); err == nil || !strings.Contains(err.Error(), `"both"`) {
		t.Fatalf("models both: %v", err)
	}
}
