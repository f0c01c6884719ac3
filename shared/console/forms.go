package console

import (
	"slices"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// actionForm is one decision form of the review page: an action the
// operator may take on the review as it stands, with the fields the action
// takes, its reason codes, and an action id of its own (a form submitted
// twice is one decision).
type actionForm struct {
	Action   domain.Action
	ActionID string
	Reason   decisions.ReasonRule
	Codes    []reasonCode
	fields   []string
	// Assignees are the operators an assign form offers.
	Assignees []domain.Operator
	// MatchID is the match an adjudication form judges.
	MatchID string
	// Blockers are what the decision policy finds in the action's way:
	// the form is shown disabled with them, never offered to sign.
	Blockers []decisions.Blocker
	// FourEyes: the decision will wait for a second operator's approval.
	FourEyes bool
}

// Has reports whether the form takes the field (by its JSON name).
func (f actionForm) Has(field string) bool { return slices.Contains(f.fields, field) }

// Risks are the levels an assessment form offers.
func (f actionForm) Risks() []domain.RiskLevel { return domain.RiskLevels() }

// Ends reports whether the action ends the review (its button warns).
func (f actionForm) Ends() bool {
	return f.Action == domain.ActionReject || f.Action == domain.ActionCancel
}

// formFor is the form of an action the session may take on r, or ok false:
// the permission, the review's status (the rules' table) and each action's
// own condition, so no form is offered that could only be refused.
func formFor(s portal.Session, a domain.Action, r domain.Review) (actionForm, bool) {
	rule, ok := decisions.RuleOf(a)
	if !ok || !s.Can(rule.Permission) || !rule.AllowedFrom(r.Status) {
		return actionForm{}, false
	}
	return actionForm{Action: a, ActionID: webpage.NewActionID(), Reason: rule.Reason, Codes: reasonCodes(a), fields: rule.Fields}, true
}

// reviewForms are the forms of every action but adjudication (which has a
// form per match), in the actions' order.
func reviewForms(s portal.Session, d shownDossier, r domain.Review, operators []domain.Operator) []actionForm {
	var out []actionForm
	for _, a := range domain.Actions() {
		f, ok := formFor(s, a, r)
		if !ok {
			continue
		}
		switch a {
		case domain.ActionAdjudicateMatch:
			continue
		case domain.ActionAssign:
			f.Assignees = assignees(operators, r)
			if len(f.Assignees) == 0 {
				continue
			}
		case domain.ActionEscalateToAML:
			if domain.Deref(r.Escalation) == domain.EscalationAML {
				continue
			}
		case domain.ActionOpenPeriodicReview:
			if !periodicAllowed(d) {
				continue
			}
		case domain.ActionEndRelationship:
			if d.Entity.RelationshipEndedAt != nil {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// assignees are the active operators who may decide, but the review's
// assignee.
func assignees(ops []domain.Operator, r domain.Review) []domain.Operator {
	var out []domain.Operator
	for _, op := range ops {
		if op.Can(domain.PermReviewDecide) && (r.AssignedUserID == nil || *r.AssignedUserID != op.ID) {
			out = append(out, op)
		}
	}
	return out
}

// periodicAllowed: an approved, onboarded or monitored entity without an
// active review (decisions' condition for open_periodic_review).
func periodicAllowed(d shownDossier) bool {
	switch d.Entity.Status {
	case domain.EntityApproved, domain.EntityOnboarded, domain.EntityUnderMonitoring:
	default:
		return false
	}
	return !slices.ContainsFunc(d.Reviews, func(r domain.Review) bool { return r.Status.Active() })
}
