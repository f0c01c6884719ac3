// Package reviewevents turns changes of the reviews table, as its stream
// reports them, into the review events of spec section 6 and one delivery
// message per subscribed, active endpoint.
package reviewevents

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// Detect lists the events a review change fires, from its images before
// and after. A new review (no old image) or a deleted one fires nothing:
// creation is not an event (spec 6, rule 8).
//
//   - approved / rejected: the review became completed with that outcome;
//   - escalated: it became escalated to a supervisor;
//   - escalated_to_aml: it became escalated to AML (from open, in progress or
//     a supervisor's escalation); an AML escalation fires only this, the
//     specific kind;
//   - assigned: its assignee changed to someone (assign and reassign);
//   - checks_queued: checks were queued for it (checks_queued_at moved).
func Detect(old, new *domain.Review) []domain.EventType {
	if old == nil || new == nil {
		return nil
	}
	var out []domain.EventType
	if new.Status == domain.ReviewCompleted && old.Status != domain.ReviewCompleted {
		switch domain.Deref(new.Outcome) {
		case domain.OutcomeApproved:
			out = append(out, domain.EventApproved)
		case domain.OutcomeRejected:
			out = append(out, domain.EventRejected)
		}
	}
	if new.Status == domain.ReviewEscalated && (old.Status != domain.ReviewEscalated || domain.Deref(old.Escalation) != domain.Deref(new.Escalation)) {
		switch domain.Deref(new.Escalation) {
		case domain.EscalationAML:
			out = append(out, domain.EventEscalatedToAML)
		default:
			out = append(out, domain.EventEscalated)
		}
	}
	if new.AssignedUserID != nil && (old.AssignedUserID == nil || *old.AssignedUserID != *new.AssignedUserID) {
		out = append(out, domain.EventAssigned)
	}
	if new.ChecksQueuedAt != nil && (old.ChecksQueuedAt == nil || !old.ChecksQueuedAt.Equal(*new.ChecksQueuedAt)) {
		out = append(out, domain.EventChecksQueued)
	}
	return out
}

// NewEvent is the body of an event of the review as it now is.
func NewEvent(t domain.EventType, r domain.Review) domain.Event {
	return domain.Event{
		EventType: t, EntityReviewID: r.ID, EntityID: r.EntityID, AccountID: r.AccountID,
		Outcome: r.Outcome, OccurredAt: domain.FormatTime(r.UpdatedAt),
	}
}

// EventID names an event: the review's version identifies the change, so a
// stream record seen twice names the same event.
func EventID(t domain.EventType, r domain.Review) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d|%d|%d|%s", r.AccountID, r.ID, r.Version, t)))
	return "evt_" + hex.EncodeToString(sum[:16])
}
