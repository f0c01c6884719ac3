package console

import (
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/ownership"
)

// TestPartiesSection: each party's share is of its own company (the
// entity's, or the holding's it is held through), its screening in words,
// and the beneficial owners with their basis and chains.
func TestPartiesSection(t *testing.T) {
	e := domain.Entity{
		Parties: []domain.Party{
			{ID: 1, Kind: domain.PartyPerson, Name: "محمد علي", Title: "السيد", Roles: []domain.PartyRole{domain.RoleOwner, domain.RoleManager},
				Shares: &domain.ShareCounts{Total: 600}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000001"}, Nationality: "SA", Current: true},
			{ID: 2, Kind: domain.PartyCompany, Name: "شركة الأفق القابضة", Roles: []domain.PartyRole{domain.RoleOwner}, Shares: &domain.ShareCounts{Total: 400}, Current: true},
			{ID: 3, Kind: domain.PartyPerson, Name: "سالم", Roles: []domain.PartyRole{domain.RoleOwner}, Shares: &domain.ShareCounts{Total: 700}, Via: []string{"790"}, Current: true},
			{ID: 4, Kind: domain.PartyPerson, Name: "نورة", Roles: []domain.PartyRole{domain.RoleOwner}, Shares: &domain.ShareCounts{Total: 300}, Via: []string{"790"}, Current: true},
		},
		Ownership: &domain.Ownership{Determined: true, ThresholdPc: "25.00 %", Owners: []domain.BeneficialOwner{
			{PartyID: 1, Name: "محمد علي", Basis: ownership.BasisOwnership, Percent: "60.00 %", Chains: []string{"700 > 1000000001"}}}},
	}
	cs := []domain.Check{
		{ID: 9, Type: domain.CheckOrganizationScreening, Status: domain.CheckCompleted, SubjectID: new(int64(1)), Result: map[string]any{"matches_count": 1.0}},
		{ID: 8, Type: domain.CheckOrganizationScreening, Status: domain.CheckFailed, SubjectID: new(int64(2))},
		{ID: 7, Type: domain.CheckOrganizationScreening, Status: domain.CheckCompleted, SubjectID: new(int64(3)), Result: map[string]any{"matches_count": 0.0}},
	}
	s := parties(e, cs)
	var got []string
	for _, p := range s.Parties {
		got = append(got, p.Name+" | "+p.Roles+" | "+p.Share+" | "+p.Screening)
	}
	want := []string{
		"محمد علي | owner or partner, manager | 60.00 % (600 shares) | 1 match(es): see the screening matches below",
		"شركة الأفق القابضة | owner or partner | 40.00 % (400 shares) | screening failed",
		"سالم | owner or partner | 70.00 % (700 shares) | screened: nothing found",
		"نورة | owner or partner | 30.00 % (300 shares) | not screened",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parties\n%q\nwant\n%q", got, want)
	}
	if !s.Known || !s.Determined || len(s.Owners) != 1 || s.Owners[0].Basis != "ownership" || s.Owners[0].Chains != "700 > 1000000001" {
		t.Errorf("owners %+v", s)
	}
}
