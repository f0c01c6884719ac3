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

// The limits of the Standard Webhooks headers, checked before the signature
// and before anything is looked up (README "Input limits"). They are far
// above what a provider sends (an id like "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
// ten digits of Unix time, one 47-byte "v1,<base64>" per secret) and far
// below what would fail later: the id becomes part of a DynamoDB key (the
// receipt "<provider>#<id>", at most 2,048 bytes) and of log lines.
const (
	// MaxIDBytes bounds webhook-id, which must also be printable ASCII
	// (0x20 to 0x7E: no control character, DEL or non-ASCII byte).
	MaxIDBytes = 256
	// MaxTimestampBytes bounds webhook-timestamp (its content is then read
	// as Unix seconds: ErrBadTimestamp).
	MaxTimestampBytes = 32
	// MaxSignatureBytes bounds webhook-signature: room for dozens of
	// space-separated signatures during a rotation (its content is then
	// only compared: ErrNoMatch).
	MaxSignatureBytes = 4 << 10
)

// Verification failures. Each is a reason to refuse the request; the
// messages are safe to log and to return.
var (
	ErrNoSecret         = errors.New("no signing secret is configured for this provider")
	ErrMissingHeaders   = errors.New("webhook-id, webhook-timestamp and webhook-signature are required")
	ErrBadTimestamp     = errors.New("webhook-timestamp is not a Unix time in seconds")
	ErrOutsideTolerance = errors.New("webhook-timestamp is too far from the current time")
	ErrNoMatch          = errors.New("no signature matches")
	// ErrMalformedHeader is what every *HeaderError is: a header over its
	// limit, or an id that is not printable ASCII. The request is malformed
	// (400) rather than unauthenticated: it is refused before its signature
	// is looked at, signed or not.
	ErrMalformedHeader = errors.New("a webhook header is malformed")
)

// HeaderError is a webhook header over its limit or of bytes it may not
// hold. Its message names the header and the rule, never the value, so it is
// safe to log and to return.
type HeaderError struct {
	Header string // HeaderID, HeaderTimestamp or HeaderSignature
	Rule   string // "is longer than 256 bytes", …
}

func (e *HeaderError) Error() string { return e.Header + " " + e.Rule }

// Is makes every HeaderError an ErrMalformedHeader.
func (e *HeaderError) Is(target error) bool { return target == ErrMalformedHeader }

// CheckStandardHeaders makes the checks of VerifyStandard that need neither
// the body nor the clock, in its order: a secret configured (ErrNoSecret),
// the three headers present (ErrMissingHeaders), each within its limit and
// the id printable ASCII (a *HeaderError). Its cost does not grow with the
// headers' size (the id is scanned only once it is within its limit), so it
// runs before anything else is done with a request.
func CheckStandardHeaders(secrets []Secret, id, timestamp, signatures string) error {
	if len(secrets) == 0 {
		return ErrNoSecret
	}
	if id == "" || timestamp == "" || signatures == "" {
		return ErrMissingHeaders
	}
	for _, h := range []struct {
		name, value string
		max         int
	}{{HeaderID, id, MaxIDBytes}, {HeaderTimestamp, timestamp, MaxTimestampBytes}, {HeaderSignature, signatures, MaxSignatureBytes}} {
		if len(h.value) > h.max {
			return &HeaderError{Header: h.name, Rule: "is longer than " + strconv.Itoa(h.max) + " bytes"}
		}
	}
	if !PrintableASCII(id) {
		return &HeaderError{Header: HeaderID, Rule: "must be printable ASCII (0x20 to 0x7E)"}
	}
	return nil
}

// PrintableASCII reports whether every byte of s is in 0x20 to 0x7E: the
// rule for a webhook-id.
func PrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

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

// VerifyStandard checks a Standard Webhooks request: the headers
// (CheckStandardHeaders: with no secret it fails closed; a header over its
// limit is an ErrMalformedHeader), the timestamp within tolerance of now,
// and one of the space-separated v1 signatures made with one of the secrets
// over "<id>.<timestamp>.<raw body>", compared in constant time.
func VerifyStandard(secrets []Secret, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	if err := CheckStandardHeaders(secrets, id, timestamp, signatures); err != nil {
		return err
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
