package domain

// The fields an operator action takes of its own, by their JSON names in
// the decision's request and its signed document.
const (
	FieldAssignee = "assignee_id"
	FieldRisk     = "risk_level"
	FieldMatch    = "match_id"
	FieldVerdict  = "verdict"
	FieldWebsite  = "website_url"
	FieldSocial   = "social_url"
	FieldSummary  = "business_activity_summary"
)

// ActionFields are the fields action a takes of its own (besides the ids,
// action_id, reason and seen every action takes), a fresh list. Held here,
// once, because two readers must agree on it: the decisions refuse any
// other field, and a signed decision's record counts only when it names
// each of them as its signed document does (shared/passkey).
func ActionFields(a Action) []string {
	switch a {
	case ActionAssign:
		return []string{FieldAssignee}
	case ActionAdjudicateMatch:
		return []string{FieldMatch, FieldVerdict}
	case ActionAssessRisk:
		return []string{FieldRisk}
	case ActionUpdateProfile:
		return []string{FieldWebsite, FieldSocial, FieldSummary}
	}
	return nil
}
