package controlplane

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mnote/controlplane/api"
)

// Store is where the control plane keeps everything: users, tokens,
// session records and shares. The server holds no other state, so several
// servers can share one store. Implementations: SQLite and PostgreSQL
// (see Open).
//
// Every method that takes a userID acts only on that user's rows: a row
// of another user is reported as ErrNotFound, exactly like a missing one.
type Store interface {
	// AddUser creates a user and its first token (tokenHash, see
	// HashToken). ErrNameTaken when the name is in use.
	AddUser(ctx context.Context, name, tokenHash string, now time.Time) (User, TokenInfo, error)
	// AddToken gives an existing user (by id or name) another token.
	AddToken(ctx context.Context, user, tokenHash string, now time.Time) (TokenInfo, error)
	// RevokeToken revokes a token by its id or its hash.
	RevokeToken(ctx context.Context, idOrHash string, now time.Time) (TokenInfo, error)
	// Users lists every user with their tokens.
	Users(ctx context.Context) ([]UserInfo, error)
	// Authenticate returns the user of a live (not revoked) token.
	Authenticate(ctx context.Context, tokenHash string) (Principal, error)

	// PutSession upserts rec for userID (see the package doc for the
	// version rules): ErrNotFound when the id belongs to another user,
	// *StaleError when the store holds a newer version. It returns the
	// record now stored.
	PutSession(ctx context.Context, userID string, rec api.SessionRecord) (api.SessionRecord, error)
	// GetSession returns one of userID's sessions, or a shared session
	// userID is a member of.
	GetSession(ctx context.Context, userID, id string) (api.SessionRecord, error)
	// ListSessions returns up to limit records, newest updatedAt first,
	// starting after the cursor (the zero Cursor: from the start).
	ListSessions(ctx context.Context, userID string, limit int, after Cursor) ([]api.SessionRecord, error)
	// DeleteSession deletes a session and its shares.
	DeleteSession(ctx context.Context, userID, id string) error

	// CreateShare stores a share of one of userID's sessions.
	CreateShare(ctx context.Context, userID string, sh StoredShare) error
	// ListShares returns userID's shares live at now, newest first,
	// without snapshots.
	ListShares(ctx context.Context, userID string, now time.Time) ([]StoredShare, error)
	// DeleteShare revokes (deletes) one of userID's shares by id.
	DeleteShare(ctx context.Context, userID, id string) error
	// ShareByTokenHash returns the share live at now whose URL token has
	// the hash tokenHash (see HashToken), snapshot included.
	ShareByTokenHash(ctx context.Context, tokenHash string, now time.Time) (StoredShare, error)
	// CopyShare, in one transaction, reads the share live at now whose
	// URL token has the hash tokenHash, asks build for the new session
	// record and stores it for userID. It returns the record and the
	// share.
	CopyShare(ctx context.Context, userID, tokenHash string, now time.Time, build func(StoredShare) (api.SessionRecord, error)) (api.SessionRecord, StoredShare, error)
	// PurgeExpired deletes the shares expired at now; it returns how many.
	PurgeExpired(ctx context.Context, now time.Time) (int64, error)

	SharedStore

	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	Close() error
}

// ErrNotFound: no such row, or not the caller's.
var ErrNotFound = errors.New("not found")

// ErrNameTaken: AddUser was given the name of an existing user.
var ErrNameTaken = errors.New("a user of that name exists already")

// StaleError is PutSession's answer to a version lower than the stored one.
type StaleError struct {
	Current api.SessionRecord // the record the store holds
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("session %s: the store holds version %d, newer than the one sent", e.Current.ID, e.Current.Version)
}

// User is an account of the control plane.
type User struct {
	ID   string
	Name string
}

// Principal is who a request is from: the token's user and the token.
type Principal struct {
	User
	TokenID string
}

// TokenInfo describes a token; the token itself is never stored.
type TokenInfo struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	RevokedAt time.Time // zero while the token is live
}

// UserInfo is a user with their tokens, for `user list`.
type UserInfo struct {
	User
	CreatedAt time.Time
	Tokens    []TokenInfo
}

// StoredShare is a share as the store keeps it. Snapshot is the JSON the
// client sent, byte for byte (empty from ListShares). TokenHash is the
// hash of the share's URL token (HashToken): like a user's token, the
// URL token is shown once, when the share is made, and never stored.
type StoredShare struct {
	ID        string
	TokenHash string
	UserID    string
	SessionID string
	Snapshot  []byte
	CreatedAt time.Time
	ExpiresAt time.Time // zero: never
}

// Cursor is a position in a user's session list: the last record seen.
type Cursor struct {
	UpdatedAt time.Time
	ID        string
}

// IsZero reports whether c is the start of the list.
func (c Cursor) IsZero() bool { return c.ID == "" }
