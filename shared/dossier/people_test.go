package dossier_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/ownership"
)

// TestPeopleView: each party's share is of its own company (the entity's,
// or the holding's it is held through), its screening in words, the
// ownership tree with the holding's holders below it, and the beneficial
// owners with their basis and chains, in the view and in the decision
// dossier's Markdown.
func TestPeopleView(t *testing.T) {
	e := domain.Entity{
		Parties: []domain.Party{
			{ID: 1, Kind: domain.PartyPerson, Name: "محمد علي", Title: "السيد", Roles: []domain.PartyRole{domain.RoleOwner, domain.RoleManager},
				Shares: &domain.ShareCounts{Total: 600}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000001"}, Nationality: "SA", Source: domain.PartyFromRegister, Current: true},
			{ID: 2, Kind: domain.PartyCompany, Name: "شركة الأفق القابضة", Roles: []domain.PartyRole{domain.RoleOwner}, Shares: &domain.ShareCounts{Total: 400},
				Identity: domain.PartyIdentity{Type: domain.IdentityUnifiedNumber, Number: "790"}, Current: true},
			{ID: 3, Kind: domain.PartyPerson, Name: "سالم", Roles: []domain.PartyRole{domain.RoleOwner}, Shares: &domain.ShareCounts{Total: 700}, Via: []string{"790"}, Current: true},
			{ID: 4, Kind: domain.PartyPerson, Name: "نورة", Roles: []domain.PartyRole{domain.RoleOwner}, Shares: &domain.ShareCounts{Total: 300}, Via: []string{"790"}, Current: true},
		},
		Ownership: &domain.Ownership{Determined: true, ThresholdPc: "25.00 %", Owners: []domain.BeneficialOwner{
			{PartyID: 1, Name: "محمد علي", Basis: ownership.BasisOwnership, Percent: "60.00 %", Chains: []string{"700 > 1000000001"}}}},
	}
	cs := []domain.Check{
		{ID: 9, Type: domain.CheckOrganizationScreening, Status: domain.CheckCompleted, SubjectID: new(int64(1)), Result: map[string]any{"matches_count": 1.0, "status": "hit"}},
		{ID: 8, Type: domain.CheckOrganizationScreening, Status: domain.CheckFailed, SubjectID: new(int64(2))},
		{ID: 7, Type: domain.CheckOrganizationScreening, Status: domain.CheckCompleted, SubjectID: new(int64(3)), Result: map[string]any{"matches_count": 0.0}},
	}
	s := dossier.PeopleOf(e, cs)
	var got []string
	for _, p := range s.Parties {
		got = append(got, p.Name+" | "+p.Roles+" | "+p.Share+" | "+p.Screening)
	}
	want := []string{
		"محمد علي | owner or partner, manager | 60.00 % (600 shares) | 1 match(es), screened as hit (check 9)",
		"شركة الأفق القابضة | owner or partner | 40.00 % (400 shares) | screening failed",
		"سالم | owner or partner | 70.00 % (700 shares) | screened: nothing found (check 7)",
		"نورة | owner or partner | 30.00 % (300 shares) | not screened",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parties\n%q\nwant\n%q", got, want)
	}
	if !s.Known || !s.Determined || len(s.Owners) != 1 || s.Owners[0].Basis != "ownership" || s.Owners[0].Chains != "700 > 1000000001" {
		t.Errorf("owners %+v", s)
	}
	var tree []string
	var walk func(ns []dossier.HolderNode, depth int)
	walk = func(ns []dossier.HolderNode, depth int) {
		for _, n := range ns {
			tree = append(tree, fmt.Sprintf("%d %s %s", depth, n.Name, n.Share))
			walk(n.Holders, depth+1)
		}
	}
	walk(s.Tree, 0)
	wantTree := []string{"0 محمد علي 60.00 % (600 shares)", "0 شركة الأفق القابضة 40.00 % (400 shares)",
		"1 سالم 70.00 % (700 shares)", "1 نورة 30.00 % (300 shares)"}
	if !reflect.DeepEqual(tree, wantTree) {
		t.Errorf("ownership tree\n%q\nwant\n%q", tree, wantTree)
	}
	md := dossier.PeopleMarkdown(s)
	for _, want := range []string{
		"| محمد علي | person | owner or partner, manager | 60.00 % (600 shares) | national id 1000000001 | SA | the register | yes | 1 match(es), screened as hit (check 9) |",
		"  - سالم, person: 70.00 % (700 shares)\n",
		"- محمد علي — ownership, 60.00 % (700 \\> 1000000001)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the dossier's section lacks %q:\n%s", want, md)
		}
	}
}
