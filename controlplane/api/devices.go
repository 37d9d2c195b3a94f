package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// PutDeviceRequest is the body of PUT /v1/devices/{device}: the device's
// public key and the signed device statement that adds it (both opaque
// to the server; the statement is appended to the account's device log).
type PutDeviceRequest struct {
	PublicKey []byte `json:"publicKey"`
	Statement []byte `json:"statement"`
}

// RemoveDeviceRequest is the body of DELETE /v1/devices/{device}.
type RemoveDeviceRequest struct {
	Statement []byte `json:"statement"`
}

// Device is one device of an account.
type Device struct {
	ID        string    `json:"id"`
	Account   string    `json:"account"`
	PublicKey []byte    `json:"publicKey"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// DeviceList is the body of GET /v1/devices and
// GET /v1/accounts/{account}/devices. LogHead is the seq of the last
// statement of the account's device log.
type DeviceList struct {
	Devices []Device `json:"devices"`
	LogHead int64    `json:"logHead"`
}

// DeviceStatement is one statement of an account's device log.
type DeviceStatement struct {
	Seq       int64     `json:"seq"`
	Device    string    `json:"device"`
	Statement []byte    `json:"statement"`
	CreatedAt time.Time `json:"createdAt"`
}

// DeviceLogPage is the body of GET /v1/accounts/{account}/device-log.
type DeviceLogPage struct {
	Statements []DeviceStatement `json:"statements"`
	Head       int64             `json:"head"`
}

// KeyEnvelope is a session's content key of one epoch wrapped for one
// device of one member (opaque to the server).
type KeyEnvelope struct {
	Epoch    int64  `json:"epoch,omitempty"`
	Account  string `json:"account"`
	Device   string `json:"device"`
	Envelope []byte `json:"envelope"`
}

// PutKeysRequest is the body of PUT /v1/sessions/{id}/keys/{epoch}.
type PutKeysRequest struct {
	Envelopes []KeyEnvelope `json:"envelopes"`
}

// KeyList is the body of GET /v1/sessions/{id}/keys?device=: the
// caller's envelopes for one of its devices, oldest epoch first.
type KeyList struct {
	Envelopes []KeyEnvelope `json:"envelopes"`
}

// CreatePairingRequest is the body of POST /v1/pairings.
type CreatePairingRequest struct {
	Device string `json:"device"`
}

// Pairing is a mailbox two devices of one account exchange messages on
// while pairing. Code is given once, to the device that made it; the
// other device types it to join.
type Pairing struct {
	ID        string    `json:"id"`
	Code      string    `json:"code,omitempty"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// JoinPairingRequest is the body of POST /v1/pairings/join.
type JoinPairingRequest struct {
	Code   string `json:"code"`
	Device string `json:"device"`
}

// PairingMessageRequest is the body of POST /v1/pairings/{id}/messages.
type PairingMessageRequest struct {
	Device string `json:"device"`
	Body   []byte `json:"body"`
}

// PairingMessage is one message of a pairing mailbox, in order.
type PairingMessage struct {
	Seq       int64     `json:"seq"`
	Device    string    `json:"device"`
	Body      []byte    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
}

// PairingMessages is the body of GET /v1/pairings/{id}/messages.
type PairingMessages struct {
	Messages  []PairingMessage `json:"messages"`
	ExpiresAt time.Time        `json:"expiresAt"`
}

// PutDevice adds (or states again) one of the caller's devices. A
// device id keeps its key: another key for it is a 409 conflict.
func (c *Client) PutDevice(ctx context.Context, id string, publicKey, statement []byte) (Device, error) {
	var out Device
	err := c.do(ctx, http.MethodPut, "/v1/devices/"+url.PathEscape(id), PutDeviceRequest{PublicKey: publicKey, Statement: statement}, http.StatusOK, &out)
	return out, err
}

// RemoveDevice removes one of the caller's devices and the key envelopes
// wrapped for it.
func (c *Client) RemoveDevice(ctx context.Context, id string, statement []byte) error {
	return c.do(ctx, http.MethodDelete, "/v1/devices/"+url.PathEscape(id), RemoveDeviceRequest{Statement: statement}, http.StatusNoContent, nil)
}

// Devices lists the caller's devices.
func (c *Client) Devices(ctx context.Context) (DeviceList, error) {
	var out DeviceList
	err := c.do(ctx, http.MethodGet, "/v1/devices", nil, http.StatusOK, &out)
	return out, err
}

// AccountDevices lists the devices of account: the caller's own, or of
// an account the caller shares a session with (404 otherwise).
func (c *Client) AccountDevices(ctx context.Context, account string) (DeviceList, error) {
	var out DeviceList
	err := c.do(ctx, http.MethodGet, "/v1/accounts/"+url.PathEscape(account)+"/devices", nil, http.StatusOK, &out)
	return out, err
}

// DeviceLog returns account's device statements after seq after.
func (c *Client) DeviceLog(ctx context.Context, account string, after int64) (DeviceLogPage, error) {
	p := "/v1/accounts/" + url.PathEscape(account) + "/device-log"
	if after > 0 {
		p += "?after=" + strconv.FormatInt(after, 10)
	}
	var out DeviceLogPage
	err := c.do(ctx, http.MethodGet, p, nil, http.StatusOK, &out)
	return out, err
}

// PutKeys uploads the session's key of epoch wrapped for members'
// devices (the owner only).
func (c *Client) PutKeys(ctx context.Context, sessionID string, epoch int64, envs []KeyEnvelope) error {
	return c.do(ctx, http.MethodPut, sessionPath(sessionID, "keys", strconv.FormatInt(epoch, 10)), PutKeysRequest{Envelopes: envs}, http.StatusNoContent, nil)
}

// Keys returns the caller's envelopes of the session for one of its
// devices, for the epochs after after.
func (c *Client) Keys(ctx context.Context, sessionID, device string, after int64) ([]KeyEnvelope, error) {
	q := url.Values{}
	q.Set("device", device)
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	var out KeyList
	err := c.do(ctx, http.MethodGet, withQuery(sessionPath(sessionID, "keys"), q), nil, http.StatusOK, &out)
	return out.Envelopes, err
}

// CreatePairing opens a pairing mailbox and returns its one-time code.
func (c *Client) CreatePairing(ctx context.Context, device string) (Pairing, error) {
	var out Pairing
	err := c.do(ctx, http.MethodPost, "/v1/pairings", CreatePairingRequest{Device: device}, http.StatusCreated, &out)
	return out, err
}

// JoinPairing finds the caller's pairing by its code (from the other
// device's screen).
func (c *Client) JoinPairing(ctx context.Context, code, device string) (Pairing, error) {
	var out Pairing
	err := c.do(ctx, http.MethodPost, "/v1/pairings/join", JoinPairingRequest{Code: code, Device: device}, http.StatusOK, &out)
	return out, err
}

// PostPairingMessage appends a message to a pairing mailbox.
func (c *Client) PostPairingMessage(ctx context.Context, pairingID, device string, body []byte) (PairingMessage, error) {
	var out PairingMessage
	err := c.do(ctx, http.MethodPost, "/v1/pairings/"+url.PathEscape(pairingID)+"/messages", PairingMessageRequest{Device: device, Body: body}, http.StatusCreated, &out)
	return out, err
}

// PairingMessages returns a pairing mailbox's messages after seq after.
func (c *Client) PairingMessages(ctx context.Context, pairingID string, after int64) (PairingMessages, error) {
	p := "/v1/pairings/" + url.PathEscape(pairingID) + "/messages"
	if after > 0 {
		p += "?after=" + strconv.FormatInt(after, 10)
	}
	var out PairingMessages
	err := c.do(ctx, http.MethodGet, p, nil, http.StatusOK, &out)
	return out, err
}
