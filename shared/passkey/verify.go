package passkey

import (
	"encoding/base64"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/evs-kyb/evs/shared/domain"
)

// VerifyRecord is the check a regulator (and audit --verify) runs on a
// signed decision's audit record, with no store and no clock: the
// assertion's signature verifies under the operator's COSE public key over
// authenticatorData || SHA-256(clientDataJSON); clientDataJSON is a
// webauthn.get of challenge SignedChallenge(nonce, digest) from one of
// cfg's origins, not cross-origin; authenticatorData is for cfg's RP id,
// the person present (UP) and verified (UV). Refusals are
// domain.ECodeSignatureRequired. What it cannot check (that the
// credential and user handle are the operator's, the counter, the
// ceremony) CheckSigned checked when the signature was given.
func VerifyRecord(publicKey []byte, cfg Config, a Assertion, nonce []byte, digest string) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if len(nonce) == 0 {
		return refuse("The record carries no nonce.")
	}
	p, err := a.parse()
	if err != nil {
		return refuse("The signature is malformed: %s.", err)
	}
	return verifyAssertion(publicKey, cfg, p, SignedChallenge(nonce, digest))
}

// verifyAssertion is every check of an assertion that needs no store. The
// flags are checked again after go-webauthn's: that a signature without
// user verification never counts is the point of this package.
func verifyAssertion(publicKey []byte, cfg Config, p *protocol.ParsedCredentialAssertionData, challenge []byte) error {
	err := p.Verify(base64.RawURLEncoding.EncodeToString(challenge), cfg.RPID, "", cfg.Origins, nil, nil,
		protocol.TopOriginExplicitVerificationMode, false, true, true, publicKey,
		protocol.SignaturePolicy{ECDSAEncoding: protocol.ECDSASignatureEncodingDER})
	if err != nil {
		return refuse("The signature does not verify: %s.", detail(err))
	}
	if f := p.Response.AuthenticatorData.Flags; !f.HasUserPresent() || !f.HasUserVerified() {
		return refuse("The passkey did not verify the person.")
	}
	return nil
}

// refuse is a signature's refusal.
func refuse(format string, args ...any) error {
	return domain.Errorf(domain.ECodeSignatureRequired, format, args...)
}
