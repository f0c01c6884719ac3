package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// maxAccountUpdateAttempts bounds how often UpdateAccount runs its
// transaction again when it lost only a race with another transaction on
// the account item (an entity create's commit, an operator added): its
// version condition, not the retry, decides whether it may still apply.
const maxAccountUpdateAttempts = 4

// UpdateAccount writes an account read at a.Version: its name and review
// policies, the given country configurations (created or replaced) and the
// audit record, in one transaction, and moves the version on. The account
// item is written (and its version moved) even when only countries change,
// so the version guards the account's whole configuration.
//
// The write is conditioned on the version read (an item without one, from
// before versions, is at 0): when another update landed meanwhile it is
// refused as a conflict and writes nothing, so of two updates made from
// the same read one wins and the other is told to read again.
// not_found: no such account; domain.ErrDuplicateAction if the action id
// was applied before.
func (s *Store) UpdateAccount(ctx context.Context, a domain.Account, countries []domain.CountryConfig, audit domain.AuditRecord) error {
	var err error
	for attempt := 1; attempt <= maxAccountUpdateAttempts; attempt++ {
		err = s.updateAccountTx(ctx, a, countries, audit)
		switch {
		case err == nil:
			return nil
		case cancelledAt(err, len(countries)+1):
			// The audit record's own condition: the action id was used
			// (a retried invocation whose first try landed).
			return domain.ErrDuplicateAction
		case cancelledAt(err, 0):
			return s.accountMoved(ctx, a.ID)
		case isTxConflict(err) && !isTxCondFailed(err) && attempt < maxAccountUpdateAttempts:
			if serr := sleepJitter(ctx, attempt); serr != nil {
				return wrap(serr, "update account %d", a.ID)
			}
		default:
			return wrap(err, "update account %d", a.ID)
		}
	}
	return wrap(err, "update account %d", a.ID)
}

func (s *Store) updateAccountTx(ctx context.Context, a domain.Account, countries []domain.CountryConfig, audit domain.AuditRecord) error {
	u := s.table(schema.Accounts).Update("account_id", a.ID).Range("sk", skAccount).
		Set("name", a.Name).Set("version", a.Version+1).
		If("attribute_exists(account_id)")
	if a.Version == 0 {
		u.If("attribute_not_exists(version) OR version = ?", int64(0))
	} else {
		u.If("version = ?", a.Version)
	}
	setPolicies(u, a.Settings)
	return s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Update(u)
		for _, c := range countries {
			c.AccountID = a.ID
			tx.Put(s.table(schema.Accounts).Put(newCountryItem(c)))
		}
		tx.Put(rec)
	})
}

// accountMoved is the refusal of an update whose account condition
// failed: the account is gone, or it changed since it was read.
func (s *Store) accountMoved(ctx context.Context, id int64) error {
	var it accountItem
	err := s.table(schema.Accounts).Get("account_id", id).Range("sk", dynamo.Equal, skAccount).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return domain.Errorf(domain.ECodeNotFound, "Account not found.")
	case err != nil:
		return wrap(err, "read account %d again", id)
	}
	return domain.Errorf(domain.ECodeConflict, "Account %d changed since it was read; read it again and retry.", id)
}
