package api

import (
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
	"time"
)

// Client calls a control plane. The zero HTTP uses http.DefaultClient.
// It is safe for concurrent use as long as its fields are not changed.
type Client struct {
	BaseURL string // e.g. "https://cp.example.org"; no trailing /v1
	Token   string // the bearer token of `mnote-controlplane user add`
	HTTP    *http.Client
}

// maxResponse bounds a response body read by the client (a copy carries a
// snapshot of up to 5 MiB).
const maxResponse = 16 << 20

// Me returns the token's user.
func (c *Client) Me(ctx context.Context) (Me, error) {
	var me Me
	err := c.do(ctx, http.MethodGet, "/v1/me", nil, http.StatusOK, &me)
	return me, err
}

// PutSession upserts rec and returns the record the server now holds.
// When the server already holds a newer version it returns an *Error with
// Code CodeStale and Session set to that record.
func (c *Client) PutSession(ctx context.Context, rec SessionRecord) (SessionRecord, error) {
	var out SessionRecord
	err := c.do(ctx, http.MethodPut, "/v1/sessions/"+url.PathEscape(rec.ID), rec, http.StatusOK, &out)
	return out, err
}

// ListSessions returns one page of the caller's sessions, newest updatedAt
// first. limit 0 means the server's default (100); cursor "" the first
// page, then the previous page's NextCursor.
func (c *Client) ListSessions(ctx context.Context, limit int, cursor string) (SessionPage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	p := "/v1/sessions"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var page SessionPage
	err := c.do(ctx, http.MethodGet, p, nil, http.StatusOK, &page)
	return page, err
}

// GetSession returns one of the caller's sessions.
func (c *Client) GetSession(ctx context.Context, id string) (SessionRecord, error) {
	var rec SessionRecord
	err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id), nil, http.StatusOK, &rec)
	return rec, err
}

// DeleteSession deletes one of the caller's sessions and its shares.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(id), nil, http.StatusNoContent, nil)
}

// CreateShare publishes a snapshot of one of the caller's sessions.
func (c *Client) CreateShare(ctx context.Context, req CreateShareRequest) (Share, error) {
	var sh Share
	err := c.do(ctx, http.MethodPost, "/v1/shares", req, http.StatusCreated, &sh)
	return sh, err
}

// ListShares returns the caller's live shares (not revoked, not expired).
func (c *Client) ListShares(ctx context.Context) ([]Share, error) {
	var l ShareList
	err := c.do(ctx, http.MethodGet, "/v1/shares", nil, http.StatusOK, &l)
	return l.Shares, err
}

// DeleteShare revokes one of the caller's shares by its id.
func (c *Client) DeleteShare(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/v1/shares/"+url.PathEscape(id), nil, http.StatusNoContent, nil)
}

// CopyShare makes a new session of the caller's from the share whose URL
// token is token.
func (c *Client) CopyShare(ctx context.Context, token string) (CopyResult, error) {
	var res CopyResult
	err := c.do(ctx, http.MethodPost, "/v1/shares/"+url.PathEscape(token)+"/copy", nil, http.StatusCreated, &res)
	return res, err
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// do sends one request and decodes a want-status answer into out (when
// out is not nil); any other status becomes an *Error.
func (c *Client) do(ctx context.Context, method, path string, in any, want int, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("control plane: encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.BaseURL, "/")+path, body)
	if err != nil {
		return fmt.Errorf("control plane: %s %s: %w (check the control plane URL)", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return fmt.Errorf("control plane: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		return readError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxResponse))
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("control plane: %s %s: read the answer: %w", method, path, err)
	}
	return nil
}

// readError turns a non-success answer into an *Error, tolerating bodies
// that are not the contract's (a proxy's HTML page, say).
func readError(resp *http.Response) error {
	e := &Error{Status: resp.StatusCode}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	var b ErrorBody
	if err := json.Unmarshal(raw, &b); err == nil {
		e.Code, e.Message, e.Session, e.Head = b.Error.Code, b.Error.Message, b.Session, b.Head
	}
	if e.Code == "" {
		e.Code = codeForStatus(resp.StatusCode)
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw[:min(len(raw), 200)]))
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			e.RetryAfter = time.Duration(n) * time.Second
		}
	}
	return e
}

var _ error = (*Error)(nil)

// IsNotFound reports whether err is a 404 answer.
func IsNotFound(err error) bool { return errors.Is(err, &Error{Code: CodeNotFound}) }
