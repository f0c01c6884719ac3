package decisions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// SchedulerStore is what the periodic-review run reads and writes.
type SchedulerStore interface {
	// No codes.
	ListAccounts(ctx context.Context) ([]domain.Account, error)
	// No codes.
	EntitiesWithStatus(ctx context.Context, accountID int64, statuses ...domain.EntityStatus) ([]domain.Entity, error)
	// No codes. want is the entity's ReviewsCount: the listing waits, briefly,
	// for an index to show that many.
	EntityReviews(ctx context.Context, accountID, entityID int64, want int) ([]domain.Review, error)
	// No codes; domain.ErrStale if the entity changed since read,
	// domain.ErrDuplicateAction if this period's review was opened before.
	ApplyDecision(ctx context.Context, d domain.Decision) error
}

// QueueRecounter brings an account's reviews from before the review queue
// into it (the by_queue index and the counts per status): once per account,
// on the first daily run after the queue was deployed.
type QueueRecounter interface {
	// No codes.
	QueueRecounted(ctx context.Context, accountID int64) (bool, error)
	// No codes.
	RecountQueue(ctx context.Context, accountID int64) (map[domain.ReviewStatus]int, error)
}

// SchedulerName is who the audit trail names for scheduled reviews.
const SchedulerName = "periodic-review scheduler"

// Scheduler opens periodic reviews for monitored entities whose account's
// review interval has passed since their last review.
type Scheduler struct {
	Store SchedulerStore
	// Clock tells when the run is, which decides what is due (required).
	Clock domain.Clock
	// Queue recounts the accounts whose queue was never counted (nil: none).
	Queue QueueRecounter
}

// RunResult counts what a run did.
type RunResult struct {
	Accounts int `json:"accounts"`
	Checked  int `json:"entities_checked"`
	Opened   int `json:"reviews_opened"`
	// Recounted is the accounts whose review queue this run counted.
	Recounted int `json:"queues_recounted"`
}

// Run opens every due periodic review. It is idempotent per entity and
// period: the action id names both, so a second run in the same period (a
// retry, a duplicate schedule) opens nothing more.
func (s *Scheduler) Run(ctx context.Context) (RunResult, error) {
	now := s.Clock.Now()
	var res RunResult
	accounts, err := s.Store.ListAccounts(ctx)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, a := range accounts {
		days := a.Settings.ReviewIntervalDays
		if days <= 0 {
			continue
		}
		res.Accounts++
		interval := time.Duration(days) * 24 * time.Hour
		ents, err := s.Store.EntitiesWithStatus(ctx, a.ID, domain.EntityApproved, domain.EntityOnboarded, domain.EntityUnderMonitoring)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range ents {
			if e.RelationshipEndedAt != nil {
				continue // no monitoring once the relationship ended
			}
			res.Checked++
			opened, err := s.openIfDue(ctx, a, e, interval, now)
			if err != nil {
				errs = append(errs, fmt.Errorf("entity %d of account %d: %w", e.ID, a.ID, err))
				continue
			}
			if opened {
				res.Opened++
			}
		}
	}
	for _, a := range accounts {
		counted, err := s.recountQueue(ctx, a.ID)
		if counted {
			res.Recounted++
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	logging.From(ctx).Info("periodic reviews", "accounts", res.Accounts, "checked", res.Checked, "opened", res.Opened,
		"queues_recounted", res.Recounted, "errors", len(errs))
	return res, errors.Join(errs...)
}

// recountQueue counts the account's queue if it never was: a read per
// account and day, and the account's reviews read once, ever.
func (s *Scheduler) recountQueue(ctx context.Context, accountID int64) (bool, error) {
	if s.Queue == nil {
		return false, nil
	}
	done, err := s.Queue.QueueRecounted(ctx, accountID)
	if err != nil || done {
		return false, err
	}
	counts, err := s.Queue.RecountQueue(ctx, accountID)
	if err != nil {
		return false, err
	}
	logging.From(ctx).Info("review queue recounted", "account_id", accountID, "open", counts[domain.ReviewOpen],
		"in_progress", counts[domain.ReviewInProgress], "escalated", counts[domain.ReviewEscalated])
	return true, nil
}

func (s *Scheduler) openIfDue(ctx context.Context, a domain.Account, e domain.Entity, interval time.Duration, now time.Time) (bool, error) {
	reviews, err := s.Store.EntityReviews(ctx, a.ID, e.ID, e.ReviewsCount)
	if err != nil {
		return false, err
	}
	last := e.CreatedAt
	for _, r := range reviews {
		if r.Status.Active() {
			return false, nil // one review at a time
		}
		at := r.CreatedAt
		if r.CompletedAt != nil {
			at = *r.CompletedAt
		}
		if at.After(last) {
			last = at
		}
	}
	if now.Sub(last) < interval {
		return false, nil
	}
	// The period is numbered from the Unix epoch in whole intervals.
	period := now.Unix() / int64(interval.Seconds())
	next := e
	next.Status = domain.EntityUnderMonitoring
	next.ReviewsCount++
	next.UpdatedAt = now
	d := domain.Decision{
		Audit: domain.AuditRecord{
			AccountID: a.ID, ActionID: fmt.Sprintf("periodic-%d-%d-%d", a.ID, e.ID, period), Action: domain.ActionOpenPeriodicReview,
			OperatorName: SchedulerName, EntityID: e.ID, Reason: fmt.Sprintf("review interval of %d days passed", int(interval.Hours()/24)),
			Before: map[string]any{"entity_status": string(e.Status)}, After: map[string]any{"entity_status": string(next.Status)}, At: now,
		},
		Entity:    &next,
		NewReview: &domain.Review{AccountID: a.ID, EntityID: e.ID, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen, CreatedAt: now, UpdatedAt: now},
	}
	switch err := s.Store.ApplyDecision(ctx, d); {
	case errors.Is(err, domain.ErrDuplicateAction), errors.Is(err, domain.ErrStale):
		return false, nil // already opened this period, or changed meanwhile: the next run decides again
	case err != nil:
		return false, err
	}
	return true, nil
}

// HandleSchedule is the periodic-reviews function's handler: one run per
// EventBridge scheduled event, at the event's time. A retried event carries
// the same time, so it computes the same periods and opens nothing twice.
func (s *Scheduler) HandleSchedule(ctx context.Context, ev events.CloudWatchEvent) (RunResult, error) {
	run := *s
	if !ev.Time.IsZero() {
		run.Clock = domain.FixedClock(ev.Time)
	}
	return run.Run(ctx)
}
