package runtimes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// ErrNoInstaller reports an agent mnote cannot install itself: it has no
// pinned npm package (its InstallHint is the command to run), or npm is
// not on the detected PATH.
var ErrNoInstaller = errors.New("mnote cannot install this agent itself")

// InstallCommand is the command that installs rt's pinned npm package into
// mnote's own folder for it (InstallDir): `npm install --prefix DIR
// PACKAGE@VERSION`, run in DIR (created 0700) with HelperEnv, in its own
// process group, killed as a whole when ctx ends. Output goes nowhere
// until the caller sets Stdout and Stderr.
func (d *Detector) InstallCommand(ctx context.Context, rt Runtime) (*exec.Cmd, error) {
	if rt.NPMPackage == "" {
		return nil, fmt.Errorf("%s: %w: %s", rt.Title, ErrNoInstaller, rt.InstallHint)
	}
	dir := d.InstallDir(rt.Name)
	if dir == "" {
		return nil, fmt.Errorf("%s: %w: no folder for mnote's agents", rt.Title, ErrNoInstaller)
	}
	npm := d.LookPath("npm")
	if npm == "" {
		return nil, fmt.Errorf("%s: %w: npm was not found (install Node.js first)", rt.Title, ErrNoInstaller)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("install %s: %w", rt.Title, err)
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund",
		"--loglevel=http", rt.NPMPackage)
	cmd.Dir = dir
	cmd.Env = d.HelperEnv()
	cmd.Stdin = nil
	SetProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	return cmd, nil
}
