package controlplane

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// TokenPrefix starts every bearer token, so secret scanners and people can
// tell one from other strings.
const TokenPrefix = "mnote_"

// NewToken returns a new bearer token (TokenPrefix + 32 random bytes,
// base64url) and the hash to store for it. The token is shown once and
// never stored.
func NewToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("controlplane: make a token: %w", err)
	}
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is what the store keeps of a token: its hex SHA-256. Tokens
// are 256 random bits, so a fast hash is enough (nothing to brute-force).
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// shareTokenLen is the length of a share's URL token: 32 random bytes in
// base64url without padding (256 bits; the contract asks for ≥ 128).
const shareTokenLen = 43

func newShareToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("controlplane: make a share token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// looksLikeShareToken rejects, without a database query, what cannot be a
// share token.
func looksLikeShareToken(s string) bool {
	if len(s) != shareTokenLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
