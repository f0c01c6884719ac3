package domain

import "context"

// AuditRecords finds the audit record of an action.
type AuditRecords interface {
	// not_found: the action was never applied.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (AuditRecord, error)
}

// ActionIDUnused refuses with ErrDuplicateAction, as a write conditioned on
// its audit record would, an action id that named an earlier change: for a
// change that writes nothing because nothing changes, so that a repeat
// answers the same whether or not its first try changed something.
func ActionIDUnused(ctx context.Context, s AuditRecords, accountID int64, actionID string) error {
	_, err := s.AuditRecord(ctx, accountID, actionID)
	switch {
	case err == nil:
		return ErrDuplicateAction
	case ErrorCode(err) == ECodeNotFound:
		return nil
	}
	return err
}
