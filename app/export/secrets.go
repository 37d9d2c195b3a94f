package export

import (
	"fmt"

	"mnote/acp/runtimes"
	"mnote/cloudsync"
	"mnote/store"
)

// RedactorFor is the redactor of an export or a share: besides the secret
// shapes it knows, it hides the workspace and home folder paths, the values
// of the environment variables configured for agents (config.json and the
// agents' keys) and the sync token.
func RedactorFor(p store.Paths, workspace string) (*Redactor, error) {
	var secrets []string
	cfg, err := runtimes.LoadConfig(p.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("%w (redaction needs the agents' configured keys; fix config.json, or export without redaction)", err)
	}
	for _, rt := range cfg.Runtimes() {
		for _, v := range rt.Env {
			secrets = append(secrets, v)
		}
	}
	keys, err := runtimes.SecretsFor(p.ConfigFile)
	if err != nil {
		return nil, err
	}
	for _, vars := range keys {
		for _, v := range vars {
			secrets = append(secrets, v)
		}
	}
	sync, err := cloudsync.Secrets(p)
	if err != nil {
		return nil, err
	}
	return NewRedactor(DefaultRedactConfig(workspace, append(secrets, sync...)...)), nil
}

// TitleRedactor is the redactor of the session titles that sync sends
// (cloudsync.Options.TitleFilter): RedactorFor with no workspace (cloudsync
// takes the session's out itself), e-mail addresses hidden too, since a
// synced title leaves the machine as a share does.
func TitleRedactor(p store.Paths) (*Redactor, error) {
	r, err := RedactorFor(p, "")
	if err != nil {
		return nil, err
	}
	return r.WithEmails(true), nil
}
