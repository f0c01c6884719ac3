package decisions

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// CheckRequest refuses, before anything is read, a request that no state
// of the records could make legal: an unknown action, a missing id, a field
// the action does not take, a reason it needs and lacks (or takes none
// of), text that breaks freetext's rules, a value outside its list. Every
// entry — the workflow, the command line, a raw StartExecution — passes
// here.
func CheckRequest(req Request) error {
	r, ok := ruleOf(req.Action)
	if !ok {
		return domain.Invalid("action", fmt.Sprintf("%s is not an action; use one of %v", logging.Quoted(string(req.Action)), domain.Actions()))
	}
	if req.AccountID <= 0 || req.ReviewID <= 0 || req.OperatorID <= 0 {
		return domain.Errorf(domain.ECodeBadRequest, "account_id, review_id and operator_id are required")
	}
	if err := freetext.Check("action_id", req.ActionID, freetext.ActionID, true); err != nil {
		return err
	}
	if err := freetext.Check("seen", req.Seen, freetext.Token, false); err != nil {
		return err
	}
	for _, f := range givenFields(req) {
		if !slices.Contains(r.fields, f) {
			return domain.Invalid(f, strictjson.NotAField(string(req.Action), ""))
		}
	}
	switch r.reason {
	case reasonNone:
		if req.Reason != "" {
			return domain.Invalid("reason", fmt.Sprintf("is not taken by %s", req.Action))
		}
	case reasonRequired:
		if strings.TrimSpace(req.Reason) == "" {
			return domain.Invalid("reason", fmt.Sprintf("is required: %s needs a reason", req.Action))
		}
	}
	if err := freetext.Check("reason", req.Reason, freetext.Reason, false); err != nil {
		return err
	}
	return checkFields(req)
}

// givenFields lists the action-specific fields a request sets.
func givenFields(req Request) []string {
	return slices.Sorted(maps.Keys(fieldValues(req)))
}

// fieldValues are the action-specific fields a request sets, with their
// values as its decision document writes them: the audit record's after
// names each, so the record says what was asked as well as what changed.
func fieldValues(req Request) map[string]any {
	out := map[string]any{}
	set := func(name string, given bool, v any) {
		if given {
			out[name] = v
		}
	}
	set(domain.FieldAssignee, req.AssigneeID != 0, req.AssigneeID)
	set(domain.FieldRisk, req.RiskLevel != "", req.RiskLevel)
	set(domain.FieldMatch, req.MatchID != "", req.MatchID)
	set(domain.FieldVerdict, req.Verdict != "", req.Verdict)
	set(domain.FieldWebsite, req.WebsiteURL != nil, domain.Deref(req.WebsiteURL))
	set(domain.FieldSocial, req.SocialURL != nil, domain.Deref(req.SocialURL))
	set(domain.FieldSummary, req.ActivitySummary != nil, domain.Deref(req.ActivitySummary))
	set(domain.FieldPartyOp, req.PartyOp != "", req.PartyOp)
	set(domain.FieldPartyID, req.PartyID != 0, req.PartyID)
	set(domain.FieldPartyKind, req.PartyKind != "", req.PartyKind)
	set(domain.FieldPartyName, req.PartyName != nil, domain.Deref(req.PartyName))
	set(domain.FieldPartyRoles, req.PartyRoles != nil, domain.Deref(req.PartyRoles))
	set(domain.FieldPartyShares, req.PartyShares != nil, domain.Deref(req.PartyShares))
	set(domain.FieldPartyIDType, req.PartyIDType != nil, domain.Deref(req.PartyIDType))
	set(domain.FieldPartyIDNumber, req.PartyIDNumber != nil, domain.Deref(req.PartyIDNumber))
	set(domain.FieldPartyNationality, req.PartyNationality != nil, domain.Deref(req.PartyNationality))
	set(domain.FieldPartyBirthDate, req.PartyBirthDate != nil, domain.Deref(req.PartyBirthDate))
	set(domain.FieldPartySource, req.PartySource != "", req.PartySource)
	set(domain.FieldPartyControls, req.PartyControls != nil, domain.Deref(req.PartyControls))
	return out
}

// checkFields checks the action's own fields' values.
func checkFields(req Request) error {
	switch req.Action {
	case domain.ActionAssign:
		if req.AssigneeID <= 0 {
			return domain.Invalid(domain.FieldAssignee, "is required: assign needs an assignee")
		}
	case domain.ActionAssessRisk:
		if !validRisk(req.RiskLevel) {
			return domain.Invalid(domain.FieldRisk, "must be one of low, medium, high")
		}
	case domain.ActionAdjudicateMatch:
		if err := freetext.Check(domain.FieldMatch, req.MatchID, freetext.Token, true); err != nil {
			return err
		}
		if req.Verdict != domain.VerdictTruePositive && req.Verdict != domain.VerdictFalsePositive {
			return domain.Invalid(domain.FieldVerdict, "must be true_positive or false_positive")
		}
	case domain.ActionRecordParty:
		return checkParty(req)
	case domain.ActionUpdateProfile:
		if req.WebsiteURL == nil && req.SocialURL == nil && req.ActivitySummary == nil {
			return domain.Errorf(domain.ECodeBadRequest, "update_profile needs website_url, social_url or business_activity_summary")
		}
		for _, u := range []struct {
			field string
			v     *string
		}{{domain.FieldWebsite, req.WebsiteURL}, {domain.FieldSocial, req.SocialURL}} {
			if u.v == nil || *u.v == "" {
				continue
			}
			if err := freetext.Check(u.field, *u.v, freetext.Description, false); err != nil {
				return err
			}
			if !validURL(*u.v) {
				return domain.Invalid(u.field, "must be an http or https URL with a host")
			}
		}
		if req.ActivitySummary != nil {
			if err := freetext.Check(domain.FieldSummary, *req.ActivitySummary, freetext.Summary, false); err != nil {
				return err
			}
		}
	}
	return nil
}
