package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"mnote/acp"
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
		fmt.Fprintf(b.errOut, "mnote: the agent asked to %q; rejected (no terminal to ask on; use --approve all|reads|none)\n", termSafe(req.Title))
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
	var q strings.Builder
	fmt.Fprintf(&q, "\nThe agent asks permission: %s", termSafe(req.Title))
	if req.Kind != "" {
		fmt.Fprintf(&q, " [%s]", termSafe(req.Kind))
	}
	q.WriteString("\n")
	for i, o := range req.Options {
		fmt.Fprintf(&q, "  %d) %s (%s)\n", i+1, termSafe(o.Name), termSafe(o.Kind))
	}
	q.WriteString("Choose a number (Ctrl+C cancels the turn): ")
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
			fmt.Fprintln(b.tty, "Please type one of the numbers.")
		}
	}()
	select {
	case id := <-answer:
		return acp.PermissionDecision{OptionID: id}, nil
	case <-ctx.Done():
		fmt.Fprintln(b.tty, "\n(cancelled)")
		return acp.PermissionDecision{}, ctx.Err()
	}
}
