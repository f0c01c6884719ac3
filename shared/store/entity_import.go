package store

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// ImportEntities bulk-loads entities into an account with batch writes, for
// demo data and benchmarks where thousands of one-by-one transactions would
// take minutes. It holds the account's commit turn throughout (creates
// wait), and the entities become visible at once, when the account's
// counters move past them at the end, in one conditional write.
func (s *Store) ImportEntities(ctx context.Context, accountID int64, ds []domain.EntityDetail) ([]domain.EntityDetail, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	t, end, err := s.takeTurn(ctx, accountID, importLease)
	if err != nil {
		return nil, err
	}
	defer end()
	var nChecks, nReviews int
	for _, d := range ds {
		nChecks += len(d.Checks)
		nReviews += len(d.Reviews)
	}
	allChecks := make([]domain.Check, nChecks)
	allReviews := make([]domain.Review, nReviews)
	if err := s.assignChildIDs(ctx, accountID, allChecks, allReviews); err != nil {
		return nil, err
	}

	counts := map[string]int64{}
	for k, v := range t.acct.CountryCounts {
		counts[k] = v
	}
	last := t.acct.EntityCount
	out := make([]domain.EntityDetail, len(ds))
	var entities, guards, checkItems, reviewItems []any
	ci, ri := 0, 0
	for i, d := range ds {
		e := d.Entity
		last++
		e.AccountID, e.ID = accountID, domain.ScopedID(accountID, last)
		checks := append([]domain.Check(nil), d.Checks...)
		reviews := append([]domain.Review(nil), d.Reviews...)
		for j := range checks {
			checks[j].ID = allChecks[ci].ID
			ci++
		}
		for j := range reviews {
			reviews[j].ID = allReviews[ri].ID
			ri++
		}
		e.ChecksCount, e.ReviewsCount = len(checks), len(reviews)
		linkChildren(&e, checks, reviews)
		counts[e.CountryCode]++
		entities = append(entities, newEntityItem(e, counts[e.CountryCode]))
		guards = append(guards, registrationGuardItem{AccountID: accountID, SK: registrationGuardSK(e.CountryCode, e.RegistrationNumber), EntityID: e.ID})
		for _, c := range checks {
			checkItems = append(checkItems, newCheckItem(c))
		}
		for _, r := range reviews {
			reviewItems = append(reviewItems, newReviewItem(r))
		}
		out[i] = domain.EntityDetail{Entity: e, Checks: sortedChecks(checks), Reviews: sortedReviews(reviews)}
	}

	if err := s.batchPut(ctx, map[string][]any{
		schema.Entities: entities, schema.Accounts: guards, schema.Checks: checkItems, schema.Reviews: reviewItems,
	}); err != nil {
		return nil, fmt.Errorf("import entities into account %d: %w", accountID, err)
	}
	err = s.table(schema.Accounts).Update("account_id", accountID).Range("sk", skAccount).
		Set("entity_count", last).
		Set("country_counts", counts).
		RemoveExpr("create_turn, create_turn_until").
		If("entity_count = ? AND create_turn = ?", t.acct.EntityCount, t.owner).Run(ctx)
	if isCondFailed(err) {
		return nil, fmt.Errorf("import entities into account %d: the commit turn lapsed and the account changed meanwhile", accountID)
	}
	if err != nil {
		return nil, fmt.Errorf("import entities into account %d: update counters: %w", accountID, err)
	}
	return out, nil
}

// importLease is how long an import may hold the account's commit turn:
// tens of thousands of entities in batch writes.
const importLease = 30 * time.Minute

// importWriters is how many batch writes an import keeps in flight.
const importWriters = 8

// batchPut writes items (by table id) with BatchWriteItem, several batches at
// a time; guregu/dynamo splits each run into requests of 25 and retries
// unprocessed items.
func (s *Store) batchPut(ctx context.Context, byTable map[string][]any) error {
	const chunk = 100
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(importWriters)
	for id, items := range byTable {
		table := s.table(id)
		for start := 0; start < len(items); start += chunk {
			part := items[start:min(start+chunk, len(items))]
			g.Go(func() error {
				_, err := table.Batch().Write().Put(part...).Run(gctx)
				return err
			})
		}
	}
	return g.Wait()
}
