package webhooks

import (
	"encoding/base64"
	"errors"
	"strconv"
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
