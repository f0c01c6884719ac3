package decisions_test

import (
	"testing"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
)

// RuleOf tells the console what CheckRequest and Validate enforce: every
// action has a rule, and its reason rule is the one CheckRequest applies.
func TestRuleOfMatchesTheTable(t *testing.T) {
	for _, a := range domain.Actions() {
		t.Run(string(a), func(t *testing.T) {
			r, ok := decisions.RuleOf(a)
			if !ok || r.Permission == "" {
				t.Fatalf("rule %+v, %v", r, ok)
			}
			req := decisions.Request{Action: a, AccountID: 1, ReviewID: 1, OperatorID: 1, ActionID: "act-1"}
			withoutReason := domain.ErrorFields(decisions.CheckRequest(req))["reason"] != nil
			req.Reason = "because"
			withReason := domain.ErrorFields(decisions.CheckRequest(req))["reason"] != nil
			if withoutReason != (r.Reason == decisions.ReasonRequired) || withReason != (r.Reason == decisions.ReasonNone) {
				t.Errorf("reason %s, but CheckRequest refuses none: %v, one: %v", r.Reason, withoutReason, withReason)
			}
		})
	}
	if _, ok := decisions.RuleOf("approve_all"); ok {
		t.Error("a rule for what is no action")
	}
	if r, _ := decisions.RuleOf(domain.ActionApprove); r.AllowedFrom(domain.ReviewOpen) || !r.AllowedFrom(domain.ReviewInProgress) {
		t.Errorf("approve from %v", r.From)
	}
}
