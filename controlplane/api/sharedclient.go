package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

func sessionPath(id string, rest ...string) string {
	p := "/v1/sessions/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

func withQuery(p string, q url.Values) string {
	if len(q) == 0 {
		return p
	}
	return p + "?" + q.Encode()
}

// ShareSession turns one of the caller's sessions into a shared one with
// the caller as owner; statement is the owner's first signed roster
// statement. Sharing it again changes nothing.
func (c *Client) ShareSession(ctx context.Context, id string, statement []byte) (SharedSession, error) {
	var out SharedSession
	err := c.do(ctx, http.MethodPut, sessionPath(id, "shared"), ShareSessionRequest{Statement: statement}, http.StatusOK, &out)
	return out, err
}

// SharedSession returns a shared session the caller is a member of.
func (c *Client) SharedSession(ctx context.Context, id string) (SharedSession, error) {
	var out SharedSession
	err := c.do(ctx, http.MethodGet, sessionPath(id, "shared"), nil, http.StatusOK, &out)
	return out, err
}

// SharedSessions lists the shared sessions the caller is a member of,
// with the caller's role in each.
func (c *Client) SharedSessions(ctx context.Context) ([]SharedSession, error) {
	var out SharedSessionList
	err := c.do(ctx, http.MethodGet, "/v1/shared", nil, http.StatusOK, &out)
	return out.Sessions, err
}

// Members lists a shared session's members.
func (c *Client) Members(ctx context.Context, id string) (MemberList, error) {
	var out MemberList
	err := c.do(ctx, http.MethodGet, sessionPath(id, "members"), nil, http.StatusOK, &out)
	return out, err
}

// SetMember gives account a role (editor, commenter, viewer) in the
// caller's shared session, with the owner's signed roster statement.
func (c *Client) SetMember(ctx context.Context, id, account, role string, statement []byte) (Member, error) {
	var out Member
	err := c.do(ctx, http.MethodPut, sessionPath(id, "members", account), SetMemberRequest{Role: role, Statement: statement}, http.StatusOK, &out)
	return out, err
}

// RemoveMember takes account out of the caller's shared session; its
// live streams close at once.
func (c *Client) RemoveMember(ctx context.Context, id, account string, statement []byte) error {
	return c.do(ctx, http.MethodDelete, sessionPath(id, "members", account), RemoveMemberRequest{Statement: statement}, http.StatusNoContent, nil)
}

// Roster returns the roster statements after seq after (0: all).
func (c *Client) Roster(ctx context.Context, id string, after int64) (RosterPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	var out RosterPage
	err := c.do(ctx, http.MethodGet, withQuery(sessionPath(id, "roster"), q), nil, http.StatusOK, &out)
	return out, err
}

// AppendRoster appends one of the owner's signed statements that changes
// no member (a new epoch after a removal) to the roster log; the answer's
// Seq is its place.
func (c *Client) AppendRoster(ctx context.Context, id string, statement []byte) (RosterStatement, error) {
	var out RosterStatement
	err := c.do(ctx, http.MethodPost, sessionPath(id, "roster"), AppendRosterRequest{Statement: statement}, http.StatusOK, &out)
	return out, err
}

// AppendEntry appends an entry at seq, which must be the log's head + 1:
// otherwise an *Error with Code CodeConflict and Head set.
func (c *Client) AppendEntry(ctx context.Context, id string, seq int64, req AppendEntryRequest) (Entry, error) {
	var out Entry
	err := c.do(ctx, http.MethodPut, sessionPath(id, "entries", strconv.FormatInt(seq, 10)), req, http.StatusCreated, &out)
	return out, err
}

// Entries returns the entries after seq after, up to limit (0: the
// server's page); page on while More.
func (c *Client) Entries(ctx context.Context, id string, after int64, limit int) (EntryPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out EntryPage
	err := c.do(ctx, http.MethodGet, withQuery(sessionPath(id, "entries"), q), nil, http.StatusOK, &out)
	return out, err
}

// RequestLease asks for the session's lease for runID, or renews it
// (call it again as a heartbeat well within the lease's life). The
// answer says whether the run holds it (Granted) or its queue Position.
func (c *Client) RequestLease(ctx context.Context, id, runID, device string) (LeaseState, error) {
	var out LeaseState
	err := c.do(ctx, http.MethodPost, sessionPath(id, "lease"), LeaseRequest{RunID: runID, Device: device}, http.StatusOK, &out)
	return out, err
}

// LeaseState returns the session's lease and queue.
func (c *Client) LeaseState(ctx context.Context, id string) (LeaseState, error) {
	var out LeaseState
	err := c.do(ctx, http.MethodGet, sessionPath(id, "lease"), nil, http.StatusOK, &out)
	return out, err
}

// ReleaseLease ends runID's lease (at the run's end) or takes it out of
// the queue.
func (c *Client) ReleaseLease(ctx context.Context, id, runID string) (LeaseState, error) {
	var out LeaseState
	err := c.do(ctx, http.MethodDelete, sessionPath(id, "lease", runID), nil, http.StatusOK, &out)
	return out, err
}

// LiveEvent is one event of a live stream: Type is one of the Event*
// constants and the field of that type is set.
type LiveEvent struct {
	Type     string
	Entry    *Entry
	Ready    *Ready
	Members  *MemberList
	Lease    *LeaseState
	Presence *Presence
}

// LiveStream reads a live stream's events. Close it when done.
type LiveStream struct {
	body io.ReadCloser
	rd   *bufio.Reader
}

// maxLiveLine bounds one line of a live stream (an entry's JSON).
const maxLiveLine = 4 << 20

// Live opens the session's live stream: the entries after seq after,
// a Ready event, then everything new. device names this machine in the
// presence list. After a break, open it again with after = the last
// entry's Seq: nothing is lost and nothing comes twice.
func (c *Client) Live(ctx context.Context, id string, after int64, device string) (*LiveStream, error) {
	q := url.Values{}
	q.Set("after", strconv.FormatInt(after, 10))
	if device != "" {
		q.Set("device", device)
	}
	p := withQuery(sessionPath(id, "live"), q)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.BaseURL, "/")+p, nil)
	if err != nil {
		return nil, fmt.Errorf("control plane: GET %s: %w", p, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, fmt.Errorf("control plane: GET %s: %w", p, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, readError(resp)
	}
	return &LiveStream{body: resp.Body, rd: bufio.NewReaderSize(resp.Body, 64<<10)}, nil
}

// Close ends the stream.
func (l *LiveStream) Close() error { return l.body.Close() }

// Next returns the next event; io.EOF when the server ended the stream
// (after EventRevoked, or when it shuts down: reconnect).
func (l *LiveStream) Next() (LiveEvent, error) {
	var (
		event string
		data  []byte
	)
	for {
		line, err := l.readLine()
		if err != nil {
			return LiveEvent{}, err
		}
		switch {
		case len(line) == 0:
			if event == "" && data == nil {
				continue
			}
			return decodeEvent(event, data)
		case line[0] == ':': // a comment: keepalive
		case bytes.HasPrefix(line, []byte("event:")):
			event = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
}

func (l *LiveStream) readLine() ([]byte, error) {
	var line []byte
	for {
		part, err := l.rd.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxLiveLine {
			return nil, errors.New("control plane: live stream: a line is over the limit")
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

func decodeEvent(event string, data []byte) (LiveEvent, error) {
	ev := LiveEvent{Type: event}
	var v any
	switch event {
	case EventEntry:
		ev.Entry = &Entry{}
		v = ev.Entry
	case EventReady:
		ev.Ready = &Ready{}
		v = ev.Ready
	case EventMembers:
		ev.Members = &MemberList{}
		v = ev.Members
	case EventLease:
		ev.Lease = &LeaseState{}
		v = ev.Lease
	case EventPresence:
		ev.Presence = &Presence{}
		v = ev.Presence
	default:
		return ev, nil // EventRevoked, or one this client does not know
	}
	if err := json.Unmarshal(data, v); err != nil {
		return ev, fmt.Errorf("control plane: live stream: %s event: %w", event, err)
	}
	return ev, nil
}
