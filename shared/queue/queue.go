// Package queue is the operator console's home: an account's active
// reviews (open, in progress, escalated), oldest first, filtered, with
// their age and due date, the counts per status, and "Take the next one",
// which claims the oldest unassigned open review that matches.
//
// Every page costs a bounded number of DynamoDB requests whatever the
// account holds (the store reads a sparse index of active reviews within a
// fixed budget); a page that could not be filled within it still has a
// cursor.
package queue

import (
	"context"
	"errors"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// PageSize is how many reviews a page shows.
const PageSize = 25

// Store is what the queue reads and writes; *store.Store implements it.
type Store interface {
	// validation_failed: q.After is not a queue position.
	QueuePage(ctx context.Context, q domain.QueueQuery) (domain.QueueSlice, error)
	// No codes.
	QueueCounts(ctx context.Context, accountID int64) (map[domain.ReviewStatus]int, error)
	// not_found: no such account.
	Account(ctx context.Context, id int64) (domain.Account, error)
	// not_found: no such review.
	Review(ctx context.Context, accountID, id int64) (domain.Review, error)
	// not_found: the action was never applied.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error)
	// No codes; domain.ErrStale, domain.ErrDuplicateAction.
	ApplyDecision(ctx context.Context, d domain.Decision) error
}

// Service serves the queue of one account at a time.
type Service struct {
	Store Store
	Clock domain.Clock
}

// now is the service's time; a service built without a clock fails
// rather than fall back to the wall clock unnoticed.
func (s *Service) now() (time.Time, error) {
	if s.Clock == nil {
		return time.Time{}, errors.New("queue: the service has no clock")
	}
	return s.Clock.Now(), nil
}
