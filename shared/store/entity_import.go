package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"golang.org/x/sync/errgroup"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
)

// ImportEntities bulk-loads entities into an account with batch writes, for
// demo data and benchmarks where thousands of one-by-one transactions would
// take minutes. It holds the account's commit turn throughout (creates
// wait) and goes in chunks: each chunk's entities become visible when the
// account's counters move past them, in one conditional write that also
// renews the turn. A chunk that fails is deleted again (best effort), so no
// entity is left at a place the counters have not reached, where the next
// create would find its place taken. A check's evidence (its provider's
// answer) is written beside it, as CreateEntity writes it.
func (s *Store) ImportEntities(ctx context.Context, accountID int64, ds []domain.EntityDetail) ([]domain.EntityDetail, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	if err := inlineEvidence(ds); err != nil {
		return nil, fmt.Errorf("import entities into account %d: %w", accountID, err)
	}
	t, end, err := s.takeTurn(ctx, accountID, importLease)
	if err != nil {
		return nil, err
	}
	defer end()
	out := make([]domain.EntityDetail, 0, len(ds))
	for start := 0; start < len(ds); start += importChunk {
		done, err := s.importChunk(ctx, &t, ds[start:min(start+importChunk, len(ds))])
		if err != nil {
			return nil, fmt.Errorf("import entities into account %d: %w", accountID, err)
		}
		out = append(out, done...)
	}
	return out, nil
}

// Imports go importChunk entities at a time, each chunk within the turn's
// lease, renewed by the chunk's commit.
const (
	importChunk = 1000
	importLease = 2 * time.Minute
)

// importChunk writes ds at the places after the turn's counters, then moves
// the counters past them.
func (s *Store) importChunk(ctx context.Context, t *turn, ds []domain.EntityDetail) ([]domain.EntityDetail, error) {
	accountID := t.acct.AccountID
	var nChecks, nReviews, nParties int
	for _, d := range ds {
		nChecks += len(d.Checks)
		nReviews += len(d.Reviews)
		nParties += len(d.Entity.Parties)
	}
	allChecks := make([]domain.Check, nChecks)
	allReviews := make([]domain.Review, nReviews)
	allParties := make([]domain.Party, nParties)
	if err := s.assignChildIDs(ctx, accountID, allChecks, allReviews, allParties); err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for k, v := range t.acct.CountryCounts {
		counts[k] = v
	}
	last := t.acct.EntityCount
	if last+int64(len(ds)) >= domain.IDSpan {
		return nil, errAccountFull(accountID)
	}
	out, items := placeChunk(accountID, ds, allChecks, allReviews, allParties, last, counts)
	if err := s.batchPut(ctx, items); err != nil {
		s.undoImport(ctx, out)
		return nil, err
	}
	last += int64(len(ds))
	if err := s.moveImportCounters(ctx, t, out, last, counts); err != nil {
		s.undoImport(ctx, out)
		return nil, err
	}
	t.acct.EntityCount, t.acct.CountryCounts = last, counts
	return out, nil
}

// placeChunk gives each entity of ds its id after last, its checks,
// reviews and parties the ids reserved (allChecks, allReviews,
// allParties, in order), counting
// each in its country (counts); it returns the entities placed and the
// items that write them, by table.
func placeChunk(accountID int64, ds []domain.EntityDetail, allChecks []domain.Check, allReviews []domain.Review, allParties []domain.Party, last int64, counts map[string]int64) ([]domain.EntityDetail, map[string][]any) {
	out := make([]domain.EntityDetail, len(ds))
	items := map[string][]any{}
	ci, ri, pi := 0, 0, 0
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
		e.Parties = append([]domain.Party(nil), e.Parties...)
		for j := range e.Parties {
			e.Parties[j].ID = allParties[pi].ID
			pi++
		}
		e.ChecksCount, e.ReviewsCount = len(checks), len(reviews)
		e.RelationshipsCount = domain.CurrentParties(e.Parties)
		e.DossierRev = 1
		linkChildren(&e, checks, reviews)
		counts[e.CountryCode]++
		items[schema.Entities] = append(items[schema.Entities], newEntityItem(e, counts[e.CountryCode]))
		items[schema.Accounts] = append(items[schema.Accounts], registrationGuardItem{AccountID: accountID, SK: registrationGuardSK(e.CountryCode, e.RegistrationNumber), EntityID: e.ID})
		for _, c := range checks {
			items[schema.Checks] = append(items[schema.Checks], newCheckItem(c))
			if keepsEvidence(c) {
				items[schema.Evidence] = append(items[schema.Evidence], importEvidenceItem(c))
			}
		}
		for _, r := range reviews {
			items[schema.Reviews] = append(items[schema.Reviews], newReviewItem(r).of(&e))
		}
		out[i] = domain.EntityDetail{Entity: e, Checks: sortedChecks(checks), Reviews: sortedReviews(reviews)}
	}
	return out, items
}

// moveImportCounters moves the account's counters past the chunk written
// (out), renewing the turn's lease, and has the queue count its reviews,
// in one transaction.
func (s *Store) moveImportCounters(ctx context.Context, t *turn, out []domain.EntityDetail, last int64, counts map[string]int64) error {
	accountID := t.acct.AccountID
	until := time.Now().Add(importLease).UnixMilli()
	tx := s.db.WriteTx()
	tx.Update(s.table(schema.Accounts).Update("account_id", accountID).Range("sk", skAccount).
		Set("entity_count", last).
		Set("country_counts", counts).
		Set("create_turn_until", until).
		If("entity_count = ? AND create_turn = ?", t.acct.EntityCount, t.owner))
	var reviews []domain.Review
	for _, d := range out {
		reviews = append(reviews, d.Reviews...)
	}
	s.addQueueCounts(tx, accountID, createdDelta(reviews))
	if err := tx.Run(ctx); err != nil {
		if cancelledAt(err, 0) {
			return errors.New("the commit turn lapsed and the account changed meanwhile")
		}
		return fmt.Errorf("update counters: %w", err)
	}
	return nil
}

// undoImport deletes a failed chunk's items, best effort: a failure is
// logged, and the account must then be re-seeded.
func (s *Store) undoImport(ctx context.Context, ds []domain.EntityDetail) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	keys := map[string][]dynamo.Keyed{}
	for _, d := range ds {
		e := d.Entity
		keys[schema.Entities] = append(keys[schema.Entities], dynamo.Keys{e.AccountID, e.ID})
		keys[schema.Accounts] = append(keys[schema.Accounts], dynamo.Keys{e.AccountID, registrationGuardSK(e.CountryCode, e.RegistrationNumber)})
		for _, c := range d.Checks {
			keys[schema.Checks] = append(keys[schema.Checks], dynamo.Keys{e.AccountID, c.ID})
			if keepsEvidence(c) {
				keys[schema.Evidence] = append(keys[schema.Evidence], dynamo.Keys{e.AccountID, c.ID})
			}
		}
		for _, r := range d.Reviews {
			keys[schema.Reviews] = append(keys[schema.Reviews], dynamo.Keys{e.AccountID, r.ID})
		}
	}
	hash := map[string][2]string{schema.Entities: {"account_id", "entity_id"}, schema.Accounts: {"account_id", "sk"},
		schema.Checks: {"account_id", "check_id"}, schema.Reviews: {"account_id", "review_id"},
		schema.Evidence: {"account_id", "check_id"}}
	for id, ks := range keys {
		if _, err := s.table(id).Batch(hash[id][0], hash[id][1]).Write().Delete(ks...).Run(ctx); err != nil {
			logging.From(ctx).Error("a failed import left items behind: re-seed the account", "table", id, "error", err.Error())
		}
	}
}

// keepsEvidence reports whether the check carries an answer to keep (one
// past the read limit is recorded in its result only).
func keepsEvidence(c domain.Check) bool { return c.Evidence != nil && c.Evidence.Stored }

// importEvidenceItem is the check's evidence item, keyed by its final id,
// as addEvidencePuts writes it. A batch write cannot be conditional: the
// check's id is new, so no evidence can be there to overwrite.
func importEvidenceItem(c domain.Check) evidenceItem {
	e := *c.Evidence
	e.AccountID, e.CheckID = c.AccountID, c.ID
	return newEvidenceItem(e)
}

// inlineEvidence refuses, before anything is written, a body too large for
// its item that has no object in the blob store: an import writes items
// only (checks.KeepEvidence writes the objects, for intake).
func inlineEvidence(ds []domain.EntityDetail) error {
	for i, d := range ds {
		for _, c := range d.Checks {
			if keepsEvidence(c) && c.Evidence.BodyKey == "" && len(c.Evidence.Body) > domain.MaxInlineEvidence {
				return fmt.Errorf("entity %d: a check's evidence of %d bytes is over the %d kept inline, and has no blob key",
					i, len(c.Evidence.Body), domain.MaxInlineEvidence)
			}
		}
	}
	return nil
}

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
