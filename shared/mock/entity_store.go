package mock

import (
	"context"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

var (
	_ api.EntityCreator = (*EntityStore)(nil)
	_ api.IntakeRunner  = (*IntakeRunner)(nil)
)

// EntityStore is what creating an entity needs from the store.
type EntityStore struct {
	CountryConfigFn       func(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error)
	ClaimRegistrationFn   func(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error
	ReleaseRegistrationFn func(ctx context.Context, accountID int64, country, number, token string) error
	ReserveCheckIDsFn     func(ctx context.Context, accountID int64, n int) ([]int64, error)
	CommitEntityFn        func(ctx context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error)
	BeginIdempotentFn     func(ctx context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error)
	CompleteIdempotentFn  func(ctx context.Context, accountID int64, key, requestHash string, status int, body string) error
	IdempotencyRecordFn   func(ctx context.Context, accountID int64, key string, now time.Time) (domain.IdempotencyRecord, error)
	ReleaseIdempotentFn   func(ctx context.Context, accountID int64, key, requestHash string) error
}

func (s *EntityStore) CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error) {
	return s.CountryConfigFn(ctx, accountID, code)
}

func (s *EntityStore) ClaimRegistration(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error {
	return s.ClaimRegistrationFn(ctx, accountID, country, number, token, now, lease)
}

func (s *EntityStore) ReleaseRegistration(ctx context.Context, accountID int64, country, number, token string) error {
	return s.ReleaseRegistrationFn(ctx, accountID, country, number, token)
}

func (s *EntityStore) ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	return s.ReserveCheckIDsFn(ctx, accountID, n)
}

func (s *EntityStore) CommitEntity(ctx context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error) {
	return s.CommitEntityFn(ctx, d, o)
}

func (s *EntityStore) BeginIdempotent(ctx context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error) {
	return s.BeginIdempotentFn(ctx, accountID, key, requestHash, now, ttl, lock)
}

func (s *EntityStore) CompleteIdempotent(ctx context.Context, accountID int64, key, requestHash string, status int, body string) error {
	return s.CompleteIdempotentFn(ctx, accountID, key, requestHash, status, body)
}

func (s *EntityStore) IdempotencyRecord(ctx context.Context, accountID int64, key string, now time.Time) (domain.IdempotencyRecord, error) {
	return s.IdempotencyRecordFn(ctx, accountID, key, now)
}

func (s *EntityStore) ReleaseIdempotent(ctx context.Context, accountID int64, key, requestHash string) error {
	return s.ReleaseIdempotentFn(ctx, accountID, key, requestHash)
}

// IntakeRunner runs a new entity's intake checks.
type IntakeRunner struct {
	IntakeFn func(ctx context.Context, in checks.IntakeInput) domain.EntityDetail
}

func (r *IntakeRunner) Intake(ctx context.Context, in checks.IntakeInput) domain.EntityDetail {
	return r.IntakeFn(ctx, in)
}
