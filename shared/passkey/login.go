package passkey

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/evs-kyb/evs/shared/domain"
)

// Login is a passkey sign-in verified: the operator, and their passkey as
// it is after this use.
type Login struct {
	Operator domain.Operator
	Passkey  domain.Passkey
}

// BeginLogin starts a discoverable sign-in: no user name asked, no
// credentials listed (the authenticator offers the person the passkeys it
// holds for the RP), user verification required. The answer is the
// options object PublicKeyCredential.parseRequestOptionsFromJSON takes.
func (s *Service) BeginLogin(ctx context.Context) (json.RawMessage, error) {
	rp, err := s.Config.relyingParty()
	if err != nil {
		return nil, err
	}
	challenge, err := s.random(challengeLen)
	if err != nil {
		return nil, err
	}
	assertion, session, err := rp.BeginDiscoverableLogin(webauthn.WithChallenge(challenge), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("passkey: begin login: %w", err)
	}
	return s.begun(ctx, domain.Ceremony{Purpose: PurposeLogin}, challenge, session, assertion.Response)
}

// FinishLogin verifies the browser's credential.toJSON() against a login
// ceremony, taken once: the user handle names the operator, the credential
// id their passkey (one read), and the passkey's counter must go up. A
// refusal says little on purpose: whoever fails here is not signed in.
func (s *Service) FinishLogin(ctx context.Context, response []byte) (Login, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return Login{}, domain.Errorf(domain.ECodeBadRequest, "The passkey's response is malformed: %s.", detail(err))
	}
	c, err := s.take(ctx, parsed.Response.CollectedClientData.Challenge, PurposeLogin)
	if err != nil {
		return Login{}, err
	}
	op, p, err := s.holder(ctx, parsed)
	if err != nil {
		return Login{}, err
	}
	if err := s.verifyLogin(c, op, p, parsed); err != nil {
		return Login{}, err
	}
	next, now := parsed.Response.AuthenticatorData.Counter, s.Clock.Now()
	if err := s.use(ctx, op, p, next, PurposeLogin, c.Hash); err != nil {
		return Login{}, err
	}
	p.SignCount, p.LastUsedAt = next, &now
	return Login{Operator: op, Passkey: p}, nil
}

// holder finds the active operator the user handle names and their
// passkey the credential id names.
func (s *Service) holder(ctx context.Context, parsed *protocol.ParsedCredentialAssertionData) (domain.Operator, domain.Passkey, error) {
	unknown := domain.Errorf(domain.ECodeForbidden, "This passkey is not registered with the service.")
	acct, id, ok := ParseUserHandle(parsed.Response.UserHandle)
	if !ok {
		return domain.Operator{}, domain.Passkey{}, unknown
	}
	op, err := s.Store.Operator(ctx, acct, id)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return op, domain.Passkey{}, unknown
	case err != nil:
		return op, domain.Passkey{}, fmt.Errorf("passkey: login: %w", err)
	case op.DisabledAt != nil:
		return op, domain.Passkey{}, disabled(op)
	}
	p, err := s.Store.Passkey(ctx, acct, id, parsed.RawID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return op, p, unknown
	case err != nil:
		return op, p, fmt.Errorf("passkey: login: %w", err)
	}
	return op, p, nil
}

// verifyLogin is go-webauthn's discoverable verification against the one
// passkey found, with user verification required whatever the session
// says, and the flag checked again on the assertion itself (go-webauthn's
// credential flags latch UV from registration).
func (s *Service) verifyLogin(c domain.Ceremony, op domain.Operator, p domain.Passkey, parsed *protocol.ParsedCredentialAssertionData) error {
	var session webauthn.SessionData
	if err := json.Unmarshal(c.Session, &session); err != nil {
		return fmt.Errorf("passkey: login ceremony %s: session data: %w", c.Hash, err)
	}
	session.UserVerification = protocol.VerificationRequired
	rp, err := s.Config.relyingParty()
	if err != nil {
		return err
	}
	holder := func(_, _ []byte) (webauthn.User, error) { return userOf(op, []domain.Passkey{p}), nil }
	if _, err := rp.ValidateDiscoverableLogin(holder, session, parsed); err != nil {
		return domain.Errorf(domain.ECodeForbidden, "The passkey's sign-in does not verify: %s.", detail(err))
	}
	if f := parsed.Response.AuthenticatorData.Flags; !f.HasUserPresent() || !f.HasUserVerified() {
		return domain.Errorf(domain.ECodeForbidden, "The passkey did not verify the person.")
	}
	return nil
}
