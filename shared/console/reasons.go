package console

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// reasonCode is one of the documented reasons an operator picks for a
// decision; a free note may follow it. The decision's reason is
// "<code>: <note>", or the code alone: the code is what reports count,
// the note what a person reads.
type reasonCode struct {
	Code, Label string
}

// reasonOther is every action's escape: it takes a note, which says why.
const reasonOther = "other"

// reasonCodes are the codes offered for an action, "other" last. The list
// is the console's documentation of why operators decide: adding a code
// is a change reviewers of the audit trail should hear of.
func reasonCodes(a domain.Action) []reasonCode {
	var codes []reasonCode
	switch a {
	case domain.ActionApprove:
		codes = []reasonCode{{"documents_verified", "Documents verified"}, {"registry_confirmed", "Registry record confirmed"},
			{"screening_cleared", "Screening matches cleared"}, {"low_risk_profile", "Low-risk profile"}}
	case domain.ActionReject:
		codes = []reasonCode{{"sanctions_match", "Sanctions match confirmed"}, {"documents_invalid", "Documents invalid"},
			{"registry_invalid", "Registration invalid or expired"}, {"unreachable", "Customer unreachable"},
			{"risk_unacceptable", "Risk outside appetite"}}
	case domain.ActionEscalate:
		codes = []reasonCode{{"needs_supervisor", "Needs a supervisor's judgement"}, {"unclear_ownership", "Ownership unclear"},
			{"conflicting_information", "Conflicting information"}}
	case domain.ActionEscalateToAML:
		codes = []reasonCode{{"possible_sanctions_match", "Possible sanctions match"}, {"suspicious_activity", "Suspicious activity"},
			{"adverse_media", "Adverse media"}}
	case domain.ActionCancel:
		codes = []reasonCode{{"duplicate", "Duplicate review"}, {"withdrawn", "Withdrawn by the customer"}, {"opened_in_error", "Opened in error"}}
	case domain.ActionQueueChecks:
		codes = []reasonCode{{"checks_stale", "Checks out of date"}, {"provider_failed", "A provider failed"}, {"new_information", "New information"}}
	case domain.ActionAdjudicateMatch:
		codes = []reasonCode{{"identity_confirmed", "Identity confirmed"}, {"name_only", "Name similarity only"},
			{"different_jurisdiction", "Different jurisdiction"}, {"different_dates", "Different dates or identifiers"}}
	case domain.ActionAssessRisk:
		codes = []reasonCode{{"risk_model", "Risk model outcome"}, {"jurisdiction", "Jurisdiction"}, {"business_activity", "Business activity"}}
	case domain.ActionAssign:
		codes = []reasonCode{{"workload", "Workload"}, {"expertise", "Expertise"}}
	case domain.ActionUpdateProfile:
		codes = []reasonCode{{"customer_provided", "Provided by the customer"}, {"public_source", "Public source"}}
	case domain.ActionRecordParty:
		codes = []reasonCode{{"merchant_declared", "Declared by the merchant"}, {"register_outdated", "The register is out of date"},
			{"document_seen", "Seen in a document"}, {"control_established", "Control by other means established"}}
	case domain.ActionOpenPeriodicReview:
		codes = []reasonCode{{"trigger_event", "Trigger event"}, {"scheduled_early", "Scheduled review brought forward"}}
	case domain.ActionEndRelationship:
		codes = []reasonCode{{"offboarded", "Customer off-boarded"}, {"business_closed", "Business closed"}, {"terminated", "Relationship terminated by us"}}
	case domain.ActionStart:
		return nil // start takes no reason
	}
	return append(codes, reasonCode{reasonOther, "Other (say why in the note)"})
}

// combineReason is the decision's reason from a form's code and note: a
// code from the action's list, or none; "other" needs a note; a note
// without a code is refused, since the code is what is counted.
func combineReason(a domain.Action, code, note string) (string, error) {
	code, note = strings.TrimSpace(code), strings.Join(strings.Fields(note), " ")
	switch {
	case code == "" && note == "":
		return "", nil
	case code == "":
		return "", domain.Invalid("reason", "needs a reason code; the note comes after it")
	case !slices.ContainsFunc(reasonCodes(a), func(r reasonCode) bool { return r.Code == code }):
		return "", domain.Invalid("reason", fmt.Sprintf("%q is not a reason code of %s", code, a))
	case code == reasonOther && note == "":
		return "", domain.Invalid("reason", "other needs a note saying why")
	case note == "":
		return code, nil
	}
	return code + ": " + note, nil
}
