package passkey_test

import (
	"encoding/base64"
	"testing"

	"github.com/evs-kyb/evs/shared/passkey"
)

func TestClientChallenge(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	answer := func(clientDataJSON string) []byte {
		return []byte(`{"id":"abc","type":"public-key","response":{"clientDataJSON":"` + clientDataJSON + `"}}`)
	}
	tests := []struct {
		name, want string
		response   []byte
	}{
		{"the challenge clientDataJSON names", "Y2hhbGxlbmdl",
			answer(b64([]byte(`{"type":"webauthn.get","challenge":"Y2hhbGxlbmdl","origin":"https://evs.example"}`)))},
		{"no challenge in clientDataJSON", "", answer(b64([]byte(`{"type":"webauthn.get"}`)))},
		{"clientDataJSON not JSON", "", answer(b64([]byte(`not json`)))},
		{"clientDataJSON not base64url", "", answer("***")},
		{"clientDataJSON padded, as a browser never sends it", "", answer(base64.URLEncoding.EncodeToString([]byte(`{"challenge":"x"}`)))},
		{"no response", "", []byte(`{"id":"abc"}`)},
		{"not JSON at all", "", []byte(`{`)},
		{"nothing", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := passkey.ClientChallenge(tt.response); got != tt.want {
				t.Errorf("ClientChallenge(%s) = %q, want %q", tt.response, got, tt.want)
			}
		})
	}
}
