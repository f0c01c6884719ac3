package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// skRegistrationPrefix marks the item that reserves a registration number in
// a country for one entity of the account: the uniqueness guard.
const skRegistrationPrefix = "REG#"

func registrationGuardSK(country, number string) string {
	return skRegistrationPrefix + country + "#" + number
}

type registrationGuardItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	SK        string `dynamo:"sk,range"`
	EntityID  int64  `dynamo:"entity_id"`
}

// maxCreateAttempts bounds the retries when concurrent creates in the same
// account race for the next sequence number.
const maxCreateAttempts = 25

// CreateEntity writes a new entity with its checks and reviews, the account's
// counters and the registration number's uniqueness guard in one transaction:
// a failure leaves nothing behind. It assigns every id (the ids in d are
// ignored), links the checks to the first review (intake checks inform the
// initial review) and sets the entity's and review's check and review counts.
//
// A registration number already taken in the account and country is a
// validation error on registration_number.
func (s *Store) CreateEntity(ctx context.Context, d domain.EntityDetail) (domain.EntityDetail, error) {
	e := d.Entity
	if e.AccountID == 0 || e.CountryCode == "" || e.RegistrationNumber == "" {
		return domain.EntityDetail{}, errors.New("create entity: account, country and registration number are required")
	}
	checks := append([]domain.Check(nil), d.Checks...)
	reviews := append([]domain.Review(nil), d.Reviews...)
	if err := s.assignChildIDs(ctx, checks, reviews); err != nil {
		return domain.EntityDetail{}, err
	}
	e.ChecksCount, e.ReviewsCount = len(checks), len(reviews)

	var id int64
	for attempt := 0; ; attempt++ {
		acct, err := s.accountItem(ctx, e.AccountID)
		if err != nil {
			return domain.EntityDetail{}, err
		}
		// Ids must grow with the sequence so that "id descending" and "newest
		// first" are one order. An id reserved before a concurrent create
		// committed a higher one is skipped for a fresh one.
		if id <= acct.LastEntityID {
			if id, err = s.nextIDs(ctx, seqEntity, 1); err != nil {
				return domain.EntityDetail{}, err
			}
		}
		e.ID = id
		linkChildren(&e, checks, reviews)
		err = s.createTx(ctx, acct, e, checks, reviews).Run(ctx)
		switch {
		case err == nil:
			return domain.EntityDetail{Entity: e, Checks: sortedChecks(checks), Reviews: sortedReviews(reviews)}, nil
		case cancelledAt(err, 1):
			return domain.EntityDetail{}, domain.Invalid("registration_number", "has already been taken")
		case (cancelledAt(err, 0) || isTxConflict(err)) && attempt < maxCreateAttempts:
			// Another create in this account took the sequence number first.
			if err := sleepJitter(ctx, attempt); err != nil {
				return domain.EntityDetail{}, err
			}
		default:
			return domain.EntityDetail{}, fmt.Errorf("create entity in account %d: %w", e.AccountID, err)
		}
	}
}

func (s *Store) createTx(ctx context.Context, acct accountItem, e domain.Entity, checks []domain.Check, reviews []domain.Review) *dynamo.WriteTx {
	seq := acct.EntityCount + 1
	countrySeq := acct.CountryCounts[e.CountryCode] + 1
	accounts := s.table(schema.Accounts)
	tx := s.db.WriteTx()
	// 0: the counters, conditioned on what we read (optimistic lock).
	tx.Update(accounts.Update("account_id", e.AccountID).Range("sk", skAccount).
		Set("entity_count", seq).
		Set("last_entity_id", e.ID).
		Set("country_counts."+e.CountryCode, countrySeq).
		If("entity_count = ? AND last_entity_id < ?", acct.EntityCount, e.ID))
	// 1: the registration number, once per account and country.
	tx.Put(accounts.Put(registrationGuardItem{AccountID: e.AccountID, SK: registrationGuardSK(e.CountryCode, e.RegistrationNumber), EntityID: e.ID}).
		If("attribute_not_exists(sk)"))
	tx.Put(s.table(schema.Entities).Put(newEntityItem(e, seq, countrySeq)).If("attribute_not_exists(entity_id)"))
	for _, c := range checks {
		tx.Put(s.table(schema.Checks).Put(newCheckItem(c)))
	}
	for _, r := range reviews {
		tx.Put(s.table(schema.Reviews).Put(newReviewItem(r)))
	}
	return tx
}

// assignChildIDs reserves ids for the checks and reviews that have none;
// ids reserved beforehand (ReserveCheckIDs) are kept.
func (s *Store) assignChildIDs(ctx context.Context, checks []domain.Check, reviews []domain.Review) error {
	var needChecks, needReviews int
	for _, c := range checks {
		if c.ID == 0 {
			needChecks++
		}
	}
	for _, r := range reviews {
		if r.ID == 0 {
			needReviews++
		}
	}
	next, err := s.nextIDs(ctx, seqCheck, needChecks)
	if err != nil {
		return err
	}
	for i := range checks {
		if checks[i].ID == 0 {
			checks[i].ID, next = next, next+1
		}
	}
	next, err = s.nextIDs(ctx, seqReview, needReviews)
	if err != nil {
		return err
	}
	for i := range reviews {
		if reviews[i].ID == 0 {
			reviews[i].ID, next = next, next+1
		}
	}
	return nil
}

// ReserveCheckIDs reserves n check ids ahead of a create, so that a check can
// be named (to a screening provider) before it is written.
func (s *Store) ReserveCheckIDs(ctx context.Context, n int) ([]int64, error) {
	first, err := s.nextIDs(ctx, seqCheck, n)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids, nil
}

// RegistrationTaken reports whether an entity of the account already has
// the registration number in the country.
func (s *Store) RegistrationTaken(ctx context.Context, accountID int64, country, number string) (bool, error) {
	var it registrationGuardItem
	err := s.table(schema.Accounts).Get("account_id", accountID).
		Range("sk", dynamo.Equal, registrationGuardSK(country, number)).Consistent(true).One(ctx, &it)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, dynamo.ErrNotFound):
		return false, nil
	default:
		return false, fmt.Errorf("look up registration %s in %s: %w", number, country, err)
	}
}

func linkChildren(e *domain.Entity, checks []domain.Check, reviews []domain.Review) {
	for i := range checks {
		checks[i].AccountID, checks[i].EntityID = e.AccountID, e.ID
		checks[i].ReviewID = nil
		if len(reviews) > 0 {
			rid := reviews[0].ID
			checks[i].ReviewID = &rid
		}
	}
	for i := range reviews {
		reviews[i].AccountID, reviews[i].EntityID = e.AccountID, e.ID
		reviews[i].ChecksCount = 0
	}
	if len(reviews) > 0 {
		reviews[0].ChecksCount = len(checks)
	}
}

func sortedChecks(cs []domain.Check) []domain.Check {
	out := append([]domain.Check{}, cs...)
	SortChecks(out)
	return out
}

func sortedReviews(rs []domain.Review) []domain.Review {
	out := append([]domain.Review{}, rs...)
	SortReviews(out)
	return out
}

// cancelledAt reports whether a transaction was cancelled because the
// condition of its item i failed.
func cancelledAt(err error, i int) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return false
	}
	return deref(tce.CancellationReasons[i].Code) == "ConditionalCheckFailed"
}

func sleepJitter(ctx context.Context, attempt int) error {
	d := time.Duration(5+rand.IntN(10*(attempt+1))) * time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
