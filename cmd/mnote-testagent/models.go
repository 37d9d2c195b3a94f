package main

import (
	"encoding/json"
	"fmt"
)

// The two shapes in which agents offer models (scenario key "models", flag
// -models):
//
//   - "config": a select config option of category "model" (id "model",
//     set with session/set_config_option), as ACP has it now;
//   - "legacy": the "models" field of session/new, load and resume (set
//     with session/set_model), which the SDK dropped but agents still send.
//
// Both offer the same models, "fast" (current) and "deep"; a model id
// starting with "bad" is refused either way.
const (
	modelsConfig = "config"
	modelsLegacy = "legacy"
)

const (
	legacyModels = `{"currentModelId":"fast","availableModels":[` +
		`{"modelId":"fast","name":"Fast"},{"modelId":"deep","name":"Deep","description":"slow, thorough"}]}`
	modelOption = `{"id":"model","name":"Model","category":"model","type":"select","currentValue":"fast",` +
		`"options":[{"value":"fast","name":"Fast"},{"value":"deep","name":"Deep","description":"slow, thorough"}]}`
)

// addModels puts the models of sc.Models into the session/new result:
// the config option after any sessionNewResult already has, or the
// legacy field in place of its "models".
func (sc *scenario) addModels() error {
	switch sc.Models {
	case "":
	case modelsLegacy:
		sc.newResult["models"] = json.RawMessage(legacyModels)
	case modelsConfig:
		var opts []json.RawMessage
		if raw, ok := sc.newResult["configOptions"]; ok {
			if err := json.Unmarshal(raw, &opts); err != nil {
				return fmt.Errorf("sessionNewResult.configOptions: %w", err)
			}
		}
		sc.newResult["configOptions"] = marshal(append(opts, json.RawMessage(modelOption)))
	default:
		return fmt.Errorf("models: %q is neither %q nor %q", sc.Models, modelsConfig, modelsLegacy)
	}
	return nil
}

// attachModels is the legacy "models" of a session/load or session/resume
// result: the setup's, with the model session/set_model last chose.
func (s *session) attachModels(setup json.RawMessage) json.RawMessage {
	s.mu.Lock()
	cur := s.modelID
	s.mu.Unlock()
	if cur == "" {
		return setup
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(setup, &m) != nil || m == nil {
		return setup
	}
	m["currentModelId"] = marshal(cur)
	return marshal(m)
}
