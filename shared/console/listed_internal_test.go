package console

import (
	"fmt"
	"testing"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestComparisonAgrees: a field agrees when a value on each side is the
// same once case, spacing and punctuation are set aside, and only then.
func TestComparisonAgrees(t *testing.T) {
	e := domain.Entity{LegalName: "Al-Noor Trading Co.", RegistrationNumber: "7001234567", CountryCode: "SA"}
	for _, tc := range []struct {
		name  string
		props map[string][]string
		want  map[string]bool // by field
	}{
		{"nothing in common", map[string][]string{"name": {"Other Ltd"}, "registrationNumber": {"99"}, "country": {"ae"}},
			map[string]bool{"Name": false, "Registration number": false, "Country": false}},
		{"the same name, spelt otherwise", map[string][]string{"alias": {"AL NOOR  trading co"}},
			map[string]bool{"Name": true}},
		{"the number with separators", map[string][]string{"registrationNumber": {"7001-234 567"}},
			map[string]bool{"Registration number": true}},
		{"the number under another identifier", map[string][]string{"taxNumber": {"7001234567"}},
			map[string]bool{"Registration number": true}},
		{"the country as a jurisdiction", map[string][]string{"jurisdiction": {"sa"}},
			map[string]bool{"Country": true}},
		{"a number that only starts the same", map[string][]string{"registrationNumber": {"70012345678"}},
			map[string]bool{"Registration number": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := comparison(e, nil, checks.ListedParty{Caption: "x", Properties: tc.props})
			for _, r := range rows {
				if want, ok := tc.want[r.Field]; ok && r.Agrees != want {
					t.Errorf("%s agrees %v, want %v (%v beside %v)", r.Field, r.Agrees, want, r.Entity, r.Listed)
				}
			}
		})
	}
}

// TestComparisonCapsLongLists: a listing's hundreds of aliases are shown
// up to maxValues, the rest counted.
func TestComparisonCapsLongLists(t *testing.T) {
	var aliases []string
	for i := range 40 {
		aliases = append(aliases, fmt.Sprintf("Alias %d", i))
	}
	rows := comparison(domain.Entity{LegalName: "A"}, nil, checks.ListedParty{Properties: map[string][]string{"alias": aliases}})
	if got := rows[0].Listed; len(got) != maxValues+1 || got[maxValues] != "… and 28 more (in the provider's answer)" {
		t.Errorf("names shown: %d, last %q", len(got), got[len(got)-1])
	}
}

// TestComparisonShowsEveryNameAndTheRegistersFacts: the entity's side
// carries each of its names and what the register said of it (issue date,
// city, legal form, activities), not "not recorded".
func TestComparisonShowsEveryNameAndTheRegistersFacts(t *testing.T) {
	e := domain.Entity{LegalName: "شركة المجد للزراعة", Names: []domain.EntityName{
		{Name: "شركة المجد للزراعة", Source: domain.NameRegister}, {Name: "Al Majd Agri", Source: domain.NameDeclared}}}
	register := map[string]any{"legal_name": "شركة المجد للزراعة", "issue_date": "2019-07-02", "city": "الرياض",
		"legal_form": "شركة ذات مسؤولية محدودة", "activities": []any{map[string]any{"id": "463012", "name": "البيع بالجملة"}}}
	rows := comparison(e, register, checks.ListedParty{Caption: "x"})
	want := map[string]string{
		"Name":          "[شركة المجد للزراعة Al Majd Agri]",
		"Dates":         "[registered 2019-07-02]",
		"Addresses":     "[الرياض (the register's head office)]",
		"Other details": "[legal form: شركة ذات مسؤولية محدودة activity 463012: البيع بالجملة]",
	}
	for _, r := range rows {
		if w, ok := want[r.Field]; ok && fmt.Sprint(r.Entity) != w {
			t.Errorf("%s: entity side %v, want %s", r.Field, r.Entity, w)
		}
	}
}
