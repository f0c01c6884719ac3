package store

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	switch {
	case err == nil:
		return nil
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case cancelledAt(err, 1):
		return domain.Errorf(domain.ECodeConflict, "Entity %d is under a legal hold already.", h.EntityID)
	}
	return wrap(err, "put legal hold on entity %d", h.EntityID)
}

// DeleteLegalHold lifts a hold, audited. not_found: the entity is not held.
func (s *Store) DeleteLegalHold(ctx context.Context, accountID, entityID int64, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(rec)
		tx.Delete(s.table(schema.Accounts).Delete("account_id", accountID).Range("sk", holdSK(entityID)).If("attribute_exists(sk)"))
	})
	switch {
	case err == nil:
		return nil
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case cancelledAt(err, 1):
		return domain.Errorf(domain.ECodeNotFound, "Entity %d is under no legal hold.", entityID)
	}
	return wrap(err, "lift legal hold on entity %d", entityID)
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

// ExpireEvidence sets when a check's evidence expires (its relationship
// ended): on the item, or, while a legal hold keeps the expiry aside, on
// what the release puts back. The same date again changes nothing.
func (s *Store) ExpireEvidence(ctx context.Context, accountID, checkID int64, until time.Time) error {
	at := until.Unix()
	err := s.table(schema.Evidence).Update("account_id", accountID).Range("check_id", checkID).
		Set("expires_at", at).If("attribute_exists(check_id) AND attribute_not_exists(held_expires_at)").Run(ctx)
	if isCondFailed(err) {
		err = s.table(schema.Evidence).Update("account_id", accountID).Range("check_id", checkID).
			Set("held_expires_at", at).If("attribute_exists(held_expires_at)").Run(ctx)
		if isCondFailed(err) {
			return nil // no evidence kept for the check
		}
	}
	return wrap(err, "set the expiry of check %d's evidence", checkID)
}

// HoldEvidence takes the expiry off a check's evidence item while a hold
// stands (held), keeping it aside in held_expires_at (0: it had none yet,
// the relationship lasting, which still marks the item held, so that the
// relationship's end sets the kept-aside date rather than an expiry), or
// puts it back (released). One UpdateItem (two to release an item that had
// no expiry), each doing nothing to an item already so.
func (s *Store) HoldEvidence(ctx context.Context, accountID, checkID int64, held bool) error {
	update := func() *dynamo.Update {
		return s.table(schema.Evidence).Update("account_id", accountID).Range("check_id", checkID)
	}
	var err error
	if held {
		err = update().SetExpr("'held_expires_at' = if_not_exists('expires_at', ?)", 0).Remove("expires_at").
			If("attribute_exists(check_id) AND attribute_not_exists(held_expires_at)").Run(ctx)
	} else {
		err = update().SetExpr("'expires_at' = held_expires_at").Remove("held_expires_at").If("held_expires_at > ?", 0).Run(ctx)
		if isCondFailed(err) {
			// Held with no expiry to put back (or not held at all).
			err = update().Remove("held_expires_at").If("attribute_exists(held_expires_at)").Run(ctx)
		}
	}
	if err != nil && !isCondFailed(err) {
		return wrap(err, "hold the evidence of check %d", checkID)
	}
	return nil
}
