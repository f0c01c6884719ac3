package receiver_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// FuzzVerifySignatureHeader parses X-Service-Signature headers (several
// lines, each a comma-separated list) and X-Service-Timestamp of any bytes.
// The answer is one of the declared errors and agrees with an independent
// reading: some part, trimmed, is "sha256=" and the hex (either case) of the
// body's HMAC under one of the secrets; then the timestamp, when sent, is an
// integer within the tolerance. A header that also lists the real
// signature is accepted (round trip); the same header over a changed body
// is judged afresh.
func FuzzVerifySignatureHeader(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	secrets := [][]byte{[]byte("evs_whsk_fuzz-old"), []byte("evs_whsk_fuzz-new")}
	v := &receiver.Verifier{Secrets: secrets, Tolerance: 5 * time.Minute, Now: func() time.Time { return now }}
	declared := []error{receiver.ErrMissingSignature, receiver.ErrBadSignature, receiver.ErrBadTimestamp, receiver.ErrStaleTimestamp}
	f.Fuzz(func(t *testing.T, signature string, body []byte, timestamp string) {
		h := http.Header{}
		if signature != "" {
			h[receiver.SignatureHeader] = strings.Split(signature, "\n")
		}
		if timestamp != "" {
			h[receiver.TimestampHeader] = []string{timestamp}
		}
		judge := func(h http.Header, body []byte) {
			t.Helper()
			err := v.Verify(h, body)
			if want := receiverVerdict(secrets, h, body, now); !errors.Is(err, want) {
				t.Fatalf("signature %q timestamp %q: %v, want %v", h.Values(receiver.SignatureHeader), timestamp, err, want)
			}
			if err != nil && !oneOf(err, declared) {
				t.Fatalf("undeclared refusal %v", err)
			}
		}
		judge(h, body)

		signed := h.Clone()
		signed.Add(receiver.SignatureHeader, "sha256="+hexMAC(secrets[1], body))
		if err := v.Verify(signed, body); err != nil && !errors.Is(err, receiver.ErrBadTimestamp) && !errors.Is(err, receiver.ErrStaleTimestamp) {
			t.Fatalf("a header listing the real signature refused: %v", err)
		}
		judge(signed, append(bytes.Clone(body), 0))
	})
}

// receiverVerdict is X-Service-Signature's rule, written out on its own:
// the error Verify should give, nil when it should accept.
func receiverVerdict(secrets [][]byte, h http.Header, body []byte, now time.Time) error {
	lines := h.Values(receiver.SignatureHeader)
	if len(lines) == 0 {
		return receiver.ErrMissingSignature
	}
	matched := false
	for _, line := range lines {
		for _, part := range strings.Split(line, ",") {
			digest, ok := strings.CutPrefix(strings.TrimSpace(part), "sha256=")
			for _, s := range secrets {
				matched = matched || (ok && strings.EqualFold(digest, hexMAC(s, body)))
			}
		}
	}
	if !matched {
		return receiver.ErrBadSignature
	}
	ts := strings.TrimSpace(h.Get(receiver.TimestampHeader))
	if ts == "" {
		return nil
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return receiver.ErrBadTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return receiver.ErrStaleTimestamp
	}
	return nil
}

func hexMAC(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func oneOf(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
