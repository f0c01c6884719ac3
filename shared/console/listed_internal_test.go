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
