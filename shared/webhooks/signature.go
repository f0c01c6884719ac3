package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// SignatureHeader carries our signature on outbound webhooks.
const SignatureHeader = "X-Service-Signature"

// Sign is X-Service-Signature's value for a body: "sha256=" and the
// lowercase hex HMAC-SHA256 of the raw bytes (the scheme of GitHub's
// X-Hub-Signature-256).
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks an X-Service-Signature value over the raw body, in constant
// time.
func Verify(secret, body []byte, header string) bool {
	if !strings.HasPrefix(header, "sha256=") {
		return false
	}
	return hmac.Equal([]byte(Sign(secret, body)), []byte(header))
}
