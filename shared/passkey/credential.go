package passkey

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/evs-kyb/evs/shared/domain"
)

// user is an operator as go-webauthn sees one: a user handle, a name and
// the passkeys a ceremony may use.
type user struct {
	handle []byte
	name   string
	creds  []webauthn.Credential
}

func (u user) WebAuthnID() []byte                         { return u.handle }
func (u user) WebAuthnName() string                       { return u.name }
func (u user) WebAuthnDisplayName() string                { return u.name }
func (u user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func userOf(op domain.Operator, passkeys []domain.Passkey) user {
	u := user{handle: UserHandle(op.AccountID, op.ID), name: op.Name}
	if u.name == "" {
		// Browsers want a name to show beside the passkey.
		u.name = fmt.Sprintf("operator %d", op.ID)
	}
	for _, p := range passkeys {
		u.creds = append(u.creds, credentialOf(p))
	}
	return u
}

// asserting is what an assertion by one of op's own passkeys (a decision's
// signature, a step-up) begins with: op active, the relying party, and
// op's passkeys, at least one; otherwise conflict, saying there is
// nothing to do what with and the remedy.
func (s *Service) asserting(ctx context.Context, op domain.Operator, what, remedy string) (*webauthn.WebAuthn, []domain.Passkey, error) {
	if op.DisabledAt != nil {
		return nil, nil, disabled(op)
	}
	rp, err := s.Config.relyingParty()
	if err != nil {
		return nil, nil, err
	}
	passkeys, err := s.Store.Passkeys(ctx, op.AccountID, op.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("passkey: the passkeys of operator %d to %s: %w", op.ID, what, err)
	}
	if len(passkeys) == 0 {
		return nil, nil, domain.Errorf(domain.ECodeConflict, "Operator %d (%s) has no passkey to %s: %s.", op.ID, op.Name, what, remedy)
	}
	return rp, passkeys, nil
}

// credentialOf is a stored passkey as go-webauthn verifies against it.
func credentialOf(p domain.Passkey) webauthn.Credential {
	return webauthn.Credential{ID: p.ID, PublicKey: p.PublicKey, Transport: transports(p.Transports),
		Flags:         webauthn.CredentialFlags{UserPresent: true, UserVerified: true, BackupEligible: p.BackupEligible, BackupState: p.BackupState},
		Authenticator: webauthn.Authenticator{AAGUID: p.AAGUID, SignCount: p.SignCount}}
}

func transports(ts []string) []protocol.AuthenticatorTransport {
	out := make([]protocol.AuthenticatorTransport, 0, len(ts))
	for _, t := range ts {
		out = append(out, protocol.AuthenticatorTransport(t))
	}
	return out
}

func descriptors(passkeys []domain.Passkey) []protocol.CredentialDescriptor {
	out := make([]protocol.CredentialDescriptor, 0, len(passkeys))
	for _, p := range passkeys {
		out = append(out, protocol.CredentialDescriptor{Type: protocol.PublicKeyCredentialType, CredentialID: p.ID, Transport: transports(p.Transports)})
	}
	return out
}

// detail is what a go-webauthn refusal says, for the caller's message:
// its short description, never its debugging information (which may echo
// challenges).
func detail(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return pe.Details
	}
	return "it does not verify"
}
