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

// alarming reports whether u, applied to the entity it read, calls for a
// person: it leaves the entity at hit or needs_review, and either the
// entity was not at that status before or the answer adds a match the
// previous screening did not have (a new listing for an entity already
// known as a hit).
func alarming(u domain.ScreeningUpdate) bool {
	if u.SanctionsStatus != domain.SanctionsHit && u.SanctionsStatus != domain.SanctionsNeedsReview {
		return false
	}
	return u.Entity.SanctionsStatus != u.SanctionsStatus || matchesAdded(u.New) > 0
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
		Reason: fmt.Sprintf("%s screening answered %s (check %d, webhook %s)", u.Provider, u.SanctionsStatus, checkID, u.WebhookID),
		Before: map[string]any{"entity_status": string(e.Status), "sanctions_status": string(e.SanctionsStatus)},
		After: map[string]any{
			"entity_status": string(domain.EntityUnderMonitoring), "sanctions_status": string(u.SanctionsStatus),
			"triggering_reason": domain.TriggerProviderUpdate, "check_id": checkID,
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
