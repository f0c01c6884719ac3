package passkey

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/evs-kyb/evs/shared/domain"
)

// An operator signed in with a passkey adds another only after a step-up:
// a fresh assertion, user verified, by one of the passkeys they hold. A
// session alone (its cookie and its page's CSRF token) is not enough: a
// stolen cookie would otherwise become a passkey of its own, which signs
// decisions and outlives the session. The step-up is bound to the one
// registration it allows: BeginAddition takes its ceremony once and begins
// a registration of purpose add, which only FinishAddition finishes; both
// ceremonies live CeremonyTTL.

// BeginStepUp starts the step-up: an assertion by one of op's passkeys
// (listed, so the browser offers only those), user verification
// required. The answer is the options object
// PublicKeyCredential.parseRequestOptionsFromJSON takes.
func (s *Service) BeginStepUp(ctx context.Context, op domain.Operator) (json.RawMessage, error) {
	rp, passkeys, err := s.asserting(ctx, op, "confirm with", "ask for an enrolment link")
	if err != nil {
		return nil, err
	}
	challenge, err := s.random(challengeLen)
	if err != nil {
		return nil, err
	}
	assertion, session, err := rp.BeginLogin(userOf(op, passkeys), webauthn.WithChallenge(challenge), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("passkey: begin step-up: %w", err)
	}
	return s.begun(ctx, domain.Ceremony{Purpose: PurposeStepUp, AccountID: op.AccountID, OperatorID: op.ID}, challenge, session, assertion.Response)
}

// BeginAddition checks the step-up, the browser's credential.toJSON() of
// BeginStepUp's ceremony (taken once, whatever follows), and begins
// registering a further passkey for op: a ceremony of purpose add, which
// FinishAddition finishes. Refusals are forbidden (bad_request for a
// malformed answer) and begin nothing.
func (s *Service) BeginAddition(ctx context.Context, op domain.Operator, stepUp []byte) (json.RawMessage, error) {
	if op.DisabledAt != nil {
		return nil, disabled(op)
	}
	if err := s.stepUp(ctx, op, stepUp); err != nil {
		return nil, err
	}
	return s.beginRegistration(ctx, op, PurposeAdd)
}

// stepUp verifies a step-up: its ceremony, begun for op and not taken
// before; the credential op's own (and the user handle, when the
// authenticator gives one, op's); the assertion over the ceremony's
// challenge from one of the relying party's origins, the person present
// and verified; the counter going up, recorded as a sign-in's is.
func (s *Service) stepUp(ctx context.Context, op domain.Operator, response []byte) error {
	if err := s.Config.Validate(); err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return domain.Errorf(domain.ECodeBadRequest, "The passkey's response is malformed: %s.", detail(err))
	}
	encoded := parsed.Response.CollectedClientData.Challenge
	c, err := s.take(ctx, encoded, PurposeStepUp)
	if err != nil {
		return err
	}
	if c.AccountID != op.AccountID || c.OperatorID != op.ID {
		return domain.Errorf(domain.ECodeForbidden, "This confirmation was begun by another operator.")
	}
	if h := parsed.Response.UserHandle; len(h) > 0 {
		if acct, id, ok := ParseUserHandle(h); !ok || acct != op.AccountID || id != op.ID {
			return domain.Errorf(domain.ECodeForbidden, "This passkey is another operator's.")
		}
	}
	p, err := s.Store.Passkey(ctx, op.AccountID, op.ID, parsed.RawID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return domain.Errorf(domain.ECodeForbidden, "This passkey is not one of yours (or was removed).")
	case err != nil:
		return fmt.Errorf("passkey: step-up: %w", err)
	}
	challenge, _ := challengeOf(encoded) // take decoded it
	if err := verifyAssertion(p.PublicKey, s.Config, parsed, challenge); err != nil {
		return domain.Errorf(domain.ECodeForbidden, "The confirmation does not verify: %s", domain.ErrorMessage(err))
	}
	return s.use(ctx, op, p, parsed.Response.AuthenticatorData.Counter, PurposeStepUp, c.Hash)
}
