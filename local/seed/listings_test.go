package seed

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestEveryListingHasTheEnginesAnswer: the seed answers a listed name from
// the recording (local's TestDemoAnswersAreTheEngines keeps it current),
// so every listing must be in it, finding its listed party.
func TestEveryListingHasTheEnginesAnswer(t *testing.T) {
	answers, err := EngineAnswers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range Listings() {
		if ids := resultIDs(t, answers[l.Name]); !slices.Contains(ids, l.Listed) {
			t.Errorf("%q: the recorded answer finds %v, not %s", l.Name, ids, l.Listed)
		}
	}
}

// TestDemoMatchesAreTheEnginesFindings: every match a demo screening
// records is a party the engine found for the name it sent; among the
// open reviews' matches is a party listed under an Arabic name.
func TestDemoMatchesAreTheEnginesFindings(t *testing.T) {
	answers, err := EngineAnswers()
	if err != nil {
		t.Fatal(err)
	}
	arabicListed := false
	for i, d := range Demo(testNow, 150) {
		open := slices.ContainsFunc(d.Reviews, func(r domain.Review) bool { return r.Status == domain.ReviewOpen })
		for _, c := range d.Checks {
			if c.Type != domain.CheckOrganizationScreening || c.Status != domain.CheckCompleted {
				continue
			}
			name := d.Entity.LegalName
			if c.SubjectDisplayName != nil {
				name = *c.SubjectDisplayName
			}
			found := resultIDs(t, answers[name])
			ms, _ := c.Result["matches"].([]any)
			for _, m := range ms {
				mm := m.(map[string]any)
				if !slices.Contains(found, mm["id"].(string)) {
					t.Errorf("entity %d (%q): match %v is not among the engine's findings %v", i, name, mm["id"], found)
				}
				if caption, _ := mm["caption"].(string); open && strings.ContainsFunc(caption, func(r rune) bool { return unicode.Is(unicode.Arabic, r) }) {
					arabicListed = true
				}
			}
			if status := c.Result["status"]; status != "clear" && len(ms) == 0 {
				t.Errorf("entity %d (%q): screening %v with no match", i, name, status)
			}
		}
	}
	if !arabicListed {
		t.Error("no open review's screening matched a party listed under an Arabic name")
	}
}

func resultIDs(t *testing.T, rs []json.RawMessage) []string {
	t.Helper()
	var ids []string
	for _, r := range rs {
		var m struct{ ID string }
		if err := json.Unmarshal(r, &m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return ids
}
