package portal

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// Token prefixes: a leaked token is recognisable, and a link's token is
// never taken for a session's (or an API key's, "evs_" and 43 characters).
const (
	LinkPrefix    = "evs_portal_"
	SessionPrefix = "evs_session_"
)

// tokenBytes is the randomness of a token: 256 bits, 43 characters of
// base64url after the prefix.
const tokenBytes = 32

// newToken is prefix and tokenBytes from r in base64url (unpadded).
func newToken(r io.Reader, prefix string) (string, error) {
	var b [tokenBytes]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("portal: new token: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// wellFormed reports whether s has the shape of a token with the prefix,
// so that garbage is refused without a database read.
func wellFormed(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// hashToken is the lowercase hex SHA-256 of a token, its only stored form
// (as for API keys): 256 random bits need no salt or slow hash.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// LinkID and SessionID name a link or a session in the audit trail and
// the logs without revealing it: the first 16 hex digits of its hash.
func LinkID(hash string) string    { return "lnk_" + hash[:min(16, len(hash))] }
func SessionID(hash string) string { return "ses_" + hash[:min(16, len(hash))] }

// reader is r, or crypto/rand's.
func reader(r io.Reader) io.Reader {
	if r == nil {
		return rand.Reader
	}
	return r
}
