package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/internal/l10n"
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
		return errors.New(l10n.FromEnv().T("cli.agent_copy_none", p.id))
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
			return errors.New(l10n.FromEnv().T("cli.agent_copy_unsupported", rt.Title))
		}
		return fmt.Errorf("%s did not delete its session %s: %w", rt.Title, p.agentSessionID, err)
	}
	fmt.Fprintln(e.stdout, l10n.FromEnv().T("cli.agent_copy_deleted", rt.Title, termLine(p.agentSessionID)))
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
			return e.fail(exitUsage, errors.New(l10n.FromEnv().T("cli.logout_unsupported", rt.Title)))
		}
		return e.fail(exitAgent, fmt.Errorf("%s did not sign out: %w", rt.Title, err))
	}
	fmt.Fprintln(e.stdout, l10n.FromEnv().T("cli.signed_out", rt.Title, rt.Name))
	return exitOK
}
