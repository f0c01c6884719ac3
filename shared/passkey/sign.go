package passkey

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/evs-kyb/evs/shared/domain"
)

// signedDomain separates decision challenges from any other use of a
// SHA-256: the version names the construction, should it ever change.
const signedDomain = "evs-decision-v1\n"

// SignedChallenge is the challenge a decision's passkey signs:
// SHA-256("evs-decision-v1\n" || nonce || "\n" || digest), the digest as
// its ASCII hex. The nonce makes every signing ceremony's challenge fresh;
// the digest binds the signature to the decision document. Exported so a
// regulator's verifier (and audit --verify) recomputes it.
func SignedChallenge(nonce []byte, digest string) []byte {
	h := sha256.New()
	h.Write([]byte(signedDomain))
	h.Write(nonce)
	h.Write([]byte("\n"))
	h.Write([]byte(digest))
	return h.Sum(nil)
}

// signingSession is what a decision's or approval's ceremony keeps beside
// its operator and digest: the nonce, without which the challenge cannot
// be recomputed.
type signingSession struct {
	Nonce []byte `json:"nonce"`
}

// BeginSigning starts the operator's signature over a decision document's
// digest (purpose decision or approval): one of their own passkeys, user
// verification required. The answer is the options object
// PublicKeyCredential.parseRequestOptionsFromJSON takes.
func (s *Service) BeginSigning(ctx context.Context, op domain.Operator, purpose, digest string) (json.RawMessage, error) {
	switch {
	case !signingPurpose(purpose):
		return nil, domain.Invalid("purpose", fmt.Sprintf("must be %s or %s", PurposeDecision, PurposeApproval))
	case !wellFormedDigest(digest):
		return nil, domain.Invalid("digest", "must be a SHA-256 in lowercase hex")
	}
	rp, passkeys, err := s.asserting(ctx, op, "sign with", "register one first")
	if err != nil {
		return nil, err
	}
	nonce, err := s.random(challengeLen)
	if err != nil {
		return nil, err
	}
	challenge := SignedChallenge(nonce, digest)
	assertion, _, err := rp.BeginLogin(userOf(op, passkeys), webauthn.WithChallenge(challenge), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("passkey: begin signing: %w", err)
	}
	sess, err := json.Marshal(signingSession{Nonce: nonce})
	if err != nil {
		return nil, fmt.Errorf("passkey: signing session: %w", err)
	}
	c := domain.Ceremony{Purpose: purpose, AccountID: op.AccountID, OperatorID: op.ID, Session: sess, Digest: digest}
	if err := s.keep(ctx, c, challenge, SigningTTL); err != nil {
		return nil, err
	}
	out, err := json.Marshal(assertion.Response)
	if err != nil {
		return nil, fmt.Errorf("passkey: options: %w", err)
	}
	return out, nil
}

func signingPurpose(p string) bool { return p == PurposeDecision || p == PurposeApproval }

// wellFormedDigest: a SHA-256 as lowercase hex, the one spelling, so the
// challenge a verifier recomputes from it is the one signed.
func wellFormedDigest(d string) bool {
	if len(d) != 2*sha256.Size {
		return false
	}
	for _, r := range d {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
