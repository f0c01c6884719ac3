package seed

import (
	"math/rand/v2"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// marks are the moments of the review story that checks and the risk
// assessment hang off.
type marks struct {
	initialCreated  time.Time
	initialStarted  time.Time // zero when not started
	periodicCreated time.Time // zero without a periodic review
	decided         time.Time // when the latest decision was taken; zero if none
}

func assign(r *rand.Rand, rv *domain.Review) {
	op := pick(r, operators)
	rv.AssignedUserID, rv.AssignedUserName = new(op.id), new(op.name)
}

// review builds one review of status st created at created; its later
// moments fall between the fractions lo and hi of the entity's life.
func review(r *rand.Rand, purpose domain.ReviewPurpose, st domain.ReviewStatus, outcome, reason string, created time.Time, life span, lo, hi float64) domain.Review {
	rv := domain.Review{Purpose: purpose, Status: st, CreatedAt: created, UpdatedAt: created}
	if st == domain.ReviewOpen {
		rv.NotesCount = r.IntN(2)
		return rv
	}
	rv.NotesCount = r.IntN(6)
	mid := between(r, lo, lo+(hi-lo)*0.4)
	started := maxTime(life.at(mid), created)
	end := maxTime(life.at(between(r, lo+(hi-lo)*0.6, hi)), started)
	switch st {
	case domain.ReviewInProgress, domain.ReviewEscalated:
		assign(r, &rv)
		rv.StartedAt, rv.UpdatedAt = new(started), end
	case domain.ReviewCompleted:
		assign(r, &rv)
		rv.StartedAt, rv.CompletedAt, rv.UpdatedAt = new(started), new(end), end
		rv.Outcome, rv.OutcomeReason = new(outcome), new(reason)
	case domain.ReviewCancelled:
		if pct(r, 50) {
			assign(r, &rv)
			rv.StartedAt = new(started)
		}
		rv.UpdatedAt = end
	}
	return rv
}

// buildReviews returns the initial review first (the store links the checks
// to it), then the periodic one.
func buildReviews(r *rand.Rand, p plan, life span) ([]domain.Review, marks) {
	var m marks
	if p.initial == "" {
		return nil, m
	}
	m.initialCreated = life.after(life.from, time.Duration(4000+r.IntN(4000))*time.Millisecond)
	if p.periodic == "" {
		ini := review(r, domain.ReviewInitial, p.initial, p.initialOutcome, p.initialReason, m.initialCreated, life, 0.05, 1)
		if ini.StartedAt != nil {
			m.initialStarted = *ini.StartedAt
		}
		if ini.CompletedAt != nil {
			m.decided = *ini.CompletedAt
		}
		return []domain.Review{ini}, m
	}
	ini := review(r, domain.ReviewInitial, p.initial, p.initialOutcome, p.initialReason, m.initialCreated, life, 0.02, 0.3)
	m.initialStarted, m.decided = *ini.StartedAt, *ini.CompletedAt
	m.periodicCreated = maxTime(life.at(between(r, 0.5, 0.7)), ini.UpdatedAt)
	per := review(r, domain.ReviewPeriodic, p.periodic, p.periodicOutcome, p.periodicReason, m.periodicCreated, life, 0.72, 1)
	if per.CompletedAt != nil {
		m.decided = *per.CompletedAt
	}
	return []domain.Review{ini, per}, m
}
