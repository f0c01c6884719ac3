package webhooks

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestVerifyStandard(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	key := []byte("0123456789abcdef0123456789abcdef")
	secret, err := ParseSecret("whsec_" + base64.StdEncoding.EncodeToString(key))
	if err != nil || string(secret) != string(key) {
		t.Fatalf("ParseSecret = %q, %v", secret, err)
	}
	old, _ := ParseSecret("whsec_" + base64.StdEncoding.EncodeToString([]byte("old-secret")))
	body := []byte(`{"type":"screening.completed"}`)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := StandardSignature(secret, "msg_1", now.Unix(), body)
	tests := []struct {
		name    string
		secrets []Secret
		id, ts  string
		sigs    string
		body    []byte
		at      time.Time
		want    error
	}{
		{"valid", []Secret{secret}, "msg_1", ts, good, body, now, nil},
		{"one of several signatures", []Secret{secret}, "msg_1", ts, "v1,bm9wZQ== " + good, body, now, nil},
		{"during a rotation, the new secret", []Secret{old, secret}, "msg_1", ts, good, body, now, nil},
		{"no secret configured", nil, "msg_1", ts, good, body, now, ErrNoSecret},
		{"tampered body", []Secret{secret}, "msg_1", ts, good, []byte(`{"type":"x"}`), now, ErrNoMatch},
		{"other id", []Secret{secret}, "msg_2", ts, good, body, now, ErrNoMatch},
		{"wrong secret", []Secret{old}, "msg_1", ts, good, body, now, ErrNoMatch},
		{"too old", []Secret{secret}, "msg_1", ts, good, body, now.Add(6 * time.Minute), ErrOutsideTolerance},
		{"from the future", []Secret{secret}, "msg_1", ts, good, body, now.Add(-6 * time.Minute), ErrOutsideTolerance},
		{"within tolerance", []Secret{secret}, "msg_1", ts, good, body, now.Add(4 * time.Minute), nil},
		{"timestamp in milliseconds", []Secret{secret}, "msg_1", ts + "000", good, body, now, ErrOutsideTolerance},
		{"bad timestamp", []Secret{secret}, "msg_1", "yesterday", good, body, now, ErrBadTimestamp},
		{"missing signature", []Secret{secret}, "msg_1", ts, "", body, now, ErrMissingHeaders},
		// The limits hold before the signature is looked at: a signed
		// request over a limit is refused as one that is not.
		{"signed, id over its limit", []Secret{secret}, strings.Repeat("i", MaxIDBytes+1), ts,
			StandardSignature(secret, strings.Repeat("i", MaxIDBytes+1), now.Unix(), body), body, now, ErrMalformedHeader},
		{"signed, id at its limit", []Secret{secret}, strings.Repeat("i", MaxIDBytes), ts,
			StandardSignature(secret, strings.Repeat("i", MaxIDBytes), now.Unix(), body), body, now, nil},
		{"signed, id with a control byte", []Secret{secret}, "msg\x001", ts, StandardSignature(secret, "msg\x001", now.Unix(), body), body, now, ErrMalformedHeader},
		{"no secret, id over its limit", nil, strings.Repeat("i", MaxIDBytes+1), ts, good, body, now, ErrNoSecret},
		{"missing signature, id over its limit", []Secret{secret}, strings.Repeat("i", 100<<10), ts, "", body, now, ErrMissingHeaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyStandard(tt.secrets, tt.id, tt.ts, tt.sigs, tt.body, tt.at, DefaultTolerance)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestParseSecrets(t *testing.T) {
	s, err := ParseSecrets("whsec_" + base64.StdEncoding.EncodeToString([]byte("a")) + ", plain")
	if err != nil || len(s) != 2 || string(s[0]) != "a" || string(s[1]) != "plain" {
		t.Errorf("ParseSecrets = %q, %v", s, err)
	}
	if _, err := ParseSecrets(" "); !errors.Is(err, ErrNoSecret) {
		t.Errorf("empty: %v", err)
	}
	if _, err := ParseSecret("whsec_???"); err == nil {
		t.Error("bad base64 accepted")
	}
}

// The example of the Standard Webhooks specification and its libraries.
func TestStandardVector(t *testing.T) {
	secret, err := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := StandardSignature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("signature = %s, want %s", got, want)
	}
}

// TestCheckStandardHeaders: each header at its limit and one byte over it,
// and the bytes an id may hold; the refusal names the header and the rule,
// never the value.
func TestCheckStandardHeaders(t *testing.T) {
	secrets := []Secret{Secret("k")}
	const id, ts, sig = "msg_1", "1700000000", "v1,AAAA"
	type headers struct{ id, ts, sig string }
	tests := []struct {
		name string
		h    headers
		want string // the refusal's message; "" for none
	}{
		{"ordinary", headers{id, ts, sig}, ""},
		{"id at 256 bytes", headers{strings.Repeat("a", 256), ts, sig}, ""},
		{"id at 257 bytes", headers{strings.Repeat("a", 257), ts, sig}, "webhook-id is longer than 256 bytes"},
		{"id of 100 KB", headers{strings.Repeat("a", 100<<10), ts, sig}, "webhook-id is longer than 256 bytes"},
		{"timestamp at 32 bytes", headers{id, strings.Repeat("1", 32), sig}, ""},
		{"timestamp at 33 bytes", headers{id, strings.Repeat("1", 33), sig}, "webhook-timestamp is longer than 32 bytes"},
		{"signature at 4096 bytes", headers{id, ts, strings.Repeat("s", 4096)}, ""},
		{"signature at 4097 bytes", headers{id, ts, strings.Repeat("s", 4097)}, "webhook-signature is longer than 4096 bytes"},
		{"id with every printable byte", headers{printable(), ts, sig}, ""},
		{"id with NUL", headers{"msg\x00", ts, sig}, "webhook-id must be printable ASCII (0x20 to 0x7E)"},
		{"id with a newline", headers{"msg\n1", ts, sig}, "webhook-id must be printable ASCII (0x20 to 0x7E)"},
		{"id with a tab", headers{"msg\t1", ts, sig}, "webhook-id must be printable ASCII (0x20 to 0x7E)"},
		{"id with DEL", headers{"msg\x7f", ts, sig}, "webhook-id must be printable ASCII (0x20 to 0x7E)"},
		{"id with UTF-8", headers{"msg_é", ts, sig}, "webhook-id must be printable ASCII (0x20 to 0x7E)"},
		{"id of invalid UTF-8", headers{"msg_\xff", ts, sig}, "webhook-id must be printable ASCII (0x20 to 0x7E)"},
		// Only the id is stored and logged: the timestamp's and the
		// signatures' bytes are judged by parsing and comparing them.
		{"signature with a byte over 0x7E", headers{id, ts, "v1,AAAA v1,\xff"}, ""},
		{"timestamp with a newline", headers{id, ts + "\n", sig}, ""},
		{"id missing, signature over its limit", headers{"", ts, strings.Repeat("s", 4097)}, ErrMissingHeaders.Error()},
		// The first header over its limit is the one named.
		{"all over their limits", headers{strings.Repeat("a", 257), strings.Repeat("1", 33), strings.Repeat("s", 4097)}, "webhook-id is longer than 256 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckStandardHeaders(secrets, tt.h.id, tt.h.ts, tt.h.sig)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("err = %q, want %q", got, tt.want)
			}
			var he *HeaderError
			if malformed := errors.As(err, &he); malformed != errors.Is(err, ErrMalformedHeader) || malformed != (tt.want != "" && tt.want != ErrMissingHeaders.Error()) {
				t.Errorf("err %v: a *HeaderError %v, ErrMalformedHeader %v", err, malformed, errors.Is(err, ErrMalformedHeader))
			}
		})
	}
	if err := CheckStandardHeaders(nil, strings.Repeat("a", 257), ts, sig); !errors.Is(err, ErrNoSecret) {
		t.Errorf("no secret: %v, want ErrNoSecret first", err)
	}
}

// printable is every byte from 0x20 to 0x7E.
func printable() string {
	var b []byte
	for c := byte(0x20); c <= 0x7e; c++ {
		b = append(b, c)
	}
	return string(b)
}
