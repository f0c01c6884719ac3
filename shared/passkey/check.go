package passkey

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// Signed is an assertion found valid for a decision.
type Signed struct {
	AccountID, OperatorID int64
	// Passkey is as stored before this use.
	Passkey domain.Passkey
	// NextCount is the counter the assertion carries: the decision's
	// transaction records it, conditioned on Passkey.SignCount (or, for a
	// four-eyes maker, the write that records the wait).
	NextCount uint32
	// CeremonyHash is the hex SHA-256 of the challenge: the ceremony the
	// decision's transaction consumes ("" for a signature CheckSpent
	// checked, whose ceremony was consumed already).
	CeremonyHash string
	Nonce        []byte
	Assertion    Assertion
}

// CheckSigned verifies an assertion given for a decision (purpose
// decision) or its second approval (purpose approval) over digest, in the
// account, and consumes nothing: the decision consumes the ceremony and
// records the counter in its own transaction, conditioned on the value
// read here, so a refused decision leaves the signature usable (for the
// rest of its ceremony's minutes: SigningTTL) and an applied one leaves it
// spent. Checked: the
// ceremony exists, is of purpose, over digest, in the account and not past
// its end; the user handle names the ceremony's operator, active; the
// credential is that operator's; VerifyRecord's checks under the stored
// key; the backup-eligible flag is the passkey's; the counter goes up
// (a refusal of one that does not is recorded). Refusals are
// domain.ECodeSignatureRequired.
func (s *Service) CheckSigned(ctx context.Context, a Assertion, accountID int64, purpose, digest string) (Signed, error) {
	if !signingPurpose(purpose) {
		return Signed{}, fmt.Errorf("passkey: %q is not a signing purpose", purpose)
	}
	if err := s.Config.Validate(); err != nil {
		return Signed{}, err
	}
	p, err := a.parse()
	if err != nil {
		return Signed{}, refuse("The signature is malformed: %s.", err)
	}
	challenge, ok := challengeOf(p.Response.CollectedClientData.Challenge)
	if !ok {
		return Signed{}, refuse("The signature carries no challenge.")
	}
	c, err := s.signing(ctx, ceremonyHash(challenge), accountID, purpose, digest)
	if err != nil {
		return Signed{}, err
	}
	acct, id, ok := ParseUserHandle(p.Response.UserHandle)
	if !ok || acct != c.AccountID || id != c.OperatorID {
		return Signed{}, refuse("The signature is not by the operator who began it.")
	}
	op, pk, err := s.signer(ctx, acct, id, p.RawID)
	if err != nil {
		return Signed{}, err
	}
	var sess signingSession
	if err := json.Unmarshal(c.Session, &sess); err != nil || len(sess.Nonce) == 0 {
		return Signed{}, fmt.Errorf("passkey: signing ceremony %s keeps no nonce (%v)", c.Hash, err)
	}
	if err := verifyAssertion(pk.PublicKey, s.Config, p, SignedChallenge(sess.Nonce, digest)); err != nil {
		return Signed{}, err
	}
	flags := p.Response.AuthenticatorData.Flags
	if flags.HasBackupEligible() != pk.BackupEligible {
		// Fixed for a credential's life: another authenticator answers.
		return Signed{}, refuse("The passkey's backup eligibility changed since it was registered.")
	}
	next := p.Response.AuthenticatorData.Counter
	if !advances(pk.SignCount, next) {
		return Signed{}, s.regressed(ctx, op, pk, next, purpose, c.Hash, domain.ECodeSignatureRequired)
	}
	return Signed{AccountID: acct, OperatorID: id, Passkey: pk, NextCount: next, CeremonyHash: c.Hash, Nonce: sess.Nonce, Assertion: a}, nil
}

// signing is the ceremony under hash if it may sign digest for purpose in
// the account now.
func (s *Service) signing(ctx context.Context, hash string, accountID int64, purpose, digest string) (domain.Ceremony, error) {
	c, err := s.Store.Ceremony(ctx, hash)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return c, refuse("No signing ceremony for this signature: it was used already, expired, or never begun.")
	case err != nil:
		return c, fmt.Errorf("passkey: check signature: %w", err)
	case c.Purpose != purpose:
		return c, refuse("This signature was made for another purpose (%s, not %s).", c.Purpose, purpose)
	case c.AccountID != accountID:
		return c, refuse("This signature was made in another account.")
	case c.Digest != digest:
		return c, refuse("This signature is over another document.")
	case !s.Clock.Now().Before(c.ExpiresAt):
		return c, refuse("The signing ceremony expired: sign again.")
	}
	return c, nil
}

// signer is the active operator and their passkey credentialID names.
func (s *Service) signer(ctx context.Context, accountID, operatorID int64, credentialID []byte) (domain.Operator, domain.Passkey, error) {
	op, err := s.Store.Operator(ctx, accountID, operatorID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return op, domain.Passkey{}, refuse("The signing operator no longer exists.")
	case err != nil:
		return op, domain.Passkey{}, fmt.Errorf("passkey: check signature: %w", err)
	case op.DisabledAt != nil:
		return op, domain.Passkey{}, refuse("Operator %d (%s) is disabled.", op.ID, op.Name)
	}
	pk, err := s.Store.Passkey(ctx, accountID, operatorID, credentialID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return op, pk, refuse("The passkey is not the signing operator's (or was removed).")
	case err != nil:
		return op, pk, fmt.Errorf("passkey: check signature: %w", err)
	}
	return op, pk, nil
}
