// Package webhooks signs and verifies webhooks: the Standard Webhooks scheme
// the screening provider uses to post results to us, and our own
// X-Service-Signature scheme for the webhooks we post to subscribers.
package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// DefaultTolerance is how far a webhook's timestamp may be from now.
const DefaultTolerance = 5 * time.Minute

// Verification failures. Each is a reason to refuse the request; the
// messages are safe to log and to return.
var (
	ErrNoSecret         = errors.New("no signing secret is configured for this provider")
	ErrMissingHeaders   = errors.New("webhook-id, webhook-timestamp and webhook-signature are required")
	ErrBadTimestamp     = errors.New("webhook-timestamp is not a Unix time in seconds")
	ErrOutsideTolerance = errors.New("webhook-timestamp is too far from the current time")
	ErrNoMatch          = errors.New("no signature matches")
)

// Secret is a signing key. Standard Webhooks secrets are written
// "whsec_<base64>"; the key is the decoded bytes.
type Secret []byte

// ParseSecret reads a "whsec_<base64>" secret, or takes any other string's
// bytes as the key.
func ParseSecret(s string) (Secret, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, ErrNoSecret
	}
	if b64, ok := strings.CutPrefix(s, "whsec_"); ok {
		key, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("secret: whsec_ value is not base64: %w", err)
		}
		return key, nil
	}
	return Secret(s), nil
}

// ParseSecrets reads a comma- or space-separated list of secrets: during a
// rotation both the old and the new secret verify.
func ParseSecrets(s string) ([]Secret, error) {
	var out []Secret
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		sec, err := ParseSecret(part)
		if err != nil {
			return nil, err
		}
		out = append(out, sec)
	}
	if len(out) == 0 {
		return nil, ErrNoSecret
	}
	return out, nil
}

// StandardSignature is the "v1,<base64>" signature of a message.
func StandardSignature(secret Secret, id string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	fmt.Fprintf(mac, "%s.%d.", id, ts)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// VerifyStandard checks a Standard Webhooks request: the timestamp within
// tolerance of now, and one of the space-separated v1 signatures made with
// one of the secrets over "<id>.<timestamp>.<raw body>", compared in
// constant time. With no secret it fails closed.
func VerifyStandard(secrets []Secret, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	if len(secrets) == 0 {
		return ErrNoSecret
	}
	if id == "" || timestamp == "" || signatures == "" {
		return ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrOutsideTolerance
	}
	for _, sec := range secrets {
		want := []byte(StandardSignature(sec, id, ts, body))
		for _, sig := range strings.Fields(signatures) {
			if hmac.Equal([]byte(sig), want) {
				return nil
			}
		}
	}
	return ErrNoMatch
}
