package checks

import (
	"slices"
	"strings"
)

// What a screening match is, read from its topics (FollowTheMoney's, as
// yente gives them in properties.topics), never from yente's target flag.
const (
	// ClassSanction: a designated party (sanction), one linked to it
	// (sanction.linked) or owned or controlled by one (sanction.control).
	// The entity's sanctions_status follows these matches alone.
	ClassSanction = "sanction"
	// ClassPEP: a politically exposed person (role.pep, role.pep.*) or a
	// relative or close associate of one (role.rca).
	ClassPEP = "pep"
	// ClassOtherRisk: crime, wanted, debarment, export control, regulatory
	// action or warning, a person of interest, and a match with no risk
	// topic at all: judged like the others, not a sanctions hit.
	ClassOtherRisk = "other_risk"
)

// MatchClasses lists the classes, strongest first.
func MatchClasses() []string { return []string{ClassSanction, ClassPEP, ClassOtherRisk} }

// MatchClass is the class of a match with topics: sanction before PEP
// before other risk, so a sanctioned PEP is a sanction.
func MatchClass(topics []string) string {
	switch {
	case slices.ContainsFunc(topics, isSanctionTopic):
		return ClassSanction
	case slices.ContainsFunc(topics, func(t string) bool { return t == "role.pep" || strings.HasPrefix(t, "role.pep.") || t == "role.rca" }):
		return ClassPEP
	}
	return ClassOtherRisk
}

// isSanctionTopic: sanction, sanction.linked, sanction.control; not
// sanction.counter (a counter-sanction, which policy usually leaves out).
func isSanctionTopic(t string) bool {
	return t == "sanction" || t == "sanction.linked" || t == "sanction.control"
}

// ByControl tells a sanction match that is one through ownership or
// control (sanction.control, sanction.linked) rather than a designation of
// the party itself.
func ByControl(topics []string) bool {
	return !slices.Contains(topics, "sanction") && (slices.Contains(topics, "sanction.control") || slices.Contains(topics, "sanction.linked"))
}
