// Package screeningtest has fakes of shared/screening's interfaces, for
// tests that run in memory: one function field per method, which the test
// sets to the answer it wants (an unset one panics when called, so a call
// the test did not expect fails it). Each is named for the interface it
// stands for, and asserts it.
//
// Test support: only tests import it.
package screeningtest

import (
	"context"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
)

var (
	_ screening.Store  = (*Store)(nil)
	_ screening.Reader = (*Reader)(nil)
)

// Store is what applying a screening answer needs from the store.
type Store struct {
	CheckFn           func(ctx context.Context, accountID, id int64) (domain.Check, error)
	EntityFn          func(ctx context.Context, accountID, id int64) (domain.Entity, error)
	ApplyScreeningFn  func(ctx context.Context, u domain.ScreeningUpdate) (bool, error)
	EntityChecksFn    func(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error)
	ReserveCheckIDsFn func(ctx context.Context, accountID int64, n int) ([]int64, error)
	EntityReviewsFn   func(ctx context.Context, accountID, entityID int64, want int) ([]domain.Review, error)
	// WebhookSeenFn nil: no webhook was seen before.
	WebhookSeenFn func(ctx context.Context, provider, webhookID string, at time.Time) (bool, error)
}

func (s *Store) WebhookSeen(ctx context.Context, provider, webhookID string, at time.Time) (bool, error) {
	if s.WebhookSeenFn == nil {
		return false, nil
	}
	return s.WebhookSeenFn(ctx, provider, webhookID, at)
}

func (s *Store) EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error) {
	return s.EntityChecksFn(ctx, accountID, entityID, want)
}

func (s *Store) EntityReviews(ctx context.Context, accountID, entityID int64, want int) ([]domain.Review, error) {
	return s.EntityReviewsFn(ctx, accountID, entityID, want)
}

func (s *Store) ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	return s.ReserveCheckIDsFn(ctx, accountID, n)
}

func (s *Store) Check(ctx context.Context, accountID, id int64) (domain.Check, error) {
	return s.CheckFn(ctx, accountID, id)
}

func (s *Store) Entity(ctx context.Context, accountID, id int64) (domain.Entity, error) {
	return s.EntityFn(ctx, accountID, id)
}

func (s *Store) ApplyScreening(ctx context.Context, u domain.ScreeningUpdate) (bool, error) {
	return s.ApplyScreeningFn(ctx, u)
}

// Reader reads a provider's answer as check results.
type Reader struct {
	ReadFn func(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult
}

func (r *Reader) Read(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult {
	return r.ReadFn(reference, qr)
}
