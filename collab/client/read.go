package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"mnote/collab/keys"
	"mnote/collab/projection"
	"mnote/collab/roster"
	"mnote/controlplane/api"
	"mnote/store"
)

// Opened is one entry of the shared log as this device opened it: the
// record a transcript keeps (store.SharedEntryRecord; Unreadable says why
// it could not be opened) and the projection entry.
type Opened struct {
	store.SharedEntryRecord
	Entry projection.Entry
}

// MarshalJSON writes the record's fields and the opened entry ("Entry"),
// without the entry's JSON a second time (the record's "entry").
func (o Opened) MarshalJSON() ([]byte, error) {
	type record store.SharedEntryRecord
	r := record(o.SharedEntryRecord)
	r.Entry = nil
	return json.Marshal(struct {
		record
		Entry projection.Entry
	}{r, o.Entry})
}

// Unreadable reasons (SharedEntryRecord.Unreadable), codes the caller
// words.
const (
	UnreadableNoKey    = "no_key"    // no key for the entry's epoch (sealed after this device lost access, or not yet given)
	UnreadableAuthor   = "author"    // not written by a device of a member, or not by the actor the server names
	UnreadableTampered = "tampered"  // the sealed header or the ciphertext does not match the log
	UnreadableRole     = "role"      // the author's role does not allow the entry's kind
	UnreadableContent  = "malformed" // opened, but not a projection entry
)

// Fetch returns the session's entries after seq after, opened, in order.
func (c *Client) Fetch(ctx context.Context, id string, after int64) ([]Opened, error) {
	v, err := c.view(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Opened
	var epoch int64
	for {
		page, err := c.api.Entries(ctx, id, after, 0)
		if err != nil {
			return out, fmt.Errorf("entries of %s: %w", id, err)
		}
		for _, e := range page.Entries {
			if e.Seq != after+1 {
				return out, fmt.Errorf("entries of %s: %w: %d after %d", id, store.ErrSharedGap, e.Seq, after)
			}
			out = append(out, c.openInOrder(ctx, v, e, &epoch))
			after = e.Seq
		}
		if !page.More || len(page.Entries) == 0 {
			return out, nil
		}
	}
}

// Reopen opens again the entries of recorded (the transcript's) that
// could not be opened for want of their epoch's key, where this device
// has that key now (the owner wrapped it after they were recorded: a
// member added before their first device). It returns those it opened,
// in order; the others are left out. Epochs this device never gets a key
// for (before the member joined) cost one key lookup, not a fetch.
func (c *Client) Reopen(ctx context.Context, id string, recorded []Opened) ([]Opened, error) {
	epochs := map[int64]bool{}
	for _, o := range recorded {
		if o.Unreadable == UnreadableNoKey {
			epochs[o.Epoch] = false
		}
	}
	if len(epochs) == 0 {
		return nil, nil
	}
	v, err := c.view(ctx, id)
	if err != nil {
		return nil, err
	}
	some := false
	for e := range epochs {
		if e >= 1 {
			if _, err := c.epochKey(ctx, v, uint64(e)); err == nil {
				epochs[e], some = true, true
			}
		}
	}
	if !some {
		return nil, nil
	}
	want := map[int64]bool{}
	first := int64(-1)
	for _, o := range recorded {
		if o.Unreadable == UnreadableNoKey && epochs[o.Epoch] {
			want[o.Seq] = true
			if first < 0 || o.Seq < first {
				first = o.Seq
			}
		}
	}
	all, err := c.Fetch(ctx, id, first-1)
	var out []Opened
	for _, o := range all {
		if want[o.Seq] && o.Unreadable == "" {
			out = append(out, o)
		}
	}
	return out, err
}

// openInOrder opens an entry of the log read in order: epochs only go
// up, so an entry sealed under an older epoch after a newer one (a
// removed device's key used again, with the server's help) is marked.
func (c *Client) openInOrder(ctx context.Context, v *view, e api.Entry, epoch *int64) Opened {
	if e.Epoch < *epoch {
		c.log.Warn("shared entry not opened", "session", v.id, "seq", e.Seq, "why", UnreadableTampered, "err", "an older epoch after a newer one")
		return Opened{SharedEntryRecord: store.SharedEntryRecord{Seq: e.Seq, Epoch: e.Epoch, Kind: e.Kind, RunID: e.RunID,
			Actor: e.Actor, AuthorDevice: e.AuthorDevice, TimeMs: e.Time.UnixMilli(), Unreadable: UnreadableTampered}}
	}
	*epoch = e.Epoch
	return c.open(ctx, v, e)
}

// open opens one log entry; what cannot be opened is marked, not dropped.
func (c *Client) open(ctx context.Context, v *view, e api.Entry) Opened {
	o := Opened{SharedEntryRecord: store.SharedEntryRecord{Seq: e.Seq, Epoch: e.Epoch, Kind: e.Kind, RunID: e.RunID,
		Actor: e.Actor, AuthorDevice: e.AuthorDevice, TimeMs: e.Time.UnixMilli()}}
	fail := func(code string, err error) Opened {
		c.log.Warn("shared entry not opened", "session", v.id, "seq", e.Seq, "why", code, "err", err)
		o.Unreadable = code
		return o
	}
	h, err := keys.EntryHeader(e.Ciphertext)
	if err != nil {
		return fail(UnreadableTampered, err)
	}
	want := keys.Header{SessionID: v.id, Epoch: uint64(e.Epoch), Seq: uint64(e.Seq), AuthorDevice: e.AuthorDevice, Kind: e.Kind}
	if e.Epoch < 1 || h != want {
		return fail(UnreadableTampered, keys.ErrTampered)
	}
	author, err := v.roster.Author(v.lists, h.AuthorDevice)
	if err != nil {
		author, err = c.formerAuthor(v, h.AuthorDevice, h.Epoch)
	}
	if err != nil {
		return fail(UnreadableAuthor, err)
	}
	if author.Account != e.Actor {
		return fail(UnreadableAuthor, fmt.Errorf("signed by %q, the server says %q", author.Account, e.Actor))
	}
	if !allowed(author.Role, e.Kind) {
		return fail(UnreadableRole, fmt.Errorf("%s may not write %s", author.Role, e.Kind))
	}
	key, err := c.epochKey(ctx, v, uint64(e.Epoch))
	if err != nil {
		return fail(UnreadableNoKey, err)
	}
	pt, err := keys.Open(key, want, e.Ciphertext, author.Device)
	if err != nil {
		return fail(UnreadableTampered, err)
	}
	if err := json.Unmarshal(pt, &o.Entry); err != nil || o.Entry.Kind != e.Kind {
		return fail(UnreadableContent, err)
	}
	o.SharedEntryRecord.Entry = pt
	return o
}

// formerAuthor finds an entry's author among the members removed from
// the session: a device this client verified in their list before, an
// entry of an epoch no later than their removal, the role they had then.
func (c *Client) formerAuthor(v *view, deviceID string, epoch uint64) (roster.Author, error) {
	pub, ok := c.knownDevice(deviceID)
	if ok {
		var role roster.Role
		for _, s := range v.roster.Statements() {
			if s.Subject != pub.Account {
				continue
			}
			switch s.Op {
			case roster.AddMember, roster.SetRole:
				role = s.Role
			case roster.RemoveMember:
				if role != "" && epoch <= s.Epoch {
					return roster.Author{Member: roster.Member{Account: pub.Account, Role: role}, Device: pub, Removed: true}, nil
				}
				role = ""
			}
		}
	}
	return roster.Author{}, fmt.Errorf("author of an entry of %q: %w: %s", v.id, roster.ErrUnknownSigner, deviceID)
}

// allowed says whether a role may write an entry of kind: owners and
// editors run turns and comment, commenters comment, viewers nothing.
func allowed(r roster.Role, kind string) bool {
	switch r {
	case roster.Owner, roster.Editor:
		return true
	case roster.Commenter:
		return kind == api.KindComment
	}
	return false
}

// LiveEvents are what Follow reports besides entries.
type LiveEvents struct {
	Entry    func(Opened) error
	Lease    func(api.LeaseState)
	Presence func(api.Presence)
	// Reconnect is told of a broken stream before it is opened again.
	Reconnect func(err error)
}

// Follow follows the session's live stream from seq after: every entry
// after it, opened, in order, then the new ones as they come. A broken
// stream is opened again from the last seq delivered, so nothing is lost
// and nothing comes twice. It returns when ctx ends, when ev.Entry fails,
// or with ErrRevoked when this account is no longer a member.
func (c *Client) Follow(ctx context.Context, id string, after int64, ev LiveEvents) error {
	v, err := c.view(ctx, id)
	if err != nil {
		return err
	}
	backoff := c.poll
	var epoch int64
	for {
		err := c.followOnce(ctx, &v, id, &after, &epoch, ev)
		if errors.Is(err, ErrRevoked) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		var cbErr *callbackError
		if errors.As(err, &cbErr) {
			return cbErr.err
		}
		if ev.Reconnect != nil {
			ev.Reconnect(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		if backoff < 5*time.Second {
			backoff *= 2
		}
	}
}

type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }

func (c *Client) followOnce(ctx context.Context, v **view, id string, after, epoch *int64, ev LiveEvents) error {
	s, err := c.api.Live(ctx, id, *after, c.dev.ID())
	if err != nil {
		if isStatus(err, api.CodeNotFound) {
			return ErrRevoked
		}
		return err
	}
	defer s.Close()
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		switch e.Type {
		case api.EventRevoked:
			return ErrRevoked
		case api.EventMembers:
			if nv, err := c.view(ctx, id); err == nil {
				*v = nv
			} else if errors.Is(err, ErrRevoked) {
				return err
			}
		case api.EventLease:
			if ev.Lease != nil && e.Lease != nil {
				ev.Lease(*e.Lease)
			}
		case api.EventPresence:
			if ev.Presence != nil && e.Presence != nil {
				ev.Presence(*e.Presence)
			}
		case api.EventEntry:
			if e.Entry == nil || e.Entry.Seq <= *after {
				continue // replayed after a reconnect: had it
			}
			if e.Entry.Seq != *after+1 {
				return fmt.Errorf("live %s: %w: %d after %d", id, store.ErrSharedGap, e.Entry.Seq, *after)
			}
			before := *epoch
			o := c.openInOrder(ctx, *v, *e.Entry, epoch)
			if o.Unreadable != "" && o.Unreadable != UnreadableTampered {
				// The roster may have moved on (a new epoch, a member):
				// look again once before marking it.
				if nv, err := c.view(ctx, id); err == nil {
					*v, *epoch = nv, before
					o = c.openInOrder(ctx, nv, *e.Entry, epoch)
				}
			}
			if ev.Entry != nil {
				if err := ev.Entry(o); err != nil {
					return &callbackError{err}
				}
			}
			*after = e.Entry.Seq
		}
	}
}

// FromRecords are the entries a transcript recorded (store.ReadSharedEntries),
// as Opened.
func FromRecords(recs []store.SharedEntryRecord) []Opened {
	out := make([]Opened, 0, len(recs))
	for _, r := range recs {
		o := Opened{SharedEntryRecord: r}
		if r.Unreadable == "" && json.Unmarshal(r.Entry, &o.Entry) != nil {
			o.Unreadable = UnreadableContent
		}
		out = append(out, o)
	}
	return out
}

// Records are the transcript records of opened entries.
func Records(os []Opened) []store.SharedEntryRecord {
	out := make([]store.SharedEntryRecord, len(os))
	for i, o := range os {
		out[i] = o.SharedEntryRecord
	}
	return out
}
