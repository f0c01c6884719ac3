// Package decisions carries out operator actions on reviews: it checks the
// operator's permission and the transition's legality, computes the new
// review and entity, and writes them with an audit record in one
// transaction. The Step Functions decision workflow and the local command
// line call the same Service.
package decisions

import (
	"github.com/evs-kyb/evs/shared/domain"
)

// rule is what an action needs, where it may start and what it takes.
type rule struct {
	permission string
	// from lists the review statuses the action may start from; empty means any.
	from []domain.ReviewStatus
	// reason: whether the action must say why, may, or takes no reason.
	reason reasonRule
	// fields are the action's own fields (domain.ActionFields); any
	// other is refused.
	fields []string
}

type reasonRule int

const (
	reasonOptional reasonRule = iota
	reasonRequired
	reasonNone
)

// ruleOf is the transition table's row for an action (the table is
// documented in the README); ok is false for anything not an action.
func ruleOf(a domain.Action) (r rule, ok bool) {
	active := []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}
	decided := []domain.ReviewStatus{domain.ReviewInProgress, domain.ReviewEscalated}
	r, ok = map[domain.Action]rule{
		domain.ActionAssign:             {permission: domain.PermReviewAssign, from: active},
		domain.ActionStart:              {permission: domain.PermReviewDecide, from: []domain.ReviewStatus{domain.ReviewOpen}, reason: reasonNone},
		domain.ActionEscalate:           {permission: domain.PermReviewDecide, from: []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress}, reason: reasonRequired},
		domain.ActionEscalateToAML:      {permission: domain.PermReviewDecide, from: active, reason: reasonRequired},
		domain.ActionApprove:            {permission: domain.PermReviewDecide, from: decided, reason: reasonRequired},
		domain.ActionReject:             {permission: domain.PermReviewDecide, from: decided, reason: reasonRequired},
		domain.ActionCancel:             {permission: domain.PermReviewDecide, from: active, reason: reasonRequired},
		domain.ActionQueueChecks:        {permission: domain.PermReviewDecide, from: active},
		domain.ActionAdjudicateMatch:    {permission: domain.PermReviewDecide, from: active},
		domain.ActionAssessRisk:         {permission: domain.PermRiskAssess},
		domain.ActionUpdateProfile:      {permission: domain.PermProfileEdit},
		domain.ActionOpenPeriodicReview: {permission: domain.PermReviewDecide},
		// Who is behind the business is decided on an active review, and
		// says why.
		domain.ActionRecordParty: {permission: domain.PermReviewDecide, from: active, reason: reasonRequired},
		// On any review of the entity: the relationship is the entity's.
		domain.ActionEndRelationship: {permission: domain.PermReviewDecide, reason: reasonRequired},
	}[a]
	r.fields = domain.ActionFields(a)
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
