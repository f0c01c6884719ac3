package passkey

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
)

// passkeyName is the free text naming a passkey ("Work laptop").
var passkeyName = freetext.Kind{Name: "passkey name", Max: 100}

// BeginRegistration starts registering a passkey for an operator enrolling
// (an enrolment link's session; FinishRegistration finishes it). An
// operator signed in with a passkey adds another through a step-up
// instead (BeginStepUp, BeginAddition). The answer is the options object
// PublicKeyCredential.parseCreationOptionsFromJSON takes.
func (s *Service) BeginRegistration(ctx context.Context, op domain.Operator) (json.RawMessage, error) {
	return s.beginRegistration(ctx, op, PurposeRegister)
}

// beginRegistration begins a registration of purpose (register or add): a
// discoverable credential (so signing in needs no user name), user
// verification required, no attestation (the service trusts the person's
// verification, not a device model), and the operator's passkeys
// excluded so one authenticator is not registered twice.
func (s *Service) beginRegistration(ctx context.Context, op domain.Operator, purpose string) (json.RawMessage, error) {
	if op.DisabledAt != nil {
		return nil, disabled(op)
	}
	rp, err := s.Config.relyingParty()
	if err != nil {
		return nil, err
	}
	existing, err := s.Store.Passkeys(ctx, op.AccountID, op.ID)
	if err != nil {
		return nil, fmt.Errorf("passkey: begin registration: %w", err)
	}
	challenge, err := s.random(challengeLen)
	if err != nil {
		return nil, err
	}
	creation, session, err := rp.BeginRegistration(userOf(op, nil), webauthn.WithExclusions(descriptors(existing)), withCreationChallenge(challenge))
	if err != nil {
		return nil, fmt.Errorf("passkey: begin registration: %w", err)
	}
	return s.begun(ctx, domain.Ceremony{Purpose: purpose, AccountID: op.AccountID, OperatorID: op.ID}, challenge, session, creation.Response)
}

// withCreationChallenge makes go-webauthn use the service's challenge, so
// every challenge comes from Service.Rand.
func withCreationChallenge(challenge []byte) webauthn.RegistrationOption {
	return func(o *protocol.PublicKeyCredentialCreationOptions) error {
		o.Challenge = challenge
		return nil
	}
}

// begun keeps a register or login ceremony with go-webauthn's session
// data, and answers its options as JSON.
func (s *Service) begun(ctx context.Context, c domain.Ceremony, challenge []byte, session *webauthn.SessionData, options any) (json.RawMessage, error) {
	sess, err := json.Marshal(session)
	if err != nil {
		return nil, fmt.Errorf("passkey: session data: %w", err)
	}
	c.Session = sess
	if err := s.keep(ctx, c, challenge, CeremonyTTL); err != nil {
		return nil, err
	}
	out, err := json.Marshal(options)
	if err != nil {
		return nil, fmt.Errorf("passkey: options: %w", err)
	}
	return out, nil
}

// FinishRegistration verifies the browser's credential.toJSON() against
// the operator's register ceremony (BeginRegistration's), taken once, and
// stores the passkey with its audit record. Only the operator registers
// their own passkey: it is their authenticator that signs later.
func (s *Service) FinishRegistration(ctx context.Context, a domain.Actor, op domain.Operator, name string, response []byte) (domain.Passkey, error) {
	return s.finishRegistration(ctx, PurposeRegister, a, op, name, response)
}

// FinishAddition is FinishRegistration for a registration a step-up
// allowed (BeginAddition's ceremony, purpose add): a ceremony begun
// without one, an enrolment's included, is not found here.
func (s *Service) FinishAddition(ctx context.Context, a domain.Actor, op domain.Operator, name string, response []byte) (domain.Passkey, error) {
	return s.finishRegistration(ctx, PurposeAdd, a, op, name, response)
}

func (s *Service) finishRegistration(ctx context.Context, purpose string, a domain.Actor, op domain.Operator, name string, response []byte) (domain.Passkey, error) {
	name = strings.TrimSpace(name)
	switch {
	case a.AccountID != op.AccountID || a.OperatorID == 0 || a.OperatorID != op.ID:
		return domain.Passkey{}, domain.Errorf(domain.ECodeForbidden, "A passkey is registered by its own operator, signed in.")
	case strings.TrimSpace(a.ActionID) == "":
		return domain.Passkey{}, domain.Invalid("action_id", "can't be blank")
	case op.DisabledAt != nil:
		return domain.Passkey{}, disabled(op)
	}
	if err := freetext.Check("name", name, passkeyName, false); err != nil {
		return domain.Passkey{}, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return domain.Passkey{}, domain.Errorf(domain.ECodeBadRequest, "The passkey's registration response is malformed: %s.", detail(err))
	}
	c, err := s.take(ctx, parsed.Response.CollectedClientData.Challenge, purpose)
	if err != nil {
		return domain.Passkey{}, err
	}
	if c.AccountID != op.AccountID || c.OperatorID != op.ID {
		return domain.Passkey{}, domain.Errorf(domain.ECodeForbidden, "This registration was begun by another operator.")
	}
	cred, err := s.verifyRegistration(op, c, parsed)
	if err != nil {
		return domain.Passkey{}, err
	}
	existing, err := s.Store.Passkeys(ctx, op.AccountID, op.ID)
	if err != nil {
		return domain.Passkey{}, fmt.Errorf("passkey: finish registration: %w", err)
	}
	if name == "" {
		name = fmt.Sprintf("Passkey %d", len(existing)+1)
	}
	p := domain.Passkey{AccountID: op.AccountID, OperatorID: op.ID, ID: cred.ID, PublicKey: cred.PublicKey,
		SignCount: cred.Authenticator.SignCount, AAGUID: cred.Authenticator.AAGUID, Transports: transportNames(cred.Transport),
		BackupEligible: cred.Flags.BackupEligible, BackupState: cred.Flags.BackupState, Name: name, CreatedAt: s.Clock.Now()}
	err = s.Store.AddPasskey(ctx, p, domain.AuditRecord{
		AccountID: a.AccountID, ActionID: a.ActionID, Action: domain.ActionPasskeyAdd, OperatorID: op.ID, OperatorName: op.Name,
		RequestID: a.RequestID, At: p.CreatedAt,
		After: map[string]any{"operator_id": op.ID, "operator_name": op.Name, "credential_id": base64.RawURLEncoding.EncodeToString(p.ID),
			"name": p.Name, "aaguid": hex.EncodeToString(p.AAGUID), "backup_eligible": p.BackupEligible,
			// The account's own chain keeps every public key, hashed and
			// exported: a decision's signature is checked against it even
			// after the passkey is revoked, by us or by a regulator.
			"public_key": base64.RawURLEncoding.EncodeToString(p.PublicKey)},
	})
	if errors.Is(err, domain.ErrDuplicateAction) {
		return domain.Passkey{}, domain.Errorf(domain.ECodeConflict, "Action id %s was applied already: use a new one for a new passkey.", a.ActionID)
	}
	if err != nil {
		return domain.Passkey{}, err
	}
	return p, nil
}

// verifyRegistration is go-webauthn's verification with user verification
// required whatever the session says, and the flags checked again.
func (s *Service) verifyRegistration(op domain.Operator, c domain.Ceremony, parsed *protocol.ParsedCredentialCreationData) (*webauthn.Credential, error) {
	var session webauthn.SessionData
	if err := json.Unmarshal(c.Session, &session); err != nil {
		return nil, fmt.Errorf("passkey: register ceremony %s: session data: %w", c.Hash, err)
	}
	session.UserVerification = protocol.VerificationRequired
	rp, err := s.Config.relyingParty()
	if err != nil {
		return nil, err
	}
	cred, err := rp.CreateCredential(userOf(op, nil), session, parsed)
	if err != nil {
		return nil, domain.Errorf(domain.ECodeForbidden, "The passkey's registration does not verify: %s.", detail(err))
	}
	if f := parsed.Response.AttestationObject.AuthData.Flags; !f.HasUserPresent() || !f.HasUserVerified() {
		return nil, domain.Errorf(domain.ECodeForbidden, "The passkey did not verify the person.")
	}
	return cred, nil
}

func transportNames(ts []protocol.AuthenticatorTransport) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, string(t))
	}
	return out
}

func disabled(op domain.Operator) error {
	return domain.Errorf(domain.ECodeForbidden, "Operator %d (%s) is disabled.", op.ID, op.Name)
}
