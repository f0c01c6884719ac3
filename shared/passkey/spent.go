package passkey

import (
	"context"
	"fmt"
)

// CheckSpent verifies a four-eyes maker's signature when the decision is
// applied, days after it was given: its ceremony was consumed, and its
// counter moved, when the decision began to wait (CheckSigned checked it
// then), and the pending approval kept its nonce. Checked again: the
// assertion verifies under the operator's stored key over the challenge
// that nonce and digest make; the user handle names the operator, active;
// the credential is still theirs; the backup-eligible flag is the
// passkey's. The counter is not compared: the maker's passkey may have
// signed in since. The pending approval, taken once by the decision's
// transaction, keeps the signature single-use. Refusals are
// domain.ECodeSignatureRequired.
func (s *Service) CheckSpent(ctx context.Context, a Assertion, accountID, operatorID int64, nonce []byte, digest string) (Signed, error) {
	if err := s.Config.Validate(); err != nil {
		return Signed{}, err
	}
	if len(nonce) == 0 {
		return Signed{}, fmt.Errorf("passkey: a spent signature of operator %d keeps no nonce", operatorID)
	}
	p, err := a.parse()
	if err != nil {
		return Signed{}, refuse("The signature is malformed: %s.", err)
	}
	if acct, id, ok := ParseUserHandle(p.Response.UserHandle); !ok || acct != accountID || id != operatorID {
		return Signed{}, refuse("The signature is not by the operator who decided.")
	}
	_, pk, err := s.signer(ctx, accountID, operatorID, p.RawID)
	if err != nil {
		return Signed{}, err
	}
	if err := verifyAssertion(pk.PublicKey, s.Config, p, SignedChallenge(nonce, digest)); err != nil {
		return Signed{}, err
	}
	if p.Response.AuthenticatorData.Flags.HasBackupEligible() != pk.BackupEligible {
		return Signed{}, refuse("The passkey's backup eligibility changed since it was registered.")
	}
	return Signed{AccountID: accountID, OperatorID: operatorID, Passkey: pk, NextCount: p.Response.AuthenticatorData.Counter,
		Nonce: nonce, Assertion: a}, nil
}
