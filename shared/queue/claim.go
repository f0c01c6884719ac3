package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// A claim tries at most maxClaimAttempts reviews (each failed try is one
// another operator took first), found in at most claimPages stretches of
// the queue.
const (
	maxClaimAttempts = 10
	claimPages       = 3
)

// ClaimNext takes, for op, the oldest unassigned open review of the queue
// that f keeps: it assigns it to op and starts it (in progress), in one
// write audited as the two actions it stands for, assign (under
// a.ActionID) then start (StartActionID), both by op and known by the
// session op signed in to with a passkey (identity session, the actor
// naming the session's credential: a.SessionCredential, required). The write is conditioned on the
// review's version, so of two operators claiming at once each gets a
// different review: the loser goes on to the next. The same action id
// again returns the review it claimed.
//
// not_found: nothing waiting that matches. forbidden: op may not decide on
// reviews of a's account. conflict: others took every review tried.
// validation_failed: a filter, or no action id.
func (s *Service) ClaimNext(ctx context.Context, a domain.Actor, op domain.Operator, f Filter) (domain.Review, error) {
	now, err := s.now()
	if err != nil {
		return domain.Review{}, err
	}
	if err := f.Validate(); err != nil {
		return domain.Review{}, err
	}
	if a.ActionID == "" {
		return domain.Review{}, domain.Invalid("action_id", "is required")
	}
	if op.ID == 0 || op.AccountID != a.AccountID || a.OperatorID != op.ID || !op.Can(domain.PermReviewDecide) {
		return domain.Review{}, domain.Errorf(domain.ECodeForbidden, "The operator may not take reviews of this account.")
	}
	if len(a.SessionCredential) == 0 {
		return domain.Review{}, domain.Errorf(domain.ECodeForbidden, "A review is taken in a session signed in with a passkey.")
	}
	nothing := domain.Errorf(domain.ECodeNotFound, "Nothing waiting that matches.")
	// Only an unassigned open review is claimed.
	if (f.Status != "" && f.Status != domain.ReviewOpen) || f.Assignee == AssigneeMe {
		return domain.Review{}, nothing
	}
	f.Status, f.Assignee = domain.ReviewOpen, AssigneeUnassigned
	q, err := f.query(a.AccountID, op.ID, "", maxClaimAttempts)
	if err != nil {
		return domain.Review{}, err
	}
	tries := 0
	for range claimPages {
		slice, err := s.Store.QueuePage(ctx, q)
		if err != nil {
			return domain.Review{}, fmt.Errorf("claim in account %d: %w", a.AccountID, err)
		}
		for _, e := range slice.Entries {
			if tries == maxClaimAttempts {
				return domain.Review{}, domain.Errorf(domain.ECodeConflict, "Other operators took every review tried; try again.")
			}
			tries++
			r, err := s.claim(ctx, a, op, e.Review, now)
			switch {
			case err == nil:
				return r, nil
			case errors.Is(err, domain.ErrDuplicateAction):
				return s.claimedBy(ctx, a)
			case !errors.Is(err, domain.ErrStale):
				return domain.Review{}, fmt.Errorf("claim review %d: %w", e.Review.ID, err)
			}
		}
		if slice.Next == "" {
			break
		}
		q.After = slice.Next
	}
	return domain.Review{}, nothing
}

// claim takes r, as the queue showed it, for op: domain.ErrStale when
// someone moved it first. The index may lag behind the table, so a review
// that turns out stale is read afresh and, still free, tried once more.
func (s *Service) claim(ctx context.Context, a domain.Actor, op domain.Operator, r domain.Review, now time.Time) (domain.Review, error) {
	next, err := s.apply(ctx, a, op, r, now)
	if !errors.Is(err, domain.ErrStale) {
		return next, err
	}
	fresh, ferr := s.Store.Review(ctx, a.AccountID, r.ID)
	if ferr != nil || fresh.Status != domain.ReviewOpen || fresh.AssignedUserID != nil {
		return domain.Review{}, domain.ErrStale
	}
	return s.apply(ctx, a, op, fresh, now)
}

// apply writes the claim of r (read at its version) for op: the review
// assigned and started, and its assign and start records.
func (s *Service) apply(ctx context.Context, a domain.Actor, op domain.Operator, r domain.Review, now time.Time) (domain.Review, error) {
	next := r
	next.AssignedUserID, next.AssignedUserName = new(op.ID), new(op.Name)
	next.Status, next.StartedAt = domain.ReviewInProgress, &now
	next.UpdatedAt = now
	record := func(actionID string, action domain.Action, field string, before, after any) domain.AuditRecord {
		return domain.AuditRecord{
			AccountID: a.AccountID, ActionID: actionID, Action: action, OperatorID: op.ID, OperatorName: op.Name,
			RequestID: a.RequestID, Identity: domain.IdentitySession, Actor: domain.SessionActor([]byte(a.SessionCredential)),
			ReviewID: new(r.ID), EntityID: r.EntityID, Reason: claimReason,
			Before: map[string]any{field: before}, After: map[string]any{field: after}, At: now,
		}
	}
	start := record(StartActionID(a.ActionID), domain.ActionStart, "status", string(r.Status), string(next.Status))
	start.Before["started_at"], start.After["started_at"] = "", domain.FormatTime(now)
	d := domain.Decision{
		Review: &next, ReviewWas: r.Status,
		Audit: record(a.ActionID, domain.ActionAssign, "assigned_user_id", int64(0), op.ID),
		Also:  []domain.AuditRecord{start},
	}
	if err := s.Store.ApplyDecision(ctx, d); err != nil {
		return domain.Review{}, err
	}
	return next, nil
}

// claimReason is the reason a claim's records give.
const claimReason = "taken from the queue"

// StartActionID is the action id of a claim's start record, beside its
// assign record's.
func StartActionID(claimID string) string { return claimID + "/start" }

// claimedBy is the review an earlier claim under a's action id took.
func (s *Service) claimedBy(ctx context.Context, a domain.Actor) (domain.Review, error) {
	rec, err := s.Store.AuditRecord(ctx, a.AccountID, a.ActionID)
	if err != nil {
		return domain.Review{}, fmt.Errorf("the claim %s applied before: %w", a.ActionID, err)
	}
	// A claim recorded before claims were an assign and a start was one
	// review.claim record.
	claim := rec.Action == domain.ActionReviewClaim || (rec.Action == domain.ActionAssign && rec.Identity == domain.IdentitySession)
	if !claim || rec.ReviewID == nil {
		return domain.Review{}, domain.Errorf(domain.ECodeConflict, "The action id %s named another action.", a.ActionID)
	}
	return s.Store.Review(ctx, a.AccountID, *rec.ReviewID)
}
