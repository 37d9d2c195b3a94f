package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"mnote/internal/atomicfile"
)

// ErrNoCache reports that the index was never fetched: there is nothing
// to show offline.
var ErrNoCache = errors.New("the ACP Registry was never fetched")

// maxIcon bounds one icon (the registry asks for small SVGs).
const maxIcon = 256 << 10

// Source fetches the index when asked and keeps it, with its date and
// the agents' icons, in a cache folder:
//
//	DIR/registry.json   the index as fetched
//	DIR/fetched.json    {"url": …, "fetchedAt": …}
//	DIR/icons/<id>.svg  the icons
//
// It opens no connection except in Refresh.
type Source struct {
	URL    string       // the index; DefaultURL when ""
	Dir    string       // the cache folder
	Client *http.Client // nil: a client with a 60 s timeout
	Now    func() time.Time

	mu sync.Mutex // one Refresh at a time
}

// Listing is the index with where and when it was fetched.
type Listing struct {
	Index
	URL       string    `json:"url"`
	FetchedAt time.Time `json:"fetchedAt"`
	// Offline says the listing is the cached copy because the fetch
	// failed (FetchError says why); Cached never sets it.
	Offline    bool   `json:"offline,omitempty"`
	FetchError string `json:"fetchError,omitempty"`
}

type fetchedMeta struct {
	URL       string    `json:"url"`
	FetchedAt time.Time `json:"fetchedAt"`
}

func (s *Source) url() string {
	if s.URL != "" {
		return s.URL
	}
	return DefaultURL
}

func (s *Source) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return &http.Client{Timeout: 60 * time.Second}
}

func (s *Source) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Cached reads the index kept by the last Refresh, without the network;
// ErrNoCache when there is none.
func (s *Source) Cached() (Listing, error) {
	data, err := os.ReadFile(filepath.Join(s.Dir, "registry.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Listing{}, ErrNoCache
	}
	if err != nil {
		return Listing{}, fmt.Errorf("read the cached registry: %w", err)
	}
	var meta fetchedMeta
	if b, err := os.ReadFile(filepath.Join(s.Dir, "fetched.json")); err == nil {
		_ = json.Unmarshal(b, &meta)
	}
	if meta.URL == "" {
		meta.URL = s.url()
	}
	idx, err := Parse(data, meta.URL)
	if err != nil {
		return Listing{}, fmt.Errorf("the cached registry: %w", err)
	}
	return Listing{Index: idx, URL: meta.URL, FetchedAt: meta.FetchedAt}, nil
}

// Refresh fetches the index and the icons it names, and keeps them. When
// the index cannot be fetched, the cached copy is returned with Offline
// set and the error; with no cached copy either, the error.
func (s *Source) Refresh(ctx context.Context) (Listing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.url()
	data, err := s.get(ctx, u, maxIndex, nil)
	var idx Index
	if err == nil {
		idx, err = Parse(data, u)
	}
	if err != nil {
		err = fmt.Errorf("fetch the ACP Registry (%s): %w", u, err)
		l, cerr := s.Cached()
		if cerr != nil {
			return Listing{}, err
		}
		l.Offline, l.FetchError = true, err.Error()
		return l, nil
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "icons"), 0o700); err != nil {
		return Listing{}, fmt.Errorf("the registry cache: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(s.Dir, "registry.json"), data, 0o600); err != nil {
		return Listing{}, fmt.Errorf("keep the registry: %w", err)
	}
	meta := fetchedMeta{URL: u, FetchedAt: s.now().UTC().Truncate(time.Second)}
	b, _ := json.Marshal(meta)
	if err := atomicfile.WriteFile(filepath.Join(s.Dir, "fetched.json"), b, 0o600); err != nil {
		return Listing{}, fmt.Errorf("keep the registry: %w", err)
	}
	s.fetchIcons(ctx, idx)
	return Listing{Index: idx, URL: u, FetchedAt: meta.FetchedAt}, nil
}

// fetchIcons fetches the icons, four at a time; one that fails or is not
// an SVG is left out (the agent shows without it).
func (s *Source) fetchIcons(ctx context.Context, idx Index) {
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, a := range idx.Agents {
		if a.Icon == "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			b, err := s.get(ctx, a.Icon, maxIcon, nil)
			if err != nil || !LooksLikeSVG(b) {
				return
			}
			_ = atomicfile.WriteFile(s.iconPath(a.ID), b, 0o600)
		}()
	}
	wg.Wait()
}

func (s *Source) iconPath(id string) string {
	return filepath.Join(s.Dir, "icons", id+".svg")
}

// Icon is the cached SVG icon of the agent id; ErrNotExist when there is
// none.
func (s *Source) Icon(id string) ([]byte, error) {
	if !idRE.MatchString(id) {
		return nil, fs.ErrNotExist
	}
	b, err := os.ReadFile(s.iconPath(id))
	if err != nil {
		return nil, fmt.Errorf("icon of %s: %w", id, err)
	}
	if len(b) > maxIcon || !LooksLikeSVG(b) {
		return nil, fmt.Errorf("icon of %s: %w", id, fs.ErrNotExist)
	}
	return b, nil
}

// LooksLikeSVG reports whether b starts like an SVG document.
func LooksLikeSVG(b []byte) bool {
	b = bytes.TrimLeft(b, "\ufeff \t\r\n")
	for bytes.HasPrefix(b, []byte("<?xml")) || bytes.HasPrefix(b, []byte("<!--")) {
		end := []byte("?>")
		if b[1] == '!' {
			end = []byte("-->")
		}
		i := bytes.Index(b, end)
		if i < 0 {
			return false
		}
		b = bytes.TrimLeft(b[i+len(end):], " \t\r\n")
	}
	return bytes.HasPrefix(b, []byte("<svg")) || bytes.HasPrefix(b, []byte("<!DOCTYPE svg"))
}

// get reads a URL's body, at most limit bytes; progress (when not nil)
// is told the bytes read so far and the length announced (-1 unknown).
func (s *Source) get(ctx context.Context, u string, limit int64, progress func(done, total int64)) ([]byte, error) {
	var buf bytes.Buffer
	if err := download(ctx, s.client(), u, &buf, limit, progress); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// idleTimeout is how long a download may go without a byte before it is
// given up (a stalled server would otherwise hold an install for good).
const idleTimeout = 60 * time.Second

// ErrStalled reports a download that received nothing for too long.
var ErrStalled = errors.New("the download stalled")

// download copies a URL's body to w, at most limit bytes. A body shorter
// than its announced length is an error (a truncated download), and so is
// one that sends nothing for idle (idleTimeout when 0).
func download(ctx context.Context, c *http.Client, u string, w io.Writer, limit int64, progress func(done, total int64)) error {
	return downloadIdle(ctx, c, u, w, limit, 0, progress)
}

func downloadIdle(ctx context.Context, c *http.Client, u string, w io.Writer, limit int64, idle time.Duration, progress func(done, total int64)) error {
	if idle <= 0 {
		idle = idleTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(idle, func() { cancel(fmt.Errorf("%w: nothing received for %s", ErrStalled, idle)) })
	defer watchdog.Stop()
	err := fetchTo(ctx, c, u, w, limit, func(done, total int64) {
		watchdog.Reset(idle)
		if progress != nil {
			progress(done, total)
		}
	})
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, ErrStalled) {
		return fmt.Errorf("%s: %w", u, cause)
	}
	return err
}

func fetchTo(ctx context.Context, c *http.Client, u string, w io.Writer, limit int64, progress func(done, total int64)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "mnote")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u, resp.Status)
	}
	if resp.ContentLength > limit {
		return fmt.Errorf("%s is %d bytes, more than the %d allowed", u, resp.ContentLength, limit)
	}
	var n int64
	buf := make([]byte, 64<<10)
	last := time.Time{}
	for {
		m, rerr := resp.Body.Read(buf)
		if m > 0 {
			if n+int64(m) > limit {
				return fmt.Errorf("%s is more than the %d bytes allowed", u, limit)
			}
			if _, err := w.Write(buf[:m]); err != nil {
				return err
			}
			n += int64(m)
			if time.Since(last) > 100*time.Millisecond {
				progress(n, resp.ContentLength)
				last = time.Now()
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return fmt.Errorf("%s: the download broke off after %d bytes: %w", u, n, rerr)
		}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return fmt.Errorf("%s: the download broke off after %d of %d bytes", u, n, resp.ContentLength)
	}
	progress(n, resp.ContentLength)
	return nil
}
