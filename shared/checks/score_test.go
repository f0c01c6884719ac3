package checks

import (
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

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
