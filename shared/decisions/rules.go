// Package decisions carries out operator actions on reviews: it checks the
// operator's permission and the transition's legality, computes the new
// review and entity, and writes them with an audit record in one
// transaction. The Step Functions decision workflow and the local command
// line call the same Service.
package decisions

import (
	"github.com/evs-kyb/evs/shared/domain"
)

// rule is what an action needs and where it may start.
type rule struct {
	permission string
	// from lists the review statuses the action may start from; empty means any.
	from []domain.ReviewStatus
	// needsReason: the action must say why.
	needsReason bool
}

// ruleOf is the transition table's row for an action (the table is
// documented in the README); ok is false for anything not an action.
func ruleOf(a domain.Action) (r rule, ok bool) {
	active := []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}
	r, ok = map[domain.Action]rule{
		domain.ActionAssign:             {permission: domain.PermReviewAssign, from: active},
		domain.ActionStart:              {permission: domain.PermReviewDecide, from: []domain.ReviewStatus{domain.ReviewOpen}},
		domain.ActionEscalate:           {permission: domain.PermReviewDecide, from: []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress}, needsReason: true},
		domain.ActionEscalateToAML:      {permission: domain.PermReviewDecide, from: active, needsReason: true},
		domain.ActionApprove:            {permission: domain.PermReviewDecide, from: []domain.ReviewStatus{domain.ReviewInProgress, domain.ReviewEscalated}, needsReason: true},
		domain.ActionReject:             {permission: domain.PermReviewDecide, from: []domain.ReviewStatus{domain.ReviewInProgress, domain.ReviewEscalated}, needsReason: true},
		domain.ActionCancel:             {permission: domain.PermReviewDecide, from: active, needsReason: true},
		domain.ActionQueueChecks:        {permission: domain.PermReviewDecide, from: active},
		domain.ActionAdjudicateMatch:    {permission: domain.PermReviewDecide, from: active},
		domain.ActionAssessRisk:         {permission: domain.PermRiskAssess},
		domain.ActionUpdateProfile:      {permission: domain.PermProfileEdit},
		domain.ActionOpenPeriodicReview: {permission: domain.PermReviewDecide},
	}[a]
	return r, ok
}

func allowedFrom(r rule, s domain.ReviewStatus) bool {
	if len(r.from) == 0 {
		return true
	}
	for _, f := range r.from {
		if f == s {
			return true
		}
	}
	return false
}

// entityStatusAfter is the entity's status once a review completes.
func entityStatusAfter(r domain.Review, outcome string) domain.EntityStatus {
	switch {
	case outcome == domain.OutcomeRejected:
		return domain.EntityRejected
	case r.Purpose == domain.ReviewInitial:
		return domain.EntityApproved
	default: // an approved periodic review keeps the entity monitored
		return domain.EntityUnderMonitoring
	}
}
