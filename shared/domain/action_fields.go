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
	// record_party's: what is done to which party, and the party's facts.
	FieldPartyOp          = "party_op"
	FieldPartyID          = "party_id"
	FieldPartyKind        = "party_kind"
	FieldPartyName        = "party_name"
	FieldPartyRoles       = "party_roles"
	FieldPartyShares      = "party_shares"
	FieldPartyIDType      = "party_identity_type"
	FieldPartyIDNumber    = "party_identity_number"
	FieldPartyNationality = "party_nationality"
	FieldPartyBirthDate   = "party_birth_date"
	FieldPartySource      = "party_source"
	FieldPartyControls    = "party_controls"
)

// What record_party does to a party.
const (
	PartyOpAdd     = "add"
	PartyOpCorrect = "correct"
	PartyOpEnd     = "end"
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
	case ActionRecordParty:
		return []string{FieldPartyOp, FieldPartyID, FieldPartyKind, FieldPartyName, FieldPartyRoles, FieldPartyShares, FieldPartyIDType,
			FieldPartyIDNumber, FieldPartyNationality, FieldPartyBirthDate, FieldPartySource, FieldPartyControls}
	}
	return nil
}
