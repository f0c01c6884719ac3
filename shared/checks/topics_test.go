package checks

import "testing"

func TestMatchClassByTopics(t *testing.T) {
	tests := []struct {
		topics    []string
		class     string
		byControl bool
	}{
		{[]string{"sanction"}, ClassSanction, false},
		{[]string{"sanction.linked"}, ClassSanction, true},
		{[]string{"sanction.control"}, ClassSanction, true},
		{[]string{"sanction", "sanction.control"}, ClassSanction, false},
		{[]string{"role.pep"}, ClassPEP, false},
		{[]string{"role.pep.frmr"}, ClassPEP, false},
		{[]string{"role.rca"}, ClassPEP, false},
		{[]string{"role.pep", "sanction"}, ClassSanction, false},
		{[]string{"crime.fin"}, ClassOtherRisk, false},
		{[]string{"debarment"}, ClassOtherRisk, false},
		{[]string{"export.control"}, ClassOtherRisk, false},
		{[]string{"sanction.counter"}, ClassOtherRisk, false},
		{nil, ClassOtherRisk, false},
	}
	for _, tt := range tests {
		if got := MatchClass(tt.topics); got != tt.class {
			t.Errorf("MatchClass(%v) = %s, want %s", tt.topics, got, tt.class)
		}
		if got := ByControl(tt.topics); got != tt.byControl {
			t.Errorf("ByControl(%v) = %v, want %v", tt.topics, got, tt.byControl)
		}
	}
}

// TestTheResultKeepsEachMatchsClass: the class, the topics and, for a match
// through ownership or control, that label are kept with the match.
func TestTheResultKeepsEachMatchsClass(t *testing.T) {
	res := (&Yente{}).Read("q", YenteQueryResponse{Results: []ScreeningMatch{
		{ID: "c", Score: 0.95, Properties: MatchProperties{Topics: []string{"sanction.control"}}},
		{ID: "p", Score: 0.9, Properties: MatchProperties{Topics: []string{"role.pep"}}},
	}})
	m := ScreeningResultMap(res)
	ms := Sanitize("organization_screening", m)["matches"].([]any)
	c, p := ms[0].(map[string]any), ms[1].(map[string]any)
	if c["class"] != ClassSanction || c["by_control"] != true || p["class"] != ClassPEP || p["by_control"] != nil || m["status"] != "hit" {
		t.Errorf("matches %v, status %v", ms, m["status"])
	}
}
