package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
)

// What mnote asks an agent to free from the command line, where the
// agent offers it: its own copy of a session (mnote rm --agent-copy,
// ACP session/delete) and its login (mnote agents --logout, ACP logout).

// startFor starts an agent for one lifecycle call in dir.
func (e *env) startFor(ctx context.Context, rt runtimes.Runtime, dir string) (*acp.Agent, error) {
	res, err := e.detector().Resolve(rt)
	if err != nil {
		return nil, err
	}
	timeout := initTimeout(rt, 90*time.Second)
	spec := acp.ProcSpec{Path: res.Path, Args: res.Args, Env: res.Env, Dir: dir,
		LogFile: filepath.Join(e.paths.LogDir, runtimes.LogFileName(rt.Name))}
	a, err := acp.Start(ctx, spec, acp.Options{InitTimeout: timeout, NewSessionTimeout: timeout, ClientVersion: Version, Logger: e.log})
	if err != nil {
		return nil, fmt.Errorf("%s did not start: %w", rt.Title, err)
	}
	return a, nil
}

// deleteAgentCopy asks the agent of the session's last binding to delete
// its own copy of it, in the session's folder.
func (e *env) deleteAgentCopy(st *sessionStore, id string) error {
	p, err := st.loadPrior(id)
	if err != nil {
		return err
	}
	if p.runtime == "" || p.agentSessionID == "" {
		return fmt.Errorf("session %s never had an agent session: there is no agent's copy to delete", p.id)
	}
	rt, err := e.runtime(p.runtime, "")
	if err != nil && p.command != "" {
		rt, err = runtimes.FromCommandLine(p.command) // a session of --agent-cmd
	}
	if err != nil {
		return err
	}
	ctx := context.Background()
	a, err := e.startFor(ctx, rt, p.workspace)
	if err != nil {
		return err
	}
	defer a.Stop()
	if err := a.DeleteSession(ctx, p.agentSessionID); err != nil {
		if errors.Is(err, acp.ErrNotOffered) {
			return fmt.Errorf("%s does not delete its own sessions (no sessionCapabilities.delete); delete without --agent-copy", rt.Title)
		}
		return fmt.Errorf("%s did not delete its session %s: %w", rt.Title, p.agentSessionID, err)
	}
	fmt.Fprintf(e.stdout, "%s deleted its own copy (agent session %s).\n", rt.Title, termLine(p.agentSessionID))
	return nil
}

// logoutAgent starts an agent and runs ACP logout.
func (e *env) logoutAgent(name string) int {
	rt, err := e.runtime(name, "")
	if err != nil {
		return e.fail(exitUsage, err)
	}
	cwd, _ := absDir("")
	ctx := context.Background()
	a, err := e.startFor(ctx, rt, cwd)
	if err != nil {
		return e.fail(agentExit(err), err)
	}
	defer a.Stop()
	if err := a.Logout(ctx); err != nil {
		if errors.Is(err, acp.ErrNotOffered) {
			return e.fail(exitUsage, fmt.Errorf("%s has no way to sign out (no agentCapabilities.auth.logout)", rt.Title))
		}
		return e.fail(exitAgent, fmt.Errorf("%s did not sign out: %w", rt.Title, err))
	}
	fmt.Fprintf(e.stdout, "%s: signed out. Its next start asks you to sign in (mnote agents --check %s shows how).\n", rt.Title, rt.Name)
	return exitOK
}
