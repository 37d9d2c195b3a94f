package cli

import (
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"mnote/internal/l10n"
)

// The browser launcher (xdg-open, open, rundll32) is a child whose
// command line every local user reads in /proc, so it never gets the
// page's URL with its one-time code: it gets the path of a small HTML
// file (mode 0600, in a 0700 folder under mnote's state folder) that
// sends the browser on to that URL — Jupyter's jpserver-*-open.html. The
// file goes as soon as its code is used, when the code expires, and when
// serve stops.

// launchDirName is the folder of launch pages under the state folder.
const launchDirName = "serve"

// launchPage is one written launch page.
type launchPage struct {
	path string
	code string // the one-time code in it
	once sync.Once
}

// remove deletes the page (once; later calls do nothing).
func (p *launchPage) remove() {
	if p == nil {
		return
	}
	p.once.Do(func() { os.Remove(p.path) })
}

// writeLaunchPage writes a page that sends the browser to target (the
// page's URL with code) in dir, a private folder it makes if needed.
// Pages left in dir by a serve that was killed are removed first when
// their codes have expired (older than launchCodeTTL).
func writeLaunchPage(dir, target, code string, loc l10n.Locale) (*launchPage, error) {
	if err := privateFolder(dir); err != nil {
		return nil, err
	}
	removeStaleLaunchPages(dir, time.Now().Add(-launchCodeTTL))
	f, err := os.CreateTemp(dir, "open-*.html") // 0600, O_EXCL
	if err != nil {
		return nil, fmt.Errorf("write the page that opens the browser: %w", err)
	}
	p := &launchPage{path: f.Name(), code: code}
	u := html.EscapeString(target)
	body := `<!doctype html>
<html lang="` + string(loc) + `"><head><meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=` + u + `">
<title>` + html.EscapeString(loc.T("serve.open_title")) + `</title></head>
<body><p>` + html.EscapeString(loc.T("serve.open_body")) + ` <a href="` + u + `" rel="noreferrer">` + html.EscapeString(loc.T("serve.open_link")) + `</a></p></body></html>
`
	_, err = f.WriteString(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p.path, 0o600) // CreateTemp's mode already; said here for the reader
	}
	if err != nil {
		p.remove()
		return nil, fmt.Errorf("write the page that opens the browser: %w", err)
	}
	return p, nil
}

// privateFolder makes dir with mode 0700, or checks that the existing one
// is a folder (not a link to one) and tightens its mode.
func privateFolder(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make the folder %s: %w", dir, err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder: remove it and start again", dir)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	}
	return nil
}

// removeStaleLaunchPages removes launch pages written before cutoff.
func removeStaleLaunchPages(dir string, cutoff time.Time) {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		if !strings.HasPrefix(de.Name(), "open-") || !strings.HasSuffix(de.Name(), ".html") {
			continue
		}
		if fi, err := de.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, de.Name()))
		}
	}
}
