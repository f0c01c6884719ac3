package passkey

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// advances reports whether a use presenting counter next may follow the
// use that left stored: the counter must go up, unless the authenticator
// keeps none (both zero, as synced passkeys do). A counter that does not
// go up is the mark of a cloned authenticator or of a replay.
func advances(stored, next uint32) bool {
	return next > stored || (stored == 0 && next == 0)
}

// use records a sign-in's (or a step-up's: purpose) use of p, refusing a
// counter that does not go up and one another use moved meanwhile (of two
// uses verified against the same counter only one lands).
func (s *Service) use(ctx context.Context, op domain.Operator, p domain.Passkey, next uint32, purpose, ceremony string) error {
	if !advances(p.SignCount, next) {
		return s.regressed(ctx, op, p, next, purpose, ceremony, domain.ECodeForbidden)
	}
	err := s.Store.UsePasskey(ctx, p, next, s.Clock.Now())
	if !errors.Is(err, domain.ErrStale) {
		if err != nil {
			return fmt.Errorf("passkey: record use: %w", err)
		}
		return nil
	}
	// Removed meanwhile, or used meanwhile with the same counter.
	if _, err := s.Store.Passkey(ctx, p.AccountID, p.OperatorID, p.ID); domain.ErrorCode(err) == domain.ECodeNotFound {
		return domain.Errorf(domain.ECodeForbidden, "This passkey was removed.")
	}
	return s.regressed(ctx, op, p, next, purpose, ceremony, domain.ECodeForbidden)
}

// regressed puts the refusal of a counter that did not go up on the
// record, naming the operator and the credential, and answers the refusal
// with code. The action id is the ceremony's: checking the same signature
// again records nothing more.
func (s *Service) regressed(ctx context.Context, op domain.Operator, p domain.Passkey, next uint32, purpose, ceremony, code string) error {
	err := s.Store.PutAudit(ctx, domain.AuditRecord{
		AccountID: p.AccountID, ActionID: "passkey-sign-count-" + ceremony, Action: domain.ActionPasskeyCounterRegressed,
		OperatorID: op.ID, OperatorName: op.Name, At: s.Clock.Now(),
		After: map[string]any{"operator_id": op.ID, "operator_name": op.Name, "credential_id": base64.RawURLEncoding.EncodeToString(p.ID),
			"passkey_name": p.Name, "stored_count": p.SignCount, "presented_count": next, "purpose": purpose},
	})
	if err != nil && !errors.Is(err, domain.ErrDuplicateAction) {
		return fmt.Errorf("passkey: record a counter that went back: %w", err)
	}
	return domain.Errorf(code, "This passkey's signature counter did not go up (%d after %d): it may have been copied. The use was refused and recorded.", next, p.SignCount)
}
