package mock

import (
	"context"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
)

var (
	_ screening.Store      = (*ScreeningStore)(nil)
	_ screening.Reader     = (*ScreeningReader)(nil)
	_ api.ScreeningApplier = (*ScreeningService)(nil)
)

// ScreeningStore is what applying a screening answer needs from the store.
type ScreeningStore struct {
	CheckFn           func(ctx context.Context, accountID, id int64) (domain.Check, error)
	EntityFn          func(ctx context.Context, accountID, id int64) (domain.Entity, error)
	ApplyScreeningFn  func(ctx context.Context, u domain.ScreeningUpdate) (bool, error)
	EntityChecksFn    func(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error)
	ReserveCheckIDsFn func(ctx context.Context, accountID int64, n int) ([]int64, error)
	// WebhookSeenFn nil: no webhook was seen before.
	WebhookSeenFn func(ctx context.Context, provider, webhookID string, at time.Time) (bool, error)
}

func (s *ScreeningStore) WebhookSeen(ctx context.Context, provider, webhookID string, at time.Time) (bool, error) {
	if s.WebhookSeenFn == nil {
		return false, nil
	}
	return s.WebhookSeenFn(ctx, provider, webhookID, at)
}

func (s *ScreeningStore) EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error) {
	return s.EntityChecksFn(ctx, accountID, entityID, want)
}

func (s *ScreeningStore) ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	return s.ReserveCheckIDsFn(ctx, accountID, n)
}

func (s *ScreeningStore) Check(ctx context.Context, accountID, id int64) (domain.Check, error) {
	return s.CheckFn(ctx, accountID, id)
}

func (s *ScreeningStore) Entity(ctx context.Context, accountID, id int64) (domain.Entity, error) {
	return s.EntityFn(ctx, accountID, id)
}

func (s *ScreeningStore) ApplyScreening(ctx context.Context, u domain.ScreeningUpdate) (bool, error) {
	return s.ApplyScreeningFn(ctx, u)
}

// ScreeningReader reads a provider's answer as check results.
type ScreeningReader struct {
	ReadFn func(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult
}

func (r *ScreeningReader) Read(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult {
	return r.ReadFn(reference, qr)
}

// ScreeningService applies a provider's answer, as the webhook handler
// sees screening.Service.
type ScreeningService struct {
	ProvidesFn func(provider string) bool
	ApplyFn    func(ctx context.Context, provider, webhookID string, a screening.Answer) (bool, error)
}

func (s *ScreeningService) Provides(provider string) bool { return s.ProvidesFn(provider) }

func (s *ScreeningService) Apply(ctx context.Context, provider, webhookID string, a screening.Answer) (bool, error) {
	return s.ApplyFn(ctx, provider, webhookID, a)
}
