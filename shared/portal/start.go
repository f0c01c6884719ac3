package portal

import (
	"context"
	"encoding/base64"
	"slices"

	"github.com/evs-kyb/evs/shared/domain"
)

// StartSession starts a session for an operator who proved themself with
// a passkey (the console's sign-in, or the end of an enrolment): no link
// is used, the session records the credential, and the sign-in is audited
// under the session's id. The caller verified the passkey; this checks
// only that the operator is active, here and again in the write.
// not_found: no such operator; validation_failed: operator disabled or
// no credential.
func (s *Service) StartSession(ctx context.Context, accountID, operatorID int64, credentialID []byte) (string, Session, error) {
	if len(credentialID) == 0 {
		return "", Session{}, domain.Invalid("credential_id", "is required")
	}
	op, err := s.Store.Operator(ctx, accountID, operatorID)
	switch {
	case err != nil:
		return "", Session{}, err
	case op.DisabledAt != nil:
		return "", Session{}, disabled(op)
	}
	token, err := newToken(reader(s.Rand), SessionPrefix)
	if err != nil {
		return "", Session{}, err
	}
	now := s.Clock.Now()
	ps := domain.PortalSession{Hash: hashToken(token), AccountID: accountID, OperatorID: op.ID,
		StartedAt: now, ExpiresAt: now.Add(SessionAbsolute), IdleUntil: now.Add(SessionIdle), CredentialID: slices.Clone(credentialID)}
	err = s.Store.StartPortalSession(ctx, ps, domain.AuditRecord{
		// One sign-in per session: the session names the action.
		AccountID: accountID, ActionID: "passkey-sign-in-" + SessionID(ps.Hash), Action: domain.ActionPortalSignIn,
		OperatorID: op.ID, OperatorName: op.Name, At: now,
		After: map[string]any{"method": "passkey", "credential_id": base64.RawURLEncoding.EncodeToString(credentialID),
			"session_id": SessionID(ps.Hash), "expires_at": domain.FormatTime(ps.ExpiresAt)},
	})
	if err != nil {
		return "", Session{}, err
	}
	return token, sessionOf(ps, op), nil
}
