package apitest

import (
	"context"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
)

// The fakes of shared/api's interfaces, for tests of the handlers'
// branches that run in memory: one function field per method, which the
// test sets to the answer it wants (an unset one panics when called, so a
// call the test did not expect fails it). Each is named for the interface
// it stands for, and asserts it.
var (
	_ api.EntityCreator    = (*EntityCreator)(nil)
	_ api.IntakeRunner     = (*IntakeRunner)(nil)
	_ api.ScreeningApplier = (*ScreeningApplier)(nil)
)

// EntityCreator is what creating an entity needs from the store.
type EntityCreator struct {
	AccountFn             func(ctx context.Context, id int64) (domain.Account, error)
	CountryConfigFn       func(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error)
	ClaimRegistrationFn   func(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error
	ReleaseRegistrationFn func(ctx context.Context, accountID int64, country, number, token string) error
	ReserveCheckIDsFn     func(ctx context.Context, accountID int64, n int) ([]int64, error)
	ReservePartyIDsFn     func(ctx context.Context, accountID int64, n int) ([]int64, error)
	CommitEntityFn        func(ctx context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error)
	BeginIdempotentFn     func(ctx context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error)
	CompleteIdempotentFn  func(ctx context.Context, accountID int64, key, requestHash string, status int, body string) error
	IdempotencyRecordFn   func(ctx context.Context, accountID int64, key string, now time.Time) (domain.IdempotencyRecord, error)
	ReleaseIdempotentFn   func(ctx context.Context, accountID int64, key, requestHash string) error
}

// Account is an account with no settings unless AccountFn says otherwise.
func (s *EntityCreator) Account(ctx context.Context, id int64) (domain.Account, error) {
	if s.AccountFn != nil {
		return s.AccountFn(ctx, id)
	}
	return domain.Account{ID: id}, nil
}

func (s *EntityCreator) CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error) {
	return s.CountryConfigFn(ctx, accountID, code)
}

func (s *EntityCreator) ClaimRegistration(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error {
	return s.ClaimRegistrationFn(ctx, accountID, country, number, token, now, lease)
}

func (s *EntityCreator) ReleaseRegistration(ctx context.Context, accountID int64, country, number, token string) error {
	return s.ReleaseRegistrationFn(ctx, accountID, country, number, token)
}

func (s *EntityCreator) ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	return s.ReserveCheckIDsFn(ctx, accountID, n)
}

// ReservePartyIDs numbers parties from 9001 unless ReservePartyIDsFn says
// otherwise.
func (s *EntityCreator) ReservePartyIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	if s.ReservePartyIDsFn != nil {
		return s.ReservePartyIDsFn(ctx, accountID, n)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(9001 + i)
	}
	return ids, nil
}

func (s *EntityCreator) CommitEntity(ctx context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error) {
	return s.CommitEntityFn(ctx, d, o)
}

func (s *EntityCreator) BeginIdempotent(ctx context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error) {
	return s.BeginIdempotentFn(ctx, accountID, key, requestHash, now, ttl, lock)
}

func (s *EntityCreator) CompleteIdempotent(ctx context.Context, accountID int64, key, requestHash string, status int, body string) error {
	return s.CompleteIdempotentFn(ctx, accountID, key, requestHash, status, body)
}

func (s *EntityCreator) IdempotencyRecord(ctx context.Context, accountID int64, key string, now time.Time) (domain.IdempotencyRecord, error) {
	return s.IdempotencyRecordFn(ctx, accountID, key, now)
}

func (s *EntityCreator) ReleaseIdempotent(ctx context.Context, accountID int64, key, requestHash string) error {
	return s.ReleaseIdempotentFn(ctx, accountID, key, requestHash)
}

// IntakeRunner runs a new entity's intake checks.
type IntakeRunner struct {
	IntakeFn func(ctx context.Context, in checks.IntakeInput) domain.EntityDetail
}

func (r *IntakeRunner) Intake(ctx context.Context, in checks.IntakeInput) domain.EntityDetail {
	return r.IntakeFn(ctx, in)
}

// ScreeningApplier applies a provider's answer, as the webhook handler
// sees screening.Service.
type ScreeningApplier struct {
	ProvidesFn func(provider string) bool
	ApplyFn    func(ctx context.Context, provider, webhookID string, a screening.Answer) (bool, error)
}

func (s *ScreeningApplier) Provides(provider string) bool { return s.ProvidesFn(provider) }

func (s *ScreeningApplier) Apply(ctx context.Context, provider, webhookID string, a screening.Answer) (bool, error) {
	return s.ApplyFn(ctx, provider, webhookID, a)
}
