package store

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// signatureWrites adds to a decision's transaction what its signatures
// consume, right after the audit record (so a refusal of one of them is
// found at indexes 1..len(d.Signed)): each ceremony is deleted on the
// condition that it is still there, a ceremony, not past its end. A
// decision that waited for a second operator takes its pending approval
// with it. The passkeys' counters move after the commit
// (AdvancePasskeyCounter), never backwards.
func (s *Store) signatureWrites(tx *dynamo.WriteTx, d domain.Decision) {
	for _, u := range d.Signed {
		tx.Delete(s.table(schema.PortalTokens).Delete("token_hash", u.CeremonyHash).
			If("kind = ? AND ends_at > ?", portalKindCeremony, fmtTime(d.Audit.At)))
	}
	if len(d.Signed) > 0 || d.Audit.SecondApproverID != nil {
		tx.Delete(s.table(schema.Accounts).Delete("account_id", d.Audit.AccountID).Range("sk", approvalSK(d.Audit.ActionID)))
	}
}

// signatureRefused reports whether a decision's transaction was cancelled
// by one of its signature writes.
func signatureRefused(err error, d domain.Decision) bool {
	for i := 1; i <= len(d.Signed); i++ {
		if cancelledAt(err, i) {
			return true
		}
	}
	return false
}

// AdvancePasskeyCounter records a signature's counter and time after its
// decision committed, only if it moves the counter on: a later sign-in may
// have moved it further already, and a counter never goes back.
func (s *Store) AdvancePasskeyCounter(ctx context.Context, p domain.Passkey, next uint32, at time.Time) error {
	err := s.table(schema.Accounts).Update("account_id", p.AccountID).Range("sk", passkeySK(p.OperatorID, p.ID)).
		Set("sign_count", int64(next)).Set("last_used_at", fmtTime(at)).
		If("attribute_exists(sk) AND sign_count < ?", int64(next)).Run(ctx)
	if isCondFailed(err) {
		return nil
	}
	return wrap(err, "advance passkey counter")
}
