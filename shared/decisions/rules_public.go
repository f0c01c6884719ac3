package decisions

import (
	"slices"

	"github.com/evs-kyb/evs/shared/domain"
)

// ReasonRule says whether an action must give a reason, may, or takes
// none.
type ReasonRule string

const (
	ReasonOptional ReasonRule = "optional"
	ReasonRequired ReasonRule = "required"
	ReasonNone     ReasonRule = "none"
)

// Rule is an action's row of the transition table as the console reads
// it to offer only the forms an operator may submit: the permission it
// needs, the review statuses it starts from (empty: any), its reason rule
// and its own fields by their JSON names. The table itself stays here, so
// the console's forms and the decision function never disagree.
type Rule struct {
	Permission string
	From       []domain.ReviewStatus
	Reason     ReasonRule
	Fields     []string
}

// RuleOf is the action's rule; ok is false for anything not an action.
func RuleOf(a domain.Action) (Rule, bool) {
	r, ok := ruleOf(a)
	if !ok {
		return Rule{}, false
	}
	reason := map[reasonRule]ReasonRule{reasonOptional: ReasonOptional, reasonRequired: ReasonRequired, reasonNone: ReasonNone}[r.reason]
	return Rule{Permission: r.permission, From: slices.Clone(r.from), Reason: reason, Fields: slices.Clone(r.fields)}, true
}

// AllowedFrom reports whether the action may start from a review in
// status s.
func (r Rule) AllowedFrom(s domain.ReviewStatus) bool {
	return len(r.From) == 0 || slices.Contains(r.From, s)
}
