package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"mnote/controlplane/api"
)

// liveReplayPage is how many entries a live stream reads at a time.
const liveReplayPage = 500

// CloseLive ends every open live stream of this server (before a
// shutdown: http.Server.Shutdown waits for running requests, and a live
// stream runs until its client leaves). Clients reconnect with after =
// their last sequence number, to this server or another.
func (s *Server) CloseLive() {
	s.closeOnce.Do(func() { close(s.liveDone) })
}

// live serves GET /v1/sessions/{id}/live as Server-Sent Events: the
// entries after ?after= (or Last-Event-ID), "ready", then every new
// entry and each change of members, lease and queue, and presence, until
// the client leaves, the server closes, or the caller stops being a
// member ("revoked", at once: removing a member rings the session).
func (s *Server) live(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	if v := r.Header.Get("Last-Event-ID"); v != "" && r.URL.Query().Get("after") == "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return badRequest("header Last-Event-ID must be a sequence number")
		}
		after = n
	}
	device := r.URL.Query().Get("device")
	if device != "" && !validID(device) {
		return badRequest("query parameter \"device\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	ctx := r.Context()
	if _, err := s.store.Role(ctx, p.ID, id); err != nil {
		return memberErr(err)
	}
	// Subscribe before the first read: a ring in between is not lost.
	bell, unsubscribe := s.hub.subscribe(id)
	defer unsubscribe()
	connID := newID("live_")
	if err := s.store.PresenceJoin(ctx, connID, p.ID, id, device, s.now().UTC()); err != nil {
		return err
	}
	defer func() {
		if err := s.store.PresenceLeave(context.WithoutCancel(ctx), connID); err != nil {
			s.log.Warn("live stream: leave presence", "err", err)
		}
		s.hub.ring(id)
	}()
	s.hub.ring(id) // a new viewer

	rc := http.NewResponseController(w)
	// A stream outlives the server's write timeout (its deadline, once
	// passed, would fail every later write).
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	ls := &liveStream{s: s, w: w, rc: rc, p: p, id: id, last: after}
	if err := ls.refresh(ctx, true); err != nil {
		ls.end(ctx, err)
		return nil
	}
	tick := time.NewTicker(s.keepalive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.liveDone:
			return nil
		case <-bell:
		case <-tick.C:
			if err := s.store.PresenceTouch(ctx, connID, s.now().UTC()); err != nil {
				ls.end(ctx, err)
				return nil
			}
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return nil
			}
		}
		if err := ls.refresh(ctx, false); err != nil {
			ls.end(ctx, err)
			return nil
		}
	}
}

// liveStream is one open live stream: where it is in the log and what
// it last said of members, lease and presence (it says them again only
// when they change).
type liveStream struct {
	s    *Server
	w    http.ResponseWriter
	rc   *http.ResponseController
	p    Principal
	id   string
	last int64

	members, lease, presence []byte
}

// errRevoked ends a stream whose caller is no longer a member.
var errRevoked = errors.New("no longer a member")

// end closes the stream for err: "revoked" when the caller was removed
// (or the session deleted, which a read may meet as a failure), nothing
// when the client has left, a log line for a store failure (the client
// reconnects with after).
func (ls *liveStream) end(ctx context.Context, err error) {
	if ctx.Err() != nil && !errors.Is(err, errRevoked) {
		// The client left while the stream read: its request's context
		// ended that read, not the store.
		err = errClientGone
	}
	if !errors.Is(err, errRevoked) && !errors.Is(err, errClientGone) {
		if _, rerr := ls.s.store.Role(ctx, ls.p.ID, ls.id); errors.Is(rerr, ErrNotFound) {
			err = errRevoked
		}
	}
	switch {
	case errors.Is(err, errRevoked):
		ls.send(api.EventRevoked, "", []byte("{}"))
		ls.rc.Flush()
	case errors.Is(err, errClientGone):
	default:
		ls.s.log.Warn("live stream ended by a store failure; the client reconnects", "err", err)
	}
}

var errClientGone = errors.New("the client went away")

// refresh reads what changed since the stream's last look and sends it.
func (ls *liveStream) refresh(ctx context.Context, first bool) error {
	st := ls.s.store
	if _, err := st.Role(ctx, ls.p.ID, ls.id); errors.Is(err, ErrNotFound) {
		return errRevoked
	} else if err != nil {
		return err
	}
	for {
		page, err := st.Entries(ctx, ls.p.ID, ls.id, ls.last, liveReplayPage)
		if errors.Is(err, ErrNotFound) {
			return errRevoked
		}
		if err != nil {
			return err
		}
		for _, e := range page.Entries {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if err := ls.send(api.EventEntry, strconv.FormatInt(e.Seq, 10), b); err != nil {
				return err
			}
			ls.last = e.Seq
		}
		if !page.More {
			break
		}
	}
	if first {
		b, _ := json.Marshal(api.Ready{Head: ls.last})
		if err := ls.send(api.EventReady, "", b); err != nil {
			return err
		}
	}
	members, err := st.Members(ctx, ls.p.ID, ls.id)
	if errors.Is(err, ErrNotFound) {
		return errRevoked
	}
	if err != nil {
		return err
	}
	if err := ls.sendIfChanged(api.EventMembers, &ls.members, members); err != nil {
		return err
	}
	lease, changed, err := st.LeaseState(ctx, ls.p.ID, ls.id, ls.s.now().UTC(), ls.s.leaseTTL)
	if errors.Is(err, ErrNotFound) {
		return errRevoked
	}
	if err != nil {
		return err
	}
	if changed {
		ls.s.hub.ring(ls.id)
	}
	lease.Granted, lease.Position = false, 0
	if err := ls.sendIfChanged(api.EventLease, &ls.lease, lease); err != nil {
		return err
	}
	viewers, err := st.Viewers(ctx, ls.id, ls.s.now().Add(-3*ls.s.keepalive))
	if err != nil {
		return err
	}
	pr := api.Presence{Viewers: viewers}
	if lease.Lease != nil {
		pr.Running = lease.Lease.Account
	}
	if err := ls.sendIfChanged(api.EventPresence, &ls.presence, pr); err != nil {
		return err
	}
	if err := ls.rc.Flush(); err != nil {
		return errClientGone
	}
	return nil
}

func (ls *liveStream) sendIfChanged(event string, last *[]byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if bytes.Equal(b, *last) {
		return nil
	}
	*last = b
	return ls.send(event, "", b)
}

// send writes one event. JSON has no raw line breaks, so data is one line.
func (ls *liveStream) send(event, id string, data []byte) error {
	var b bytes.Buffer
	b.Grow(len(data) + 64)
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteByte('\n')
	if id != "" {
		b.WriteString("id: ")
		b.WriteString(id)
		b.WriteByte('\n')
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := ls.w.Write(b.Bytes()); err != nil {
		return errClientGone
	}
	return nil
}
