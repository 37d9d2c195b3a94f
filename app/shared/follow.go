package shared

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"mnote/app/chat"
	"mnote/collab/client"
	"mnote/collab/projection"
	"mnote/controlplane/api"
	"mnote/store"
)

// follow is the live stream of one session open in the window.
type follow struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startFollow follows the session's live stream until StopFollow (once).
func (s *Service) startFollow(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.follows[id]; ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &follow{cancel: cancel, done: make(chan struct{})}
	s.follows[id] = f
	go s.run(ctx, id, f)
}

// StopFollow stops following the session and waits for it.
func (s *Service) StopFollow(id string) {
	s.mu.Lock()
	f := s.follows[id]
	delete(s.follows, id)
	s.mu.Unlock()
	if f != nil {
		f.cancel()
		<-f.done
	}
}

// StopAll stops every live stream (shutdown).
func (s *Service) StopAll() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.follows))
	for id := range s.follows {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.StopFollow(id)
	}
}

func (s *Service) run(ctx context.Context, id string, f *follow) {
	defer close(f.done)
	defer func() {
		s.mu.Lock()
		if s.follows[id] == f {
			delete(s.follows, id)
		}
		s.mu.Unlock()
	}()
	backoff := 500 * time.Millisecond
	for ctx.Err() == nil {
		c, err := s.client(ctx)
		if err == nil {
			var head int64
			if head, err = s.head(id); err == nil {
				err = c.Follow(ctx, id, head, client.LiveEvents{
					Entry: func(o client.Opened) error { return s.record(id, []client.Opened{o}) },
					Lease: func(l api.LeaseState) {
						q := l.Queue
						if q == nil {
							q = []api.QueuedRun{}
						}
						s.emit(Event{SessionID: id, Type: EvLease, Lease: l.Lease, Queue: q})
					},
					Presence: func(p api.Presence) {
						s.emit(Event{SessionID: id, Type: EvPresence, Viewers: p.Viewers, Running: p.Running})
					},
					Reconnect: func(error) { s.emit(Event{SessionID: id, Type: EvReconnect}) },
				})
			}
		}
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, client.ErrRevoked) {
			s.emit(Event{SessionID: id, Type: EvRevoked})
			return
		}
		s.log.Debug("shared session: the live stream stopped", "session", id, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		if backoff < 10*time.Second {
			backoff *= 2
		}
	}
}

// head is the seq of the last shared entry the transcript holds.
func (s *Service) head(id string) (int64, error) {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	return s.headLocked(id)
}

func (s *Service) headLocked(id string) (int64, error) {
	if h, ok := s.heads[id]; ok {
		return h, nil
	}
	h, err := store.SharedHead(s.cfg.Transcript(id))
	if err != nil {
		return 0, err
	}
	s.heads[id] = h
	return h, nil
}

// record appends the entries after the transcript's head (none twice)
// and tells the page of each one recorded.
func (s *Service) record(id string, os []client.Opened) error {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	head, err := s.headLocked(id)
	if err != nil {
		return err
	}
	var fresh []client.Opened
	for _, o := range os {
		if o.Seq > head {
			fresh = append(fresh, o)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	err = s.cfg.Record(id, func(w *store.Writer) error {
		h, err := store.AppendSharedEntries(w, head, client.Records(fresh))
		head = h
		if err != nil {
			return err
		}
		return w.Flush() // read back at once (the tab's state, the next turn's context)
	})
	s.heads[id] = head
	for _, o := range fresh {
		if o.Seq <= head && o.Unreadable == client.UnreadableNoKey {
			s.unopened[id] = true
		}
	}
	for i := range fresh {
		if fresh[i].Seq <= head {
			s.emit(Event{SessionID: id, Type: EvEntry, Entry: &fresh[i]})
		}
	}
	return err
}

// pull records the log's entries after those the transcript holds; a
// member's first time makes the transcript (the session record: its
// title from the first prompt, the folder this member's agent works in).
func (s *Service) pull(ctx context.Context, c *client.Client, id string) error {
	head, err := s.head(id)
	if err != nil {
		return err
	}
	opened, err := c.Fetch(ctx, id, head)
	if err != nil && len(opened) == 0 {
		return err
	}
	path := s.cfg.Transcript(id)
	if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
		if err := s.create(id, path, opened); err != nil {
			return err
		}
	}
	if rerr := s.record(id, opened); rerr != nil {
		return rerr
	}
	if rerr := s.reopen(ctx, c, id); rerr != nil {
		s.log.Warn("shared sessions: entries not opened again", "session", id, "err", rerr)
	}
	return err
}

// reopen records the transcript's entries that could not be opened for
// want of their epoch's key and open now that it came (client.Reopen),
// each in its place, and tells the page. A transcript known to hold none
// is not read again.
func (s *Service) reopen(ctx context.Context, c *client.Client, id string) error {
	s.recMu.Lock()
	some, known := s.unopened[id]
	s.recMu.Unlock()
	if known && !some {
		return nil
	}
	recorded, _, err := s.localEntries(id)
	if err != nil {
		return err
	}
	left := 0
	for _, o := range recorded {
		if o.Unreadable == client.UnreadableNoKey {
			left++
		}
	}
	again, err := c.Reopen(ctx, id, recorded)
	s.recMu.Lock()
	defer s.recMu.Unlock()
	s.unopened[id] = left > len(again)
	if len(again) == 0 {
		return err
	}
	if rerr := s.cfg.Record(id, func(w *store.Writer) error {
		if err := store.AppendReopened(w, client.Records(again)); err != nil {
			return err
		}
		return w.Flush()
	}); rerr != nil {
		s.unopened[id] = true
		return rerr
	}
	for i := range again {
		s.emit(Event{SessionID: id, Type: EvEntry, Entry: &again[i]})
	}
	return err
}

func (s *Service) create(id, path string, opened []client.Opened) error {
	w, err := store.CreateTranscript(path, store.WriterOptions{})
	if err != nil {
		return err
	}
	title := ""
	for _, o := range opened {
		if o.Kind == projection.KindPrompt && o.Unreadable == "" {
			title = chat.TitleFromPrompt(o.Entry.Text)
			break
		}
	}
	ws := ""
	if s.cfg.Workspace != nil {
		ws = s.cfg.Workspace()
	}
	if ws == "" {
		ws, _ = os.UserHomeDir()
	}
	if _, err := w.AppendJSON(store.DirApp, store.KindSession, store.SessionRecord{ID: id, Title: title, Workspace: ws, CreatedMs: time.Now().UnixMilli()}); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
