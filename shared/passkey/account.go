package passkey

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
)

// AccountChain is what an account's own chain (entity 0) recorded that a
// decision's record is judged by: its operators' passkeys and when it
// accepted declared decisions. Read from the records alone, as a regulator
// would: nothing the service's items say now enters.
type AccountChain struct {
	Keys     ChainKeys
	Declared Declared
}

// AccountOf reads an account's chain, its records in seq order.
func AccountOf(links []auditchain.Link) AccountChain {
	return AccountChain{Keys: KeysOf(links), Declared: DeclaredOf(links)}
}

// ChainReader reads an account's audit chains (*store.Store has it).
type ChainReader interface {
	AuditChain(ctx context.Context, accountID, entityID int64) (auditchain.Chain, error)
}

// AccountRecords is what the account's own chain, as DynamoDB holds it,
// recorded (verify reads the records bucket's locked copy instead).
func AccountRecords(ctx context.Context, r ChainReader, accountID int64) (AccountChain, error) {
	ch, err := r.AuditChain(ctx, accountID, 0)
	if err != nil {
		return AccountChain{}, fmt.Errorf("the account's chain: %w", err)
	}
	return AccountOf(ch.Records), nil
}

// AtApply is what the decision function judges the record it is about to
// write by: the passkeys whose signatures it has just checked against the
// stored keys (each added in the transaction that put its passkey.add
// record in the account's chain), and the account's setting as read for
// the decision, which is the setting at the record's time.
func AtApply(declared bool, signed ...*Signed) AccountChain {
	keys := ChainKeys{}
	for _, s := range signed {
		if s != nil {
			keys[keyOf(s.OperatorID, s.Assertion.CredentialID)] = s.Passkey.PublicKey
		}
	}
	return AccountChain{Keys: keys, Declared: DeclaredAlways(declared)}
}

// RecordLink is an audit record as its chain hashes it, in the fields the
// rule reads (Counts): for a record read from the store's listing, or one
// the decision function is about to write.
func RecordLink(r domain.AuditRecord) auditchain.Link {
	l := auditchain.Link{AccountID: r.AccountID, EntityID: r.EntityID, ActionID: r.ActionID, Action: string(r.Action),
		OperatorID: r.OperatorID, SecondApproverID: r.SecondApproverID, ReviewID: r.ReviewID, Reason: r.Reason,
		At: domain.FormatTime(r.At), SeenETag: r.SeenETag, Identity: string(r.Identity), DecisionDocument: r.DecisionDocument}
	after, _ := json.Marshal(r.After) // a map of strings, numbers and lists
	l.After = string(after)
	if len(r.Signatures) > 0 {
		sigs, _ := json.Marshal(r.Signatures) // strings and numbers only
		l.Signatures = string(sigs)
	}
	return l
}

// CheckRecord judges a record as read from the store by the one rule
// (Judge).
func (a AccountChain) CheckRecord(cfg Config, r domain.AuditRecord) []Check {
	return a.Judge(cfg, RecordLink(r))
}

// CheckTrail judges every decision of recs (records of accountID), signed
// or not, in order, by the one rule (Judge), against what the account's
// chain recorded; the chain is read only when some record is a decision.
func CheckTrail(ctx context.Context, r ChainReader, cfg Config, accountID int64, recs []domain.AuditRecord) ([][]Check, error) {
	out := make([][]Check, len(recs))
	var acct *AccountChain
	for i, rec := range recs {
		if !IsDecision(RecordLink(rec)) {
			continue
		}
		if acct == nil {
			a, err := AccountRecords(ctx, r, accountID)
			if err != nil {
				return nil, err
			}
			acct = &a
		}
		out[i] = acct.CheckRecord(cfg, rec)
	}
	return out, nil
}
