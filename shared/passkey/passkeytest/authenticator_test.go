package passkeytest_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

const creation = `{"rp":{"id":"localhost","name":"EVS"},"user":{"id":"AAAAAAAAAAEAAAAAAAAAAg","name":"a","displayName":"a"},
"challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0wMDAwMDAwMDAw","pubKeyCredParams":[{"type":"public-key","alg":-7}]}`

// request is request options allowing the credentials given (none: a
// discoverable sign-in).
func request(allow ...[]byte) json.RawMessage {
	o := map[string]any{"challenge": "Y2hhbGxlbmdlLWNoYWxsZW5nZS0wMDAwMDAwMDAx", "rpId": "localhost", "userVerification": "required"}
	var ds []map[string]string
	for _, id := range allow {
		ds = append(ds, map[string]string{"type": "public-key", "id": base64.RawURLEncoding.EncodeToString(id)})
	}
	if len(ds) > 0 {
		o["allowCredentials"] = ds
	}
	b, _ := json.Marshal(o)
	return b
}

// The authenticator's answers are what go-webauthn parses a browser's as,
// with the flags and counters it was told to present.
func TestAuthenticator(t *testing.T) {
	a := passkeytest.New("http://localhost:3000", "localhost")
	reg, err := a.Register(json.RawMessage(creation))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := protocol.ParseCredentialCreationResponseBytes(reg)
	if err != nil {
		t.Fatalf("registration response: %v\n%s", err, reg)
	}
	if f := pc.Response.AttestationObject.AuthData.Flags; !f.HasUserPresent() || !f.HasUserVerified() || pc.Response.AttestationObject.Format != "none" {
		t.Errorf("registration: flags %08b, fmt %s", f, pc.Response.AttestationObject.Format)
	}
	other := passkeytest.New("http://localhost:3000", "localhost")
	if _, err := other.Register(json.RawMessage(creation)); err != nil {
		t.Fatal(err)
	}
	id, otherID := a.Credentials()[0].ID, other.Credentials()[0].ID
	clone := a.Clone()
	clone.UV = false

	for _, tc := range []struct {
		name    string
		auth    *passkeytest.Authenticator
		opts    json.RawMessage
		count   uint32
		uv      bool
		refused bool
	}{
		{"discoverable", a, request(), 1, true, false},
		{"allowed", a, request(otherID, id), 2, true, false},
		{"not allowed", a, request(otherID), 0, false, true},
		{"a clone counts on its own, UV clear", clone, request(), 1, false, false},
		{"the original again", a, request(), 3, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.auth.Get(tc.opts)
			if (err != nil) != tc.refused {
				t.Fatalf("Get: %v", err)
			}
			if tc.refused {
				return
			}
			p, err := protocol.ParseCredentialRequestResponseBytes(resp)
			if err != nil {
				t.Fatalf("assertion: %v\n%s", err, resp)
			}
			if d := p.Response.AuthenticatorData; d.Counter != tc.count || d.Flags.HasUserVerified() != tc.uv || string(p.RawID) != string(id) {
				t.Errorf("counter %d, flags %08b, id %x", d.Counter, d.Flags, p.RawID)
			}
			forged, err := passkeytest.ForgeFlags(resp, passkeytest.FlagUV, passkeytest.FlagUP)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := protocol.ParseCredentialRequestResponseBytes(forged); err != nil || !f.Response.AuthenticatorData.Flags.HasUserVerified() ||
				f.Response.AuthenticatorData.Flags.HasUserPresent() || string(f.Response.Signature) != string(p.Response.Signature) {
				t.Errorf("forged: %v", err)
			}
		})
	}
	if _, err := a.Register(json.RawMessage(`{"user":{"id":"AQ"},"challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0wMDAwMDAwMDAw","pubKeyCredParams":[{"type":"public-key","alg":-257}]}`)); err == nil {
		t.Error("registered without ES256 offered")
	}
}
