package console

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// decision is a decision's fields as the confirmation page carries them
// and its script posts them back, twice (for the signing options, then
// with the signature): strings exactly as rendered, so both posts build
// the one request, whose digest the passkey signs. Who decides, and in
// which account, is the session's, never the page's.
type decision struct {
	Action string `json:"action"`
	// EntityID is the review's entity, as the confirmation page showed
	// it: the signed document names it (its record counts for no other).
	EntityID   string `json:"entity_id"`
	ReviewID   string `json:"review_id"`
	ActionID   string `json:"action_id"`
	Seen       string `json:"seen"`
	Reason     string `json:"reason"`
	AssigneeID string `json:"assignee_id"`
	RiskLevel  string `json:"risk_level"`
	MatchID    string `json:"match_id"`
	Verdict    string `json:"verdict"`
	WebsiteURL string `json:"website_url"`
	SocialURL  string `json:"social_url"`
	Summary    string `json:"business_activity_summary"`
	// record_party's, each "" when not given.
	PartyOp          string `json:"party_op"`
	PartyID          string `json:"party_id"`
	PartyKind        string `json:"party_kind"`
	PartyName        string `json:"party_name"`
	PartyRoles       string `json:"party_roles"`
	PartyShares      string `json:"party_shares"`
	PartyIDType      string `json:"party_identity_type"`
	PartyIDNumber    string `json:"party_identity_number"`
	PartyNationality string `json:"party_nationality"`
	PartyBirthDate   string `json:"party_birth_date"`
	PartySource      string `json:"party_source"`
	PartyControls    string `json:"party_controls"` // "yes", "no"
	// ViewedAt is when the dossier was shown (RFC 3339): not signed, only
	// where a stale view's page starts listing what changed.
	ViewedAt string `json:"viewed_at"`
}

// decisionOf reads a review page's decision form: the reason from its code
// and note, the rest as given (trimmed, runs of white space as one).
func decisionOf(form url.Values, reviewID int64, actionID string) (decision, error) {
	action := domain.Action(form.Get("action"))
	reason, err := combineReason(action, form.Get("reason_code"), form.Get("note"))
	if err != nil {
		return decision{}, err
	}
	clean := func(k string) string { return strings.Join(strings.Fields(form.Get(k)), " ") }
	return decision{
		Action: string(action), ReviewID: itoa(reviewID), ActionID: actionID, Seen: form.Get("seen"), Reason: reason,
		AssigneeID: clean("assignee_id"), RiskLevel: clean("risk_level"), MatchID: clean("match_id"), Verdict: clean("verdict"),
		WebsiteURL: clean("website_url"), SocialURL: clean("social_url"), Summary: clean("business_activity_summary"),
		PartyOp: clean("party_op"), PartyID: clean("party_id"), PartyKind: clean("party_kind"), PartyName: clean("party_name"),
		PartyRoles: clean("party_roles"), PartyShares: clean("party_shares"), PartyIDType: clean("party_identity_type"),
		PartyIDNumber: clean("party_identity_number"), PartyNationality: strings.ToUpper(clean("party_nationality")),
		PartyBirthDate: clean("party_birth_date"), PartySource: clean("party_source"), PartyControls: clean("party_controls"),
		ViewedAt: form.Get("viewed_at"),
	}, nil
}

// request is the decision as the workflow takes it, by the session's
// operator in the session's account, checked as every entry checks it
// (decisions.CheckRequest) and against the operator's permission now.
func (d decision) request(s portal.Session) (decisions.Request, error) {
	rule, ok := decisions.RuleOf(domain.Action(d.Action))
	if !ok {
		return decisions.Request{}, domain.Invalid("action", fmt.Sprintf("%q is not an action", d.Action))
	}
	reviewID, err := strconv.ParseInt(d.ReviewID, 10, 64)
	if err != nil || reviewID <= 0 {
		return decisions.Request{}, domain.Invalid("review_id", "must be a review's id")
	}
	if !webpage.ValidActionID(d.ActionID) {
		return decisions.Request{}, domain.Invalid("action_id", "is not one the console made: open the review again")
	}
	req := decisions.Request{Action: domain.Action(d.Action), AccountID: s.AccountID, ReviewID: reviewID, OperatorID: s.Operator.ID,
		ActionID: d.ActionID, Reason: d.Reason, Seen: d.Seen, RiskLevel: d.RiskLevel, MatchID: d.MatchID, Verdict: d.Verdict,
		WebsiteURL: optional(d.WebsiteURL), SocialURL: optional(d.SocialURL), ActivitySummary: optional(d.Summary)}
	if d.EntityID != "" {
		if req.EntityID, err = strconv.ParseInt(d.EntityID, 10, 64); err != nil || req.EntityID <= 0 {
			return decisions.Request{}, domain.Invalid("entity_id", "must be an entity's id")
		}
	}
	if err := d.partyFields(&req); err != nil {
		return decisions.Request{}, err
	}
	if d.AssigneeID != "" {
		if req.AssigneeID, err = strconv.ParseInt(d.AssigneeID, 10, 64); err != nil || req.AssigneeID <= 0 {
			return decisions.Request{}, domain.Invalid("assignee_id", "must be an operator's id")
		}
	}
	if err := decisions.CheckRequest(req); err != nil {
		return decisions.Request{}, err
	}
	if !s.Can(rule.Permission) {
		return decisions.Request{}, domain.Errorf(domain.ECodeForbidden, "You lack the %s permission needed to %s.", rule.Permission, actionLabel(req.Action))
	}
	return req, nil
}

// partyFields sets record_party's fields from the form's: blank is not
// given (a correction changes only what is filled in).
func (d decision) partyFields(req *decisions.Request) error {
	req.PartyOp, req.PartyKind, req.PartySource = d.PartyOp, d.PartyKind, d.PartySource
	req.PartyName, req.PartyRoles, req.PartyNationality, req.PartyBirthDate = optional(d.PartyName), optional(d.PartyRoles), optional(d.PartyNationality), optional(d.PartyBirthDate)
	if d.PartyIDNumber != "" || d.PartyIDType != "" {
		req.PartyIDType, req.PartyIDNumber = &d.PartyIDType, &d.PartyIDNumber
	}
	if d.PartyID != "" {
		id, err := strconv.ParseInt(d.PartyID, 10, 64)
		if err != nil || id <= 0 {
			return domain.Invalid("party_id", "must be one of the entity's parties")
		}
		req.PartyID = id
	}
	if d.PartyShares != "" {
		n, err := strconv.ParseInt(d.PartyShares, 10, 64)
		if err != nil {
			return domain.Invalid("party_shares", "must be a whole count of shares")
		}
		req.PartyShares = &n
	}
	switch d.PartyControls {
	case "":
	case "yes", "no":
		req.PartyControls = new(d.PartyControls == "yes")
	default:
		return domain.Invalid("party_controls", "must be yes or no")
	}
	return nil
}

// optional is a form's field as a request's optional one: empty is not
// given (the console changes a profile field, never clears one).
func optional(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// actionLabel is an action in words, as a button or a heading says it.
func actionLabel(a domain.Action) string {
	switch a {
	case domain.ActionAssign:
		return "Assign"
	case domain.ActionStart:
		return "Start the review"
	case domain.ActionEscalate:
		return "Escalate to a supervisor"
	case domain.ActionEscalateToAML:
		return "Escalate to AML"
	case domain.ActionApprove:
		return "Approve"
	case domain.ActionReject:
		return "Reject"
	case domain.ActionCancel:
		return "Cancel the review"
	case domain.ActionQueueChecks:
		return "Run the checks again"
	case domain.ActionAdjudicateMatch:
		return "Adjudicate a match"
	case domain.ActionAssessRisk:
		return "Assess the risk"
	case domain.ActionUpdateProfile:
		return "Update the profile"
	case domain.ActionOpenPeriodicReview:
		return "Open a periodic review"
	case domain.ActionEndRelationship:
		return "End the relationship"
	case domain.ActionRecordParty:
		return "Record a party"
	case domain.ActionReviewClaim:
		// Not a decision, but on trails written before a claim was recorded
		// as its assign and start.
		return "Take from the queue"
	}
	return label(a)
}
