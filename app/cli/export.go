package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"mnote/app/export"
	"mnote/internal/atomicfile"
	"mnote/thread"
)

func (e *env) runExport(args []string) int {
	fs := e.flags("export", "[--format md|html|jsonl] [--redact[=false]] [--include-thoughts] [--include-tool-io] [-o FILE] ID")
	format := fs.String("format", export.FormatMarkdown, "md, html (one self-contained page) or jsonl (the raw transcript)")
	outPath := fs.String("o", "", "write to `FILE` instead of stdout")
	redact := fs.Bool("redact", false, "hide secrets and local paths (default: on for md and html, off for jsonl)")
	var thoughts, toolIO bool
	fs.BoolVar(&thoughts, "include-thoughts", false, "include the agent's thoughts")
	fs.BoolVar(&thoughts, "thoughts", false, "same as --include-thoughts")
	fs.BoolVar(&toolIO, "include-tool-io", false, "include tool calls' raw input and output, their output and diffs")
	fs.BoolVar(&toolIO, "tool-io", false, "same as --include-tool-io")
	id, ok := e.oneID(fs, args)
	if !ok {
		return exitUsage
	}
	switch *format {
	case export.FormatMarkdown, export.FormatHTML, export.FormatJSONL:
	default:
		return e.usageErr("--format must be md, html or jsonl, not %q", *format)
	}
	redactSet := false
	fs.Visit(func(f *flag.Flag) { redactSet = redactSet || f.Name == "redact" })
	if !redactSet {
		*redact = *format != export.FormatJSONL
	}
	return e.withStore(func(st *sessionStore) int {
		full, err := st.resolveID(id)
		if err != nil {
			return e.fail(exitUsage, err)
		}
		o := export.Options{Redact: *redact, IncludeThoughts: thoughts, IncludeToolIO: toolIO}
		write := func(w io.Writer) error { return st.export(w, full, *format, o) }
		if *outPath == "" {
			err = write(e.stdout)
		} else {
			err = writeFileAtomic(*outPath, write)
		}
		if err != nil {
			return e.fail(exitAgent, fmt.Errorf("export %s: %w", full, err))
		}
		return exitOK
	})
}

// export writes one session in a format.
func (st *sessionStore) export(w io.Writer, id, format string, o export.Options) error {
	if format == export.FormatJSONL {
		var r *export.Redactor
		if o.Redact {
			ws := ""
			if row, err := st.ix.GetSession(context.Background(), id); err == nil {
				ws = row.Workspace
			} else if p, err := st.loadPrior(id); err == nil {
				ws = p.workspace
			}
			var err error
			if r, err = st.e.redactor(ws); err != nil {
				return err
			}
		}
		f, err := os.Open(st.paths.TranscriptPath(id))
		if err != nil {
			return err
		}
		defer f.Close()
		return export.JSONL(w, f, r)
	}
	p, err := st.loadPrior(id)
	if err != nil {
		return err
	}
	if o.Redact {
		if o.Redactor, err = st.e.redactor(p.workspace); err != nil {
			return err
		}
	}
	sess := export.Session{ID: id, Title: p.info.Title, Runtime: p.runtime, Workspace: p.workspace,
		CreatedMs: p.info.CreatedMs, UpdatedMs: p.info.UpdatedMs, Turns: p.turns}
	if format == export.FormatHTML {
		return export.HTML(w, sess, p.th.Snapshot(), o)
	}
	return export.Markdown(w, sess, p.th.Snapshot(), o)
}

// redactor is export.RedactorFor with this run's paths.
func (e *env) redactor(workspace string) (*export.Redactor, error) {
	return export.RedactorFor(e.paths, workspace)
}

// writeFileAtomic writes a file through a temporary file in the same
// folder, renamed over it once complete (mode 0600): a failed export
// leaves an existing file as it was.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, 0o600, write)
}

// markdownOptions choose what `mnote show` prints of a thread.
type markdownOptions struct{ thoughts, toolIO bool }

// writeThread prints a thread as Markdown (`mnote show`: not redacted,
// it stays on this machine).
func writeThread(w io.Writer, snap thread.Snapshot, o markdownOptions) {
	export.WriteThread(w, snap, export.Options{IncludeThoughts: o.thoughts, IncludeToolIO: o.toolIO})
}
