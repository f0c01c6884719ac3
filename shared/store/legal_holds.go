package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Legal holds live in the accounts table under HOLD#<entity id>: an
// account's are one query, and a hold is placed or lifted in the same
// transaction as its audit record.
const skHoldPrefix = "HOLD#"

func holdSK(entityID int64) string { return fmt.Sprintf("%s%d", skHoldPrefix, entityID) }

type holdItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	SK        string `dynamo:"sk,range"`
	EntityID  int64  `dynamo:"entity_id"`
	Reason    string `dynamo:"reason"`
	SetBy     string `dynamo:"set_by"`
	ActionID  string `dynamo:"action_id"`
	SetAt     string `dynamo:"set_at"`
}

func (it holdItem) domain() domain.LegalHold {
	return domain.LegalHold{AccountID: it.AccountID, EntityID: it.EntityID, Reason: it.Reason, SetBy: it.SetBy,
		ActionID: it.ActionID, SetAt: parseTime(it.SetAt)}
}

// PutLegalHold places a hold, audited. Conflict: the entity is held
// already; domain.ErrDuplicateAction: this action id was applied before.
func (s *Store) PutLegalHold(ctx context.Context, h domain.LegalHold, audit domain.AuditRecord) error {
	it := holdItem{AccountID: h.AccountID, SK: holdSK(h.EntityID), EntityID: h.EntityID, Reason: h.Reason, SetBy: h.SetBy,
		ActionID: h.ActionID, SetAt: fmtTime(h.SetAt)}
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(rec)
		tx.Put(s.table(schema.Accounts).Put(it).If("attribute_not_exists(sk)"))
	})
	return holdResult(err, domain.Errorf(domain.ECodeConflict, "Entity %d is under a legal hold already.", h.EntityID),
		"put legal hold on entity %d", h.EntityID)
}

// DeleteLegalHold lifts a hold, audited. not_found: the entity is not held.
func (s *Store) DeleteLegalHold(ctx context.Context, accountID, entityID int64, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(rec)
		tx.Delete(s.table(schema.Accounts).Delete("account_id", accountID).Range("sk", holdSK(entityID)).If("attribute_exists(sk)"))
	})
	return holdResult(err, domain.Errorf(domain.ECodeNotFound, "Entity %d is under no legal hold.", entityID),
		"lift legal hold on entity %d", entityID)
}

// holdResult is what a hold's audited transaction answers: its audit record
// (first) already written is a duplicate action, its condition on the hold
// (second) failed is refused; anything else is wrapped with what was done.
func holdResult(err, refused error, format string, entityID int64) error {
	switch {
	case err == nil:
		return nil
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case cancelledAt(err, 1):
		return refused
	}
	return wrap(err, format, entityID)
}

// LegalHolds are the account's holds, by entity.
func (s *Store) LegalHolds(ctx context.Context, accountID int64) ([]domain.LegalHold, error) {
	var items []holdItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.BeginsWith, skHoldPrefix).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrap(err, "legal holds of account %d", accountID)
	}
	out := make([]domain.LegalHold, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}
