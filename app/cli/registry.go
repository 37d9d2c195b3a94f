package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"mnote/acp/registry"
	"mnote/app"
	"mnote/internal/l10n"
)

// mnote agents --registry [--offline] [--json]: the ACP Registry's
// agents with what is installed; mnote agents --install ID: install one
// (or update it) and make it a runtime.

// registryListing fetches the index (the cached copy when that fails),
// or with offline reads only the cache.
func (e *env) registryListing(ctx context.Context, loc l10n.Locale, offline bool) (registry.Listing, error) {
	src := app.RegistrySource(e.paths)
	if offline {
		l, err := src.Cached()
		if errors.Is(err, registry.ErrNoCache) {
			return l, errors.New(loc.T("cli.registry_no_cache"))
		}
		return l, err
	}
	l, err := src.Refresh(ctx)
	if err != nil {
		return l, fmt.Errorf("%w\n%s", err, loc.T("cli.registry_fetch_failed"))
	}
	if l.Offline {
		e.say(l.FetchError)
	}
	return l, nil
}

// asOf says where the listing came from and when.
func asOf(loc l10n.Locale, l registry.Listing) string {
	if l.Offline {
		return loc.T("cli.registry_offline", loc.DateUTC(l.FetchedAt))
	}
	return loc.T("cli.registry_fetched", loc.DateUTC(l.FetchedAt))
}

func (e *env) listRegistry(offline, asJSON bool) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	loc := l10n.FromEnv()
	l, err := e.registryListing(ctx, loc, offline)
	if err != nil {
		return e.fail(exitAgent, err)
	}
	cfg, err := e.config()
	if err != nil {
		return e.fail(exitUsage, err)
	}
	entries := registry.Entries(l.Index, cfg.Runtimes(), app.RegistryInstaller(e.paths, e.detector()))
	if asJSON {
		return e.printJSON(map[string]any{"url": l.URL, "fetchedAt": l.FetchedAt, "offline": l.Offline || offline,
			"fetchError": l.FetchError, "agents": entries, "skipped": l.Skipped})
	}
	fmt.Fprintln(e.stdout, asOf(loc, l))
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, loc.T("cli.registry_heading"))
	for _, en := range entries {
		var status string
		switch {
		case en.Update:
			status = loc.T("cli.registry_update", en.Installed, en.Version, en.Runtime)
		case en.Runtime != "":
			status = loc.T("cli.registry_installed", en.Runtime)
		case en.NeedTool != "":
			status = loc.T("cli.registry_needs", en.NeedTool)
		case en.Kind == "":
			status = loc.T("cli.registry_unavailable")
		default:
			status = loc.T("cli.registry_not_installed", en.Kind)
		}
		license := en.License
		if license == "" {
			license = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", en.ID, termLine(en.Name), termLine(en.Version), termLine(license), status,
			termLine(clipText(en.Description, 60)))
	}
	tw.Flush()
	for _, s := range l.Skipped {
		e.warn("%s", loc.T("cli.registry_skipped", s.ID, s.Reason))
	}
	fmt.Fprintln(e.stdout, loc.T("cli.registry_how_install"))
	return exitOK
}

// clipText cuts s to n runes.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func (e *env) installFromRegistry(id string, offline, asJSON bool) int {
	// Ctrl+C stops the install; nothing half-written stays.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	loc := l10n.FromEnv()
	l, err := e.registryListing(ctx, loc, offline)
	if err != nil {
		return e.fail(exitAgent, err)
	}
	a, ok := l.Find(strings.TrimSpace(id))
	if !ok {
		return e.fail(exitUsage, errors.New(loc.T("cli.registry_unknown", id)))
	}
	in := app.RegistryInstaller(e.paths, e.detector())
	p := &progressPrinter{e: e, loc: loc}
	in.Progress = p.show
	e.say(loc.T("cli.registry_installing", a.Name, a.Version))
	name, res, err := registry.InstallAgent(ctx, in, e.paths.ConfigFile, a)
	if err != nil {
		var need *registry.ErrNeedTool
		if errors.As(err, &need) {
			return e.fail(exitAgent, errors.New(loc.T("cli.registry_need_tool", a.Name, need.What, id)))
		}
		return e.fail(exitAgent, fmt.Errorf("%w\n%s", err, loc.T("cli.registry_install_failed", id)))
	}
	if asJSON {
		return e.printJSON(map[string]any{"runtime": name, "installed": res})
	}
	fmt.Fprintln(e.stdout, loc.T("cli.registry_done", a.Name, res.Version, name, name))
	return exitOK
}

// progressPrinter tells an install's steps on stderr: the download in
// steps of 10 %, the tools' lines as they come.
type progressPrinter struct {
	e    *env
	loc  l10n.Locale
	mu   sync.Mutex
	last int64 // the last tenth (or MiB, for an unknown length) told
}

func (p *progressPrinter) show(pr registry.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch pr.Phase {
	case "download":
		if pr.Done == 0 {
			p.last = -1
			return
		}
		step := pr.Done >> 20
		if pr.Total > 0 {
			step = pr.Done * 10 / pr.Total
		}
		if step == p.last {
			return
		}
		p.last = step
		if pr.Total > 0 {
			p.e.say(p.loc.T("cli.registry_download", mib(pr.Done), mib(pr.Total), pr.Done*100/pr.Total))
		} else {
			p.e.say(p.loc.T("cli.registry_download_unknown", mib(pr.Done)))
		}
	case "unpack":
		p.e.say(p.loc.T("cli.registry_unpack"))
	default:
		p.e.say(pr.Phase + ": " + termLine(pr.Line))
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
