package store

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// PutAudit appends a lone audit record to its chain: for an event that
// changes nothing else but must be on the record, such as a refused
// passkey whose signature counter went back. domain.ErrDuplicateAction if
// the action id was applied before.
func (s *Store) PutAudit(ctx context.Context, a domain.AuditRecord) error {
	err := s.auditTx(ctx, a, func(tx *dynamo.WriteTx, rec *dynamo.Put) { tx.Put(rec) })
	switch {
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case err != nil:
		return fmt.Errorf("put audit record %s: %w", a.ActionID, err)
	}
	return nil
}
