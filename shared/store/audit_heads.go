package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/schema"
)

// AuditHeads reads every chain head of the account, strongly: one query
// of the heads' reserved key prefix in the account's partition.
func (s *Store) AuditHeads(ctx context.Context, accountID int64) ([]auditchain.ChainHead, error) {
	var heads []auditHeadItem
	err := s.table(schema.Audit).Get("account_id", accountID).Range("action_id", dynamo.BeginsWith, headPrefix).
		Consistent(true).All(ctx, &heads)
	if err != nil {
		return nil, wrap(err, "audit heads of account %d", accountID)
	}
	out := make([]auditchain.ChainHead, 0, len(heads))
	for _, h := range heads {
		out = append(out, auditchain.ChainHead{Head: h.head(), EntityID: h.ChainEntity, At: h.At})
	}
	return out, nil
}
