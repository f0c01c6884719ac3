package passkeytest

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// requestOptions is what Get reads of PublicKeyCredentialRequestOptionsJSON.
type requestOptions struct {
	Challenge        string           `json:"challenge"`
	AllowCredentials []descriptorJSON `json:"allowCredentials"`
}

// Get answers request options (the object parseRequestOptionsFromJSON
// takes) as AuthenticationResponseJSON, signed by the first credential
// held that the options allow (any, for a discoverable sign-in).
func (a *Authenticator) Get(options json.RawMessage) ([]byte, error) {
	return a.GetWith(options, nil)
}

// GetWith is Get with the person picking the credential (nil: the first
// allowed). The counter counts up unless NoCounter; the flags are the
// authenticator's as they stand.
func (a *Authenticator) GetWith(options json.RawMessage, credentialID []byte) ([]byte, error) {
	var o requestOptions
	if err := json.Unmarshal(options, &o); err != nil {
		return nil, fmt.Errorf("passkeytest: request options: %w", err)
	}
	if _, err := b64.DecodeString(o.Challenge); err != nil || o.Challenge == "" {
		return nil, errors.New("passkeytest: request options: challenge is not base64url")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.pick(o, credentialID)
	if c == nil {
		return nil, errors.New("passkeytest: NotAllowedError: no credential held answers these options")
	}
	var count uint32
	if !a.NoCounter {
		c.count++
		count = c.count
	}
	ad := authData(a.RPID, a.flags(), count, nil)
	cd := clientData("webauthn.get", o.Challenge, a.Origin)
	sig, err := ecdsa.SignASN1(a.random(), c.key, signed(ad, cd))
	if err != nil {
		return nil, fmt.Errorf("passkeytest: sign: %w", err)
	}
	handle := b64.EncodeToString(c.userHandle)
	return json.Marshal(authenticationJSON{ID: b64.EncodeToString(c.id), RawID: b64.EncodeToString(c.id), Type: "public-key",
		AuthenticatorAttachment: "platform",
		Response: assertionJSON{ClientDataJSON: b64.EncodeToString(cd), AuthenticatorData: b64.EncodeToString(ad),
			Signature: b64.EncodeToString(sig), UserHandle: &handle}})
}

// pick is the credential that answers: the one wanted if given and
// allowed, else the first held that is allowed.
func (a *Authenticator) pick(o requestOptions, want []byte) *credential {
	allowed := func(c *credential) bool {
		if len(o.AllowCredentials) == 0 {
			return true
		}
		return slices.ContainsFunc(o.AllowCredentials, func(d descriptorJSON) bool { return d.ID == b64.EncodeToString(c.id) })
	}
	for _, c := range a.creds {
		if allowed(c) && (want == nil || string(c.id) == string(want)) {
			return c
		}
	}
	return nil
}
