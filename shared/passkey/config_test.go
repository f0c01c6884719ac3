package passkey_test

import (
	"testing"

	"github.com/evs-kyb/evs/shared/passkey"
)

// Validate takes a domain RP id with origins on it, and refuses what a
// browser would not serve.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rpID    string
		origins []string
		ok      bool
	}{
		{"localhost", "localhost", []string{"http://localhost:3000"}, true},
		{"custom domain and a subdomain", "evs.example.com", []string{"https://evs.example.com", "https://console.evs.example.com:8443"}, true},
		{"IPv4 RP id", "127.0.0.1", []string{"http://127.0.0.1:3000"}, false},
		{"IPv6 RP id", "::1", []string{"http://[::1]:3000"}, false},
		{"RP id with a port", "localhost:3000", []string{"http://localhost:3000"}, false},
		{"RP id with a scheme", "https://evs.example.com", []string{"https://evs.example.com"}, false},
		{"uppercase RP id", "EVS.example.com", []string{"https://evs.example.com"}, false},
		{"empty RP id", "", []string{"http://localhost:3000"}, false},
		{"no origins", "localhost", nil, false},
		{"origin on another domain", "evs.example.com", []string{"https://evil.example.org"}, false},
		{"origin merely ending like the RP id", "example.com", []string{"https://notexample.com"}, false},
		{"origin on the parent domain", "evs.example.com", []string{"https://example.com"}, false},
		{"plain http off localhost", "evs.example.com", []string{"http://evs.example.com"}, false},
		{"origin with a path", "localhost", []string{"http://localhost:3000/settings"}, false},
		{"origin without a scheme", "localhost", []string{"localhost:3000"}, false},
		{"one good origin and one bad", "localhost", []string{"http://localhost:3000", "https://evil.example"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := passkey.Config{RPID: tc.rpID, RPDisplayName: "EVS", Origins: tc.origins}.Validate()
			if (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok %v", err, tc.ok)
			}
		})
	}
	if err := (passkey.Config{RPID: "localhost", Origins: []string{"http://localhost:3000"}}).Validate(); err == nil {
		t.Error("a config without a display name was taken")
	}
}

// A user handle is 16 bytes, account then operator, and reads back; any
// other bytes are not one.
func TestUserHandle(t *testing.T) {
	h := passkey.UserHandle(7, 1<<40+3)
	if len(h) != 16 {
		t.Fatalf("len = %d", len(h))
	}
	if a, o, ok := passkey.ParseUserHandle(h); !ok || a != 7 || o != 1<<40+3 {
		t.Errorf("ParseUserHandle = %d, %d, %v", a, o, ok)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short", h[:15]},
		{"long", append(append([]byte{}, h...), 0)},
		{"no account", passkey.UserHandle(0, 3)},
		{"no operator", passkey.UserHandle(7, 0)},
		{"negative", passkey.UserHandle(-1, 3)},
	} {
		if _, _, ok := passkey.ParseUserHandle(tc.b); ok {
			t.Errorf("%s: read as a user handle", tc.name)
		}
	}
}
