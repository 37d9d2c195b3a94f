package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mnote/acp"
	"mnote/internal/l10n"
)

// Approval policies of `mnote prompt --approve`.
const (
	ApproveAsk   = "ask"   // ask on the terminal; without one, reject
	ApproveAll   = "all"   // allow everything once
	ApproveReads = "reads" // allow reads and searches, reject the rest
	ApproveNone  = "none"  // reject everything
)

// policyBroker answers permission requests by policy, or by asking on a
// terminal.
type policyBroker struct {
	policy string
	tty    *os.File // nil when there is no terminal to ask on
	errOut io.Writer
	mu     sync.Mutex // one question at a time
}

func (b *policyBroker) RequestPermission(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
	switch b.policy {
	case ApproveAll:
		return auto(pick(req, "allow_once", "allow_always")), nil
	case ApproveReads:
		switch req.Kind {
		case "read", "search", "think", "fetch":
			return auto(pick(req, "allow_once", "allow_always")), nil
		}
		return auto(pick(req, "reject_once", "reject_always")), nil
	case ApproveNone:
		return auto(pick(req, "reject_once", "reject_always")), nil
	}
	if b.tty == nil {
		fmt.Fprintf(b.errOut, "mnote: the agent asked to %q; rejected (no terminal to ask on; use --approve all|reads|none)\n", termLine(req.Title))
		return pick(req, "reject_once", "reject_always"), nil
	}
	return b.ask(ctx, req)
}

// auto marks a decision made by --approve's policy.
func auto(d acp.PermissionDecision) acp.PermissionDecision {
	d.By = "auto"
	return d
}

// pick chooses the first option of the first kind that the agent offers.
// With none of them, the decision is empty (answered cancelled).
func pick(req *acp.PermissionRequest, kinds ...string) acp.PermissionDecision {
	for _, k := range kinds {
		for _, o := range req.Options {
			if o.Kind == k {
				return acp.PermissionDecision{OptionID: o.OptionID}
			}
		}
	}
	return acp.PermissionDecision{}
}

func (b *policyBroker) ask(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	loc := l10n.FromEnv()
	var q strings.Builder
	q.WriteString("\n")
	q.WriteString(loc.T("cli.perm_asks", termLine(permTitle(loc, req))))
	if req.Kind != "" {
		fmt.Fprintf(&q, " [%s]", termLine(req.Kind))
	}
	q.WriteString("\n")
	for i, o := range req.Options {
		fmt.Fprintf(&q, "  %d) %s\n", i+1, optionText(loc, o))
	}
	q.WriteString(loc.T("cli.perm_choose"))
	answer := make(chan string, 1)
	go func() {
		r := bufio.NewReader(b.tty)
		for {
			fmt.Fprint(b.tty, q.String())
			line, err := r.ReadString('\n')
			if err != nil {
				answer <- ""
				return
			}
			n, err := strconv.Atoi(strings.TrimSpace(line))
			if err == nil && n >= 1 && n <= len(req.Options) {
				answer <- req.Options[n-1].OptionID
				return
			}
			fmt.Fprintln(b.tty, loc.T("cli.perm_again"))
		}
	}()
	select {
	case id := <-answer:
		return acp.PermissionDecision{OptionID: id}, nil
	case <-ctx.Done():
		fmt.Fprintln(b.tty, "\n"+loc.T("cli.cancelled"))
		return acp.PermissionDecision{}, ctx.Err()
	}
}

// optionKinds are the ACP permission option kinds, each with the names an
// agent may give it that say just what the kind does (compared ignoring
// case), besides the catalogue's own wording.
var optionKinds = map[string][]string{
	"allow_once":    {"allow", "allow once", "yes"},
	"allow_always":  {"always allow", "allow always"},
	"reject_once":   {"reject", "reject once", "deny", "no"},
	"reject_always": {"always reject", "reject always", "always deny"},
}

// optionText words a permission option by its kind, never by the agent's
// name for it: an option named "Allow once" of kind allow_always reads
// "Always allow". The agent's name follows when it says something else;
// an option of a kind ACP does not know reads as such, with its name and
// kind (and is never taken for an always-choice).
func optionText(loc l10n.Locale, o acp.PermissionOption) string {
	aliases, known := optionKinds[o.Kind]
	if !known {
		name := o.Name
		if strings.TrimSpace(name) == "" {
			name = o.OptionID
		}
		return loc.T("cli.perm_other", termLine(name), termLine(o.Kind))
	}
	label := loc.T("cli.perm_" + o.Kind)
	name := strings.TrimSpace(o.Name)
	if name == "" || strings.EqualFold(name, label) || slices.ContainsFunc(aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
		return label
	}
	return label + loc.T("cli.perm_named", termLine(name))
}

// permTitle is what a permission request is about: its tool call's title,
// else (mnote's own edit_note, which leaves the wording to the reader's
// language) the kind and the first file, in loc.
func permTitle(loc l10n.Locale, req *acp.PermissionRequest) string {
	if strings.TrimSpace(req.Title) != "" {
		return req.Title
	}
	var tc struct {
		Locations []struct {
			Path string `json:"path"`
		} `json:"locations"`
	}
	_ = json.Unmarshal(req.ToolCall, &tc)
	what := loc.ToolKind(req.Kind)
	if len(tc.Locations) > 0 && tc.Locations[0].Path != "" {
		return what + " " + tc.Locations[0].Path
	}
	return what
}
