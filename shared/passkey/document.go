package passkey

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// DocumentDigest is the digest a decision's challenge is bound to: the hex
// SHA-256 of the decision document as signed.
func DocumentDigest(document []byte) string {
	sum := sha256.Sum256(document)
	return hex.EncodeToString(sum[:])
}

// ParseUserHandleString reads a user handle as an assertion carries it
// (base64url without padding).
func ParseUserHandleString(s string) (accountID, operatorID int64, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, 0, false
	}
	return ParseUserHandle(b)
}
