package controlplane

import (
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mnote/controlplane/api"
)

// Limits of devices, keys and pairing.
const (
	maxPublicKey      = 4 << 10
	maxEnvelope       = 4 << 10
	maxEnvelopes      = 1000 // one epoch's envelopes: every device of every member
	maxKeysBody       = maxEnvelopes * (maxEnvelope*4/3 + 300)
	maxPairingMessage = 64 << 10
	maxPairingBody    = maxPairingMessage*4/3 + 4<<10
	maxDeviceLogPage  = 1000
	pairingTTL        = 10 * time.Minute
	pairingMaxTries   = 5
	pairingCodeLen    = 8
)

// pairingAlphabet is Crockford's base32: no I, L, O, U to misread.
const pairingAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func (s *Server) deviceRoutes() {
	m := s.mux
	m.HandleFunc("GET /v1/devices", s.api(s.listOwnDevices))
	m.HandleFunc("PUT /v1/devices/{device}", s.api(s.putDevice))
	m.HandleFunc("DELETE /v1/devices/{device}", s.api(s.removeDevice))
	m.HandleFunc("GET /v1/accounts/{account}/devices", s.api(s.listDevices))
	m.HandleFunc("GET /v1/accounts/{account}/device-log", s.api(s.deviceLog))
	m.HandleFunc("PUT /v1/sessions/{id}/keys/{epoch}", s.api(s.putKeys))
	m.HandleFunc("GET /v1/sessions/{id}/keys", s.api(s.getKeys))
	m.HandleFunc("POST /v1/pairings", s.api(s.createPairing))
	m.HandleFunc("POST /v1/pairings/join", s.api(s.joinPairing))
	m.HandleFunc("POST /v1/pairings/{pairing}/messages", s.api(s.postPairingMessage))
	m.HandleFunc("GET /v1/pairings/{pairing}/messages", s.api(s.pairingMessages))
}

// pathID returns the checked path value name.
func pathID(r *http.Request, name string) (string, error) {
	v := r.PathValue(name)
	if !validID(v) {
		return "", badRequest("the %s id in the path must be 1-%d characters of A-Z a-z 0-9 _ -", name, maxIDLen)
	}
	return v, nil
}

func (s *Server) putDevice(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := pathID(r, "device")
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxStatementBody+maxPublicKey*2)
	if err != nil {
		return err
	}
	var in api.PutDeviceRequest
	if err := decodeStrict(body, &in, "the body", "publicKey, statement"); err != nil {
		return err
	}
	if err := checkBlob("publicKey", in.PublicKey, maxPublicKey); err != nil {
		return err
	}
	if err := checkBlob("statement", in.Statement, maxStatement); err != nil {
		return err
	}
	d, err := s.store.PutDevice(r.Context(), p.ID, id, in.PublicKey, in.Statement, s.now().UTC())
	var kc *DeviceKeyConflictError
	if errors.As(err, &kc) {
		return &httpError{http.StatusConflict, api.CodeConflict, kc.Error()}
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *Server) removeDevice(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := pathID(r, "device")
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxStatementBody)
	if err != nil {
		return err
	}
	var in api.RemoveDeviceRequest
	if err := decodeStrict(body, &in, "the body", "statement"); err != nil {
		return err
	}
	if err := checkBlob("statement", in.Statement, maxStatement); err != nil {
		return err
	}
	if err := s.store.RemoveDevice(r.Context(), p.ID, id, in.Statement, s.now().UTC()); errors.Is(err, ErrNotFound) {
		return notFound("device")
	} else if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listOwnDevices(w http.ResponseWriter, r *http.Request, p Principal) error {
	list, err := s.store.Devices(r.Context(), p.ID, "")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) listDevices(w http.ResponseWriter, r *http.Request, p Principal) error {
	account, err := accountName(r)
	if err != nil {
		return err
	}
	list, err := s.store.Devices(r.Context(), p.ID, account)
	if errors.Is(err, ErrNotFound) {
		return notFound("account")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) deviceLog(w http.ResponseWriter, r *http.Request, p Principal) error {
	account, err := accountName(r)
	if err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	page, err := s.store.DeviceLog(r.Context(), p.ID, account, after, maxDeviceLogPage)
	if errors.Is(err, ErrNotFound) {
		return notFound("account")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (s *Server) putKeys(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	epoch, err := strconv.ParseInt(r.PathValue("epoch"), 10, 64)
	if err != nil || epoch < 1 {
		return badRequest("the epoch in the path must be an integer >= 1")
	}
	body, err := readBody(w, r, maxKeysBody)
	if err != nil {
		return err
	}
	var in api.PutKeysRequest
	if err := decodeStrict(body, &in, "the body", "envelopes (account, device, envelope)"); err != nil {
		return err
	}
	if len(in.Envelopes) == 0 || len(in.Envelopes) > maxEnvelopes {
		return badRequest("field \"envelopes\" must hold 1 to %d envelopes", maxEnvelopes)
	}
	for i, e := range in.Envelopes {
		if !validID(e.Device) || e.Account == "" || len(e.Account) > maxAccountLen || (e.Epoch != 0 && e.Epoch != epoch) {
			return badRequest("envelopes[%d]: account and device are required (epoch, if given, the path's)", i)
		}
		if err := checkBlob("envelope", e.Envelope, maxEnvelope); err != nil {
			return err
		}
	}
	err = s.store.PutEnvelopes(r.Context(), p.ID, id, epoch, in.Envelopes, s.now().UTC())
	if errors.Is(err, ErrForbidden) {
		return &httpError{http.StatusForbidden, api.CodeForbidden, "only the session's owner wraps its keys"}
	}
	if err != nil {
		return memberErr(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) getKeys(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	device := r.URL.Query().Get("device")
	if !validID(device) {
		return badRequest("query parameter \"device\" (one of your devices) is required")
	}
	after, err := queryInt(r, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	envs, err := s.store.Envelopes(r.Context(), p.ID, id, device, after)
	if err != nil {
		return memberErr(err)
	}
	writeJSON(w, http.StatusOK, api.KeyList{Envelopes: envs})
	return nil
}

// newPairingCode returns 8 random characters of pairingAlphabet (40 bits).
func newPairingCode() (string, error) {
	b := make([]byte, pairingCodeLen)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = pairingAlphabet[b[i]%32]
	}
	return string(b), nil
}

// normalizeCode reads a typed code as Crockford base32 does: case and
// dashes or spaces do not matter, I and L are 1, O is 0.
func normalizeCode(c string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(c) {
		switch r {
		case '-', ' ':
			continue
		case 'I', 'L':
			r = '1'
		case 'O':
			r = '0'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pairingCodeHash is what the store keeps of a code: the hash of the
// account and the code. The code is short, so what protects it is its
// ten minutes and five tries, not the hash.
func pairingCodeHash(userID, code string) string {
	return HashToken("pairing\x00" + userID + "\x00" + normalizeCode(code))
}

func (s *Server) createPairing(w http.ResponseWriter, r *http.Request, p Principal) error {
	body, err := readBody(w, r, maxEmptyBody)
	if err != nil {
		return err
	}
	var in api.CreatePairingRequest
	if err := decodeStrict(body, &in, "the body", "device"); err != nil {
		return err
	}
	if !validID(in.Device) {
		return badRequest("field \"device\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	code, err := newPairingCode()
	if err != nil {
		return err
	}
	now := s.now().UTC()
	pr := api.Pairing{ID: newID("pair_"), Code: code[:4] + "-" + code[4:], ExpiresAt: fromNanos(nanos(now.Add(pairingTTL)))}
	if err := s.store.CreatePairing(r.Context(), p.ID, pr.ID, pairingCodeHash(p.ID, code), now, pr.ExpiresAt); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, pr)
	return nil
}

func (s *Server) joinPairing(w http.ResponseWriter, r *http.Request, p Principal) error {
	body, err := readBody(w, r, maxEmptyBody)
	if err != nil {
		return err
	}
	var in api.JoinPairingRequest
	if err := decodeStrict(body, &in, "the body", "code, device"); err != nil {
		return err
	}
	if !validID(in.Device) || len(in.Code) > 32 {
		return badRequest("fields \"code\" (as shown on the other device) and \"device\" are required")
	}
	pr, err := s.store.JoinPairing(r.Context(), p.ID, pairingCodeHash(p.ID, in.Code), s.now().UTC(), pairingMaxTries)
	if errors.Is(err, ErrNotFound) {
		return notFound("pairing with that code (check it on the other device)")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pr)
	return nil
}

func (s *Server) postPairingMessage(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := pathID(r, "pairing")
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxPairingBody)
	if err != nil {
		return err
	}
	var in api.PairingMessageRequest
	if err := decodeStrict(body, &in, "the body", "device, body"); err != nil {
		return err
	}
	if !validID(in.Device) {
		return badRequest("field \"device\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	if err := checkBlob("body", in.Body, maxPairingMessage); err != nil {
		return err
	}
	m, err := s.store.PostPairingMessage(r.Context(), p.ID, id, in.Device, in.Body, s.now().UTC(), pairingMaxTries)
	if errors.Is(err, ErrNotFound) {
		return notFound("pairing")
	}
	if err != nil {
		return err
	}
	m.Body = nil
	writeJSON(w, http.StatusCreated, m)
	return nil
}

func (s *Server) pairingMessages(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := pathID(r, "pairing")
	if err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	page, err := s.store.PairingMessages(r.Context(), p.ID, id, after, s.now().UTC(), pairingMaxTries)
	if errors.Is(err, ErrNotFound) {
		return notFound("pairing")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}
