package portal

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"time"

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
	op, err := s.activeOperator(ctx, accountID, operatorID)
	if err != nil {
		return "", Session{}, err
	}
	return s.start(ctx, accountID, op, s.Clock.Now(), signIn{
		// One sign-in per session: the session names the action.
		actionID:     func(sessionID string) string { return "passkey-sign-in-" + sessionID },
		after:        map[string]any{"method": "passkey", "credential_id": base64.RawURLEncoding.EncodeToString(credentialID)},
		credentialID: slices.Clone(credentialID),
		write:        s.Store.StartPortalSession,
	})
}

// signIn is what sets one way of signing in apart: the action id and
// audited fields of the sign-in, what the session records of it, and the
// store's write of the session with its audit record.
type signIn struct {
	actionID     func(sessionID string) string
	after        map[string]any // besides the session's id and end
	enrolment    bool
	credentialID []byte
	write        func(ctx context.Context, ps domain.PortalSession, audit domain.AuditRecord) error
}

// start begins op's session at now, audited as their sign-in: the one way
// a session begins, whether a link or a passkey signs the operator in, so
// both sessions last alike and both sign-ins are audited alike.
func (s *Service) start(ctx context.Context, accountID int64, op domain.Operator, now time.Time, in signIn) (string, Session, error) {
	token, err := newToken(reader(s.Rand), SessionPrefix)
	if err != nil {
		return "", Session{}, err
	}
	ps := domain.PortalSession{Hash: hashToken(token), AccountID: accountID, OperatorID: op.ID,
		StartedAt: now, ExpiresAt: now.Add(SessionAbsolute), IdleUntil: now.Add(SessionIdle),
		Enrolment: in.enrolment, CredentialID: in.credentialID}
	after := maps.Clone(in.after)
	after["session_id"], after["expires_at"] = SessionID(ps.Hash), domain.FormatTime(ps.ExpiresAt)
	err = in.write(ctx, ps, domain.AuditRecord{
		AccountID: accountID, ActionID: in.actionID(SessionID(ps.Hash)), Action: domain.ActionPortalSignIn,
		OperatorID: op.ID, OperatorName: op.Name, At: now, After: after,
	})
	if err != nil {
		return "", Session{}, err
	}
	return token, sessionOf(ps, op), nil
}

// activeOperator is the operator who signs in, refused when disabled (the
// store's write checks again). not_found: no such operator.
func (s *Service) activeOperator(ctx context.Context, accountID, operatorID int64) (domain.Operator, error) {
	op, err := s.Store.Operator(ctx, accountID, operatorID)
	if err != nil {
		return op, err
	}
	if op.DisabledAt != nil {
		return op, disabled(op)
	}
	return op, nil
}
