package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestCreateRecordsThePartiesAndTheirOwners: a create for a Saudi number,
// the documented body alone, through the gateway and the simulated register
// (a partner with 600 shares who also manages, a holding company 79… with
// 400 whose own partners hold 700 and 300): the parties are recorded,
// the holding looked up as a check of its own about it, the indirect shares
// multiplied along the chain, the beneficial owners those at 25 % or more
// with their chains, and current_relationships_count counts every current
// party.
func TestCreateRecordsThePartiesAndTheirOwners(t *testing.T) {
	f := newCreateFixture(t)
	r := f.create(t, map[string]any{"registration_number": "7000000040", "country_code": "sa"})
	if r.status != 201 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	m := r.json(t)
	if m["current_relationships_count"] != 4.0 {
		t.Errorf("current_relationships_count = %v, want 4", m["current_relationships_count"])
	}
	id := int64(m["id"].(float64))
	d, err := f.st.EntityDetail(context.Background(), f.account, id)
	if err != nil {
		t.Fatal(err)
	}
	var parties []string
	byID := map[int64]domain.Party{}
	for _, p := range d.Entity.Parties {
		byID[p.ID] = p
		parties = append(parties, fmt.Sprintf("%s %s via %v", p.Name, p.Kind, p.Via))
		if p.ID == 0 || !p.Current || p.Source != domain.PartyFromRegister {
			t.Errorf("party %+v", p)
		}
	}
	want := []string{"عبدالله محمد الحربي person via []", "شركة الأفق القابضة company via []",
		"سالم عبدالرحمن القحطاني person via [7900000040]", "نورة خالد العتيبي person via [7900000040]"}
	if strings.Join(parties, "; ") != strings.Join(want, "; ") {
		t.Errorf("parties\n%q\nwant\n%q", parties, want)
	}
	var lookup *domain.Check
	for i, c := range d.Checks {
		if c.Type == domain.CheckRegistryLookup && c.SubjectType != nil {
			lookup = &d.Checks[i]
		}
	}
	if lookup == nil || *lookup.SubjectType != "party" || byID[*lookup.SubjectID].Name != "شركة الأفق القابضة" ||
		lookup.Status != domain.CheckCompleted || lookup.Evidence == nil && lookup.Result["evidence"] == nil {
		t.Fatalf("the holding's lookup: %+v", lookup)
	}
	o := d.Entity.Ownership
	if o == nil || !o.Determined {
		t.Fatalf("ownership %+v", o)
	}
	var owners []string
	for _, b := range o.Owners {
		owners = append(owners, fmt.Sprintf("%s %s %s %v", byID[b.PartyID].Name, b.Basis, b.Percent, b.Chains))
	}
	wantOwners := []string{
		"عبدالله محمد الحربي ownership 60.00 % [7000000040 > 1000000040]",
		"سالم عبدالرحمن القحطاني ownership 28.00 % [7000000040 > 7900000040 > 1900000040]",
	}
	if strings.Join(owners, "; ") != strings.Join(wantOwners, "; ") {
		t.Errorf("beneficial owners\n%q\nwant\n%q", owners, wantOwners)
	}
	if d.Entity.RegistrationStatus != domain.RegistrationValid || d.Entity.LegalName == "شركة الأفق القابضة" {
		t.Errorf("the holding's lookup spoke for the entity: %s, %q", d.Entity.RegistrationStatus, d.Entity.LegalName)
	}
}
