package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
)

// creationOptions is what Register reads of
// PublicKeyCredentialCreationOptionsJSON.
type creationOptions struct {
	User struct {
		ID string `json:"id"`
	} `json:"user"`
	Challenge        string `json:"challenge"`
	PubKeyCredParams []struct {
		Alg int `json:"alg"`
	} `json:"pubKeyCredParams"`
	ExcludeCredentials []descriptorJSON `json:"excludeCredentials"`
}

// Register answers creation options (the object
// parseCreationOptionsFromJSON takes) with a new discoverable ES256
// credential, attestation "none", as RegistrationResponseJSON. Like a
// browser it refuses options that exclude a credential it holds, or that
// do not offer ES256.
func (a *Authenticator) Register(options json.RawMessage) ([]byte, error) {
	var o creationOptions
	if err := json.Unmarshal(options, &o); err != nil {
		return nil, fmt.Errorf("passkeytest: creation options: %w", err)
	}
	user, err := b64.DecodeString(o.User.ID)
	if err != nil || len(user) == 0 {
		return nil, errors.New("passkeytest: creation options: user.id is not base64url")
	}
	if _, err := b64.DecodeString(o.Challenge); err != nil || o.Challenge == "" {
		return nil, errors.New("passkeytest: creation options: challenge is not base64url")
	}
	if !offersES256(o) {
		return nil, errors.New("passkeytest: NotSupportedError: ES256 is not among pubKeyCredParams")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range o.ExcludeCredentials {
		if id, err := b64.DecodeString(d.ID); err == nil && a.find(id) != nil {
			return nil, errors.New("passkeytest: InvalidStateError: the authenticator holds an excluded credential")
		}
	}
	c, err := a.newCredential(user)
	if err != nil {
		return nil, err
	}
	att, err := attested(a.AAGUID, c.id, &c.key.PublicKey)
	if err != nil {
		return nil, err
	}
	ad := authData(a.RPID, a.flags()|flagAT, c.count, att)
	obj, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": ad})
	if err != nil {
		return nil, fmt.Errorf("passkeytest: attestation object: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&c.key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("passkeytest: public key: %w", err)
	}
	a.creds = append(a.creds, c)
	return json.Marshal(registrationJSON{ID: b64.EncodeToString(c.id), RawID: b64.EncodeToString(c.id), Type: "public-key",
		AuthenticatorAttachment: "platform",
		Response: attestationJSON{ClientDataJSON: b64.EncodeToString(clientData("webauthn.create", o.Challenge, a.Origin)),
			AuthenticatorData: b64.EncodeToString(ad), Transports: []string{"hybrid", "internal"},
			PublicKey: b64.EncodeToString(spki), PublicKeyAlgorithm: coseES256, AttestationObject: b64.EncodeToString(obj)}})
}

func offersES256(o creationOptions) bool {
	for _, p := range o.PubKeyCredParams {
		if p.Alg == coseES256 {
			return true
		}
	}
	return false
}

func (a *Authenticator) newCredential(user []byte) (*credential, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), a.random())
	if err != nil {
		return nil, fmt.Errorf("passkeytest: key: %w", err)
	}
	id := make([]byte, 16)
	if _, err := io.ReadFull(a.random(), id); err != nil {
		return nil, fmt.Errorf("passkeytest: credential id: %w", err)
	}
	return &credential{id: id, userHandle: user, key: key}, nil
}
