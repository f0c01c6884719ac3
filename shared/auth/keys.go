// Package auth turns API keys into principals: how keys look, how they are
// hashed (keys are never stored in clear), the API Gateway REQUEST authorizer,
// and the principal a function reads to check its permission.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// keyPrefix starts every key, so a leaked key is recognisable by scanners.
const keyPrefix = "evs_"

// keyLen is the length of a key: the prefix and 32 random bytes in base64url
// (43 characters, unpadded).
const keyLen = len(keyPrefix) + (32*8+5)/6

// HashKey returns the lowercase hex SHA-256 of a key, its only stored form.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyID names a key by its hash without revealing it: "key_" and the
// first 16 hex digits.
func KeyID(hash string) string { return "key_" + hash[:min(16, len(hash))] }

// NewKey makes a key for the account and returns it in clear (shown once)
// with the record to store.
func NewKey(accountID int64, permissions []string, now time.Time) (string, domain.APIKey, error) {
	for _, p := range permissions {
		if !validPermission(p) {
			return "", domain.APIKey{}, domain.Invalid("permissions", fmt.Sprintf("%q is not a permission; use %s", p, strings.Join(domain.APIKeyPermissions(), ", ")))
		}
	}
	if len(permissions) == 0 {
		return "", domain.APIKey{}, domain.Invalid("permissions", "can't be blank")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", domain.APIKey{}, fmt.Errorf("new key: %w", err)
	}
	key := keyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	hash := HashKey(key)
	return key, domain.APIKey{
		ID:          KeyID(hash),
		Hash:        hash,
		Prefix:      key[:len(keyPrefix)+6],
		AccountID:   accountID,
		Permissions: permissions,
		CreatedAt:   now,
	}, nil
}

func validPermission(p string) bool {
	for _, q := range domain.APIKeyPermissions() {
		if p == q {
			return true
		}
	}
	return false
}

// WellFormed reports whether s has the shape of a key, so that garbage is
// refused without a database read.
func WellFormed(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, keyPrefix) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[len(keyPrefix):])
	return err == nil
}

// BearerToken returns the token of an "Authorization: Bearer <token>" header
// value. The scheme is case-insensitive (RFC 9110).
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
