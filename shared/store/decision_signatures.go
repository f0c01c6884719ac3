package store

import (
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// signatureWrites adds to a transaction what its signatures consume, right
// after the audit record (so a refusal of one of them is found at indexes
// 1..n, n the count it answers): each ceremony deleted on the condition
// that it is still there, a ceremony, not past its end at `at`; each
// passkey's counter moved on, on the condition that it still holds the
// value read (useWrite); a four-eyes maker's signature, spent when the
// decision began to wait, by deleting its pending approval on the
// condition that it is still there and waiting. A decision that waited
// takes its pending approval with it in any case.
func (s *Store) signatureWrites(tx *dynamo.WriteTx, d domain.Decision) (n int) {
	spent := false
	for _, u := range d.Signed {
		if u.Spent {
			spent = true
			continue
		}
		s.spendWrites(tx, u, d.Audit.At)
		n += 2
	}
	approval := s.table(schema.Accounts).Delete("account_id", d.Audit.AccountID).Range("sk", approvalSK(d.Audit.ActionID))
	switch {
	case spent:
		tx.Delete(approval.If("attribute_exists(sk) AND ends_at > ?", fmtTime(d.Audit.At)))
		n++
	case len(d.Signed) > 0 || d.Audit.SecondApproverID != nil:
		tx.Delete(approval)
		n++
	}
	return n
}

// spendWrites adds a signature's use at `at` to a transaction: its
// ceremony taken, its passkey's counter moved.
func (s *Store) spendWrites(tx *dynamo.WriteTx, u domain.SignatureUse, at time.Time) {
	tx.Delete(s.table(schema.PortalTokens).Delete("token_hash", u.CeremonyHash).
		If("kind = ? AND ends_at > ?", portalKindCeremony, fmtTime(at)))
	tx.Update(s.useWrite(u.Passkey, u.NextCount, at))
}

// signatureRefused reports whether a transaction was cancelled by one of
// its n signature writes, at indexes 1..n.
func signatureRefused(err error, n int) bool {
	for i := 1; i <= n; i++ {
		if cancelledAt(err, i) {
			return true
		}
	}
	return false
}
