package checks

import (
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestCoverage pins the points each component gives and their caps.
func TestCoverage(t *testing.T) {
	cases := []struct {
		name                    string
		registry, screened      bool
		docs                    int
		website, social         bool
		want                    int
		wantRegistry, wantDocs  int
		wantScreening, wantOnln int
	}{
		{"nothing", false, false, 0, false, false, 0, 0, 0, 0, 0},
		{"everything", true, true, 6, true, true, 100, 40, 20, 30, 10},
		{"registry only", true, false, 0, false, false, 40, 40, 0, 0, 0},
		{"screened, two documents, website", false, true, 2, true, false, 45, 0, 10, 30, 5},
		{"documents cap at 20", false, false, 5, false, true, 25, 0, 20, 0, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Coverage(CoverageInput{RegistryValid: tc.registry, Screened: tc.screened, Documents: tc.docs, Website: tc.website, Social: tc.social})
			if s.Value != tc.want {
				t.Errorf("value %d, want %d", s.Value, tc.want)
			}
			got := map[string]int{}
			for _, c := range s.Breakdown {
				got[c.Key] = c.Points
			}
			want := map[string]int{ScoreRegistry: tc.wantRegistry, ScoreScreening: tc.wantScreening, ScoreDocuments: tc.wantDocs, ScoreOnlinePresence: tc.wantOnln}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("breakdown %v, want %v", got, want)
			}
		})
	}
}

func TestScoreOf(t *testing.T) {
	done := func(typ domain.CheckType) domain.Check { return domain.Check{Type: typ, Status: domain.CheckCompleted} }
	failed := func(typ domain.CheckType) domain.Check { return domain.Check{Type: typ, Status: domain.CheckFailed} }
	url := "https://example.com"
	valid := domain.Entity{RegistrationStatus: domain.RegistrationValid}
	tests := []struct {
		name   string
		e      domain.Entity
		cs     []domain.Check
		want   int // -1: no score
		reason string
	}{
		{"no checks", valid, nil, -1, "nothing verified yet"},
		{"none completed", valid, []domain.Check{failed(domain.CheckRegistryLookup), failed(domain.CheckOrganizationScreening)}, -1, "failed checks verify nothing"},
		{"registry valid", valid, []domain.Check{done(domain.CheckRegistryLookup)}, MaxRegistry, ""},
		{"registry invalid", domain.Entity{RegistrationStatus: domain.RegistrationExpired}, []domain.Check{done(domain.CheckRegistryLookup)}, 0, "a lookup that found no valid register gives nothing"},
		{"valid without lookup", valid, []domain.Check{done(domain.CheckOrganizationScreening)}, MaxScreening, "a registration valid by a decision is not a registry lookup"},
		{"both", valid, []domain.Check{done(domain.CheckRegistryLookup), done(domain.CheckOrganizationScreening)}, MaxRegistry + MaxScreening, ""},
		{"documents and presence", domain.Entity{DocumentsCount: 9, WebsiteURL: &url, SocialURL: &url}, []domain.Check{done(domain.CheckOrganizationScreening)}, MaxScreening + MaxDocuments + MaxOnlinePresence, "documents cap at their maximum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreOf(tt.e, tt.cs)
			switch {
			case tt.want < 0 && s != nil:
				t.Errorf("ScoreOf = %d, want no score (%s)", s.Value, tt.reason)
			case tt.want >= 0 && s == nil:
				t.Errorf("ScoreOf = nil, want %d", tt.want)
			case tt.want >= 0 && s.Value != tt.want:
				t.Errorf("ScoreOf = %d, want %d %s", s.Value, tt.want, tt.reason)
			}
		})
	}
}

// TestCoverageFrom: the inputs read back from a record, the screening from
// the score it already has.
func TestCoverageFrom(t *testing.T) {
	site := "https://example.sa"
	screened := Coverage(CoverageInput{Screened: true})
	cases := []struct {
		name string
		e    domain.Entity
		want CoverageInput
	}{
		{"bare record", domain.Entity{}, CoverageInput{}},
		{"valid, documents, website", domain.Entity{RegistrationStatus: domain.RegistrationValid, DocumentsCount: 3, WebsiteURL: &site},
			CoverageInput{RegistryValid: true, Documents: 3, Website: true}},
		{"expired registration counts nothing", domain.Entity{RegistrationStatus: domain.RegistrationExpired, SocialURL: &site},
			CoverageInput{Social: true}},
		{"screened by its score", domain.Entity{Score: screened}, CoverageInput{Screened: true}},
		{"a score without screening points", domain.Entity{Score: Coverage(CoverageInput{Documents: 1})}, CoverageInput{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := CoverageFrom(tc.e); got != tc.want {
				t.Errorf("CoverageFrom = %+v, want %+v", got, tc.want)
			}
		})
	}
}
