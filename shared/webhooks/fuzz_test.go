package webhooks

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSecret signs the fuzzed webhooks: "whsec_" and the base64 of
// "evs-fuzz-standard-webhooks-key".
const fuzzSecret = "whsec_ZXZzLWZ1enotc3RhbmRhcmQtd2ViaG9va3Mta2V5"

// fuzzNow is the clock the fuzzed webhooks are verified at.
var fuzzNow = time.Unix(1_800_000_000, 0)

// FuzzVerifyStandard parses Standard Webhooks headers of any bytes. A
// refusal is one of the declared reasons, and it is nil exactly when an
// independent reading of the headers says so: all three present and within
// their limits (the id printable ASCII), the timestamp an integer within
// tolerance, and one space-separated signature equal to the one made over
// "<id>.<timestamp>.<body>"; a header over its limit is refused as
// malformed whatever it is signed with. A message signed at the current
// time verifies whatever else the header lists (round trip), as long as
// the headers stay within their limits; the same signature over a changed
// body does not.
func FuzzVerifyStandard(f *testing.F) {
	secret, err := ParseSecret(fuzzSecret)
	if err != nil {
		f.Fatal(err)
	}
	secrets := []Secret{secret}
	reasons := []error{ErrMissingHeaders, ErrMalformedHeader, ErrBadTimestamp, ErrOutsideTolerance, ErrNoMatch}
	f.Fuzz(func(t *testing.T, id, timestamp, signatures string, body []byte) {
		err := VerifyStandard(secrets, id, timestamp, signatures, body, fuzzNow, DefaultTolerance)
		if err != nil && !isOneOf(err, reasons) {
			t.Fatalf("undeclared refusal %v", err)
		}
		if want := standardVerdict(secret, id, timestamp, signatures, body); (err == nil) != want {
			t.Fatalf("id %q ts %q sigs %q: err %v, want accepted %v", id, timestamp, signatures, err, want)
		}
		if want := malformedHeaders(id, timestamp, signatures); errors.Is(err, ErrMalformedHeader) != want {
			t.Fatalf("id %q ts %q sigs %q: err %v, want malformed %v", id, timestamp, signatures, err, want)
		}

		now := strconv.FormatInt(fuzzNow.Unix(), 10)
		good := StandardSignature(secret, id, fuzzNow.Unix(), body)
		if id == "" || malformedHeaders(id, now, signatures+" "+good) {
			return
		}
		if err := VerifyStandard(secrets, id, now, signatures+" "+good, body, fuzzNow, DefaultTolerance); err != nil {
			t.Fatalf("a signed message with header %q refused: %v", signatures+" "+good, err)
		}
		changed := append(bytes.Clone(body), '!')
		if err := VerifyStandard(secrets, id, now, good, changed, fuzzNow, DefaultTolerance); !errors.Is(err, ErrNoMatch) {
			t.Fatalf("a changed body verified: %v", err)
		}
	})
}

// standardVerdict is the Standard Webhooks rule, written out on its own.
func standardVerdict(secret Secret, id, timestamp, signatures string, body []byte) bool {
	if id == "" || timestamp == "" || signatures == "" || malformedHeaders(id, timestamp, signatures) {
		return false
	}
	ts, err := strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return false
	}
	if d := fuzzNow.Sub(time.Unix(ts, 0)); d > DefaultTolerance || d < -DefaultTolerance {
		return false
	}
	want := StandardSignature(secret, id, ts, body)
	for _, sig := range strings.Fields(signatures) {
		if sig == want {
			return true
		}
	}
	return false
}

func isOneOf(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// malformedHeaders is the header limits' rule, written out on its own: all
// three present, and one over 256, 32 or 4,096 bytes or an id with a byte
// outside 0x20 to 0x7E.
func malformedHeaders(id, timestamp, signatures string) bool {
	if id == "" || timestamp == "" || signatures == "" {
		return false
	}
	if len(id) > 256 || len(timestamp) > 32 || len(signatures) > 4096 {
		return true
	}
	for _, c := range []byte(id) {
		if c < ' ' || c > '~' {
			return true
		}
	}
	return false
}
