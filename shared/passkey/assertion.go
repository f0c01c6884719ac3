package passkey

import (
	"encoding/base64"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/evs-kyb/evs/shared/domain"
)

// Assertion is a WebAuthn assertion as the decision documents carry it:
// every field base64url without padding. It is all a verifier needs
// beside the public key, the nonce and the digest.
type Assertion struct {
	CredentialID      string `json:"credential_id"`
	AuthenticatorData string `json:"authenticator_data"`
	ClientDataJSON    string `json:"client_data_json"`
	Signature         string `json:"signature"`
	UserHandle        string `json:"user_handle"`
}

// AssertionFromResponse takes the assertion out of the browser's
// credential.toJSON() (of a get). bad_request: it is malformed.
func AssertionFromResponse(response []byte) (Assertion, error) {
	p, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return Assertion{}, domain.Errorf(domain.ECodeBadRequest, "The passkey's response is malformed: %s.", detail(err))
	}
	if len(p.Response.Signature) == 0 {
		return Assertion{}, domain.Errorf(domain.ECodeBadRequest, "The passkey's response carries no signature.")
	}
	enc := base64.RawURLEncoding.EncodeToString
	return Assertion{CredentialID: enc(p.RawID), AuthenticatorData: enc(p.Raw.AssertionResponse.AuthenticatorData),
		ClientDataJSON: enc(p.Raw.AssertionResponse.ClientDataJSON), Signature: enc(p.Response.Signature),
		UserHandle: enc(p.Response.UserHandle)}, nil
}

// parse decodes the assertion strictly (one spelling per byte string) into
// go-webauthn's form.
func (a Assertion) parse() (*protocol.ParsedCredentialAssertionData, error) {
	var id, authData, clientData, sig, handle []byte
	for _, f := range []struct {
		name, v string
		out     *[]byte
	}{
		{"credential_id", a.CredentialID, &id}, {"authenticator_data", a.AuthenticatorData, &authData},
		{"client_data_json", a.ClientDataJSON, &clientData}, {"signature", a.Signature, &sig}, {"user_handle", a.UserHandle, &handle},
	} {
		b, err := base64.RawURLEncoding.Strict().DecodeString(f.v)
		if err != nil {
			return nil, fmt.Errorf("%s is not base64url without padding", f.name)
		}
		*f.out = b
	}
	car := protocol.CredentialAssertionResponse{
		PublicKeyCredential: protocol.PublicKeyCredential{
			Credential: protocol.Credential{ID: a.CredentialID, Type: string(protocol.PublicKeyCredentialType)},
			RawID:      id,
		},
		AssertionResponse: protocol.AuthenticatorAssertionResponse{
			AuthenticatorResponse: protocol.AuthenticatorResponse{ClientDataJSON: clientData},
			AuthenticatorData:     authData, Signature: sig, UserHandle: handle,
		},
	}
	p, err := car.Parse()
	if err != nil {
		return nil, fmt.Errorf("its client data or authenticator data is malformed (%s)", detail(err))
	}
	return p, nil
}
