package screening

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// MonitorName is who the audit trail names for the reviews a screening
// answer opens: the service, not an operator.
const MonitorName = "ongoing screening monitor"

// monitored reports whether the entity is under ongoing monitoring: a
// customer (approved, onboarded or under monitoring, as the periodic-review
// scheduler has them) whose relationship has not ended.
func monitored(e domain.Entity) bool {
	switch e.Status {
	case domain.EntityApproved, domain.EntityOnboarded, domain.EntityUnderMonitoring:
		return e.RelationshipEndedAt == nil
	}
	return false
}

// alarming reports whether u calls for a person: it leaves its subject (the
// entity, or the party a party's screening is about) at hit or
// needs_review, and either the subject was not at that status before or the
// answer adds a match the previous screening did not have (a new listing
// for a subject already known as a hit).
func alarming(u domain.ScreeningUpdate) bool {
	if u.Answered != domain.SanctionsHit && u.Answered != domain.SanctionsNeedsReview {
		return false
	}
	return previously(u) != u.Answered || matchesAdded(u.New) > 0
}

// previously is the subject's status before u: the entity's sanctions
// status, or for a party what its check last answered (not_run while the
// check waits for its first answer).
func previously(u domain.ScreeningUpdate) domain.SanctionsStatus {
	if u.Check.SubjectType == nil {
		return u.Entity.SanctionsStatus
	}
	if u.Check.Status != domain.CheckCompleted {
		return domain.SanctionsNotRun
	}
	return domain.SanctionsStatus(fmt.Sprint(u.Check.Result["status"]))
}

// subjectOf names the check's subject for the trail: the entity, or the
// party by its name.
func subjectOf(c domain.Check) string {
	if c.SubjectType == nil {
		return "screening"
	}
	return fmt.Sprintf("screening of %s %q", *c.SubjectType, domain.Deref(c.SubjectDisplayName))
}

// matchesAdded counts the matches a re-screen found that the previous
// screening had not (its changes), 0 for none or no re-screen.
func matchesAdded(n *domain.Check) int {
	if n == nil {
		return 0
	}
	changes, _ := n.Result["changes"].(map[string]any)
	switch added := changes["matches_added"].(type) {
	case []any:
		return len(added)
	case []map[string]any:
		return len(added)
	}
	return 0
}

// opening is the review u opens, nil for none: an alarming answer for a
// monitored entity with no active review opens one, purpose periodic,
// triggered by the provider's update, unassigned and due now, audited as
// open_periodic_review by MonitorName. An entity with an active review gets
// none: the answer's check is among the entity's checks its review shows.
// The action id names the webhook, so a delivery applied twice opens one.
func (s *Service) opening(ctx context.Context, u domain.ScreeningUpdate) (*domain.MonitoringReview, error) {
	e := u.Entity
	if !monitored(e) || !alarming(u) {
		return nil, nil
	}
	reviews, err := s.Store.EntityReviews(ctx, e.AccountID, e.ID, e.ReviewsCount)
	if err != nil {
		return nil, fmt.Errorf("screening: reviews of entity %d: %w", e.ID, err)
	}
	for _, r := range reviews {
		if r.Status.Active() {
			return nil, nil
		}
	}
	checkID := u.Check.ID
	if u.New != nil {
		checkID = u.New.ID
	}
	r := domain.Review{
		AccountID: e.AccountID, EntityID: e.ID, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen,
		TriggeringReason: domain.TriggerProviderUpdate, CreatedAt: u.At, UpdatedAt: u.At,
	}
	a := domain.AuditRecord{
		AccountID: e.AccountID, ActionID: MonitoringActionID(u.Provider, u.WebhookID), Action: domain.ActionOpenPeriodicReview,
		OperatorName: MonitorName, EntityID: e.ID,
		Reason: fmt.Sprintf("%s %s answered %s (check %d, webhook %s)", u.Provider, subjectOf(u.Check), u.Answered, checkID, u.WebhookID),
		Before: map[string]any{"entity_status": string(e.Status), "sanctions_status": string(e.SanctionsStatus)},
		After: map[string]any{
			"entity_status": string(domain.EntityUnderMonitoring), "sanctions_status": string(u.SanctionsStatus),
			"triggering_reason": domain.TriggerProviderUpdate, "check_id": checkID, "answered": string(u.Answered),
		},
		At: u.At,
	}
	return &domain.MonitoringReview{Review: r, Audit: a}, nil
}

// MonitoringActionID is the action id of the review a provider's webhook
// opens: one per delivery.
func MonitoringActionID(provider, webhookID string) string {
	return "provider-update-" + provider + "-" + webhookID
}
