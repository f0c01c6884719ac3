package seed

import (
	"slices"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// latestScreening is the newest organisation screening check by creation,
// optionally only among entity-scoped ones.
func latestScreening(cs []domain.Check, entityScopedOnly bool) *domain.Check {
	var last *domain.Check
	for i := range cs {
		c := &cs[i]
		if c.Type != domain.CheckOrganizationScreening || entityScopedOnly && c.SubjectType != nil {
			continue
		}
		if last == nil || c.CreatedAt.After(last.CreatedAt) {
			last = c
		}
	}
	return last
}

func wantSanctions(c *domain.Check) domain.SanctionsStatus {
	if c == nil || c.Status != domain.CheckCompleted {
		return domain.SanctionsNotRun
	}
	return domain.SanctionsStatus(c.Result["status"].(string))
}

func checkSanctions(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	for _, scoped := range []bool{false, true} {
		if want := wantSanctions(latestScreening(d.Checks, scoped)); d.Entity.SanctionsStatus != want {
			t.Errorf("%q: sanctions %s, latest screening (entity-scoped only: %v) says %s", d.Entity.LegalName, d.Entity.SanctionsStatus, scoped, want)
		}
	}
	// The latest completed screening agrees as well.
	var done []domain.Check
	for _, c := range d.Checks {
		if c.Status == domain.CheckCompleted {
			done = append(done, c)
		}
	}
	if want := wantSanctions(latestScreening(done, false)); d.Entity.SanctionsStatus != want {
		t.Errorf("%q: sanctions %s, latest completed screening says %s", d.Entity.LegalName, d.Entity.SanctionsStatus, want)
	}
}

func TestDemoSanctionsAgreeWithScreening(t *testing.T) {
	for _, n := range sizes {
		for _, d := range Demo(testNow, n) {
			checkSanctions(t, d)
		}
	}
}

func TestDemoRegistrationAgreesWithRegistry(t *testing.T) {
	want := map[string]domain.RegistrationStatus{
		"active": domain.RegistrationValid, "suspended": domain.RegistrationInvalid,
		"cancelled": domain.RegistrationInvalid, "expired": domain.RegistrationExpired,
	}
	for _, d := range Demo(testNow, 400) {
		var last *domain.Check
		for i := range d.Checks {
			c := &d.Checks[i]
			if c.Type == domain.CheckRegistryLookup && c.Status == domain.CheckCompleted && (last == nil || c.CreatedAt.After(last.CreatedAt)) {
				last = c
			}
		}
		switch {
		case last != nil:
			if w := want[last.Result["status"].(string)]; d.Entity.RegistrationStatus != w {
				t.Errorf("%q: registration %s, registry says %s", d.Entity.LegalName, d.Entity.RegistrationStatus, w)
			}
		case d.Entity.CountryCode == "SA" && d.Entity.RegistrationStatus != domain.RegistrationUnknown:
			t.Errorf("%q: registration %s without a completed lookup", d.Entity.LegalName, d.Entity.RegistrationStatus)
		}
	}
}

// checkChecks asserts the shape of every check of d.
func checkChecks(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	e := d.Entity
	name := e.LegalName
	if len(d.Checks) > 3 || e.ChecksCount != len(d.Checks) {
		t.Errorf("%q: %d checks, ChecksCount %d", name, len(d.Checks), e.ChecksCount)
	}
	triggers := []string{domain.TriggerIntake, domain.TriggerOperatorRequested, domain.TriggerPeriodicReview}
	for i, c := range d.Checks {
		if c.ID != 0 || c.EntityID != 0 || c.AccountID != 0 || c.ReviewID != nil {
			t.Errorf("%q: check %d carries ids", name, i)
		}
		if i > 0 && !c.CreatedAt.After(d.Checks[i-1].CreatedAt) {
			t.Errorf("%q: checks not in creation order", name)
		}
		if !slices.Contains(domain.CheckStatuses(), c.Status) || !slices.Contains(triggers, c.TriggeringReason) || c.ProviderStatus == "" {
			t.Errorf("%q: check %+v", name, c)
		}
		switch c.Type {
		case domain.CheckRegistryLookup:
			if c.ProviderKey != "wathq" || e.CountryCode != "SA" {
				t.Errorf("%q: registry lookup by %q in %s", name, c.ProviderKey, e.CountryCode)
			}
		case domain.CheckOrganizationScreening:
			if c.ProviderKey != "opensanctions" {
				t.Errorf("%q: screening by %q", name, c.ProviderKey)
			}
		default:
			t.Errorf("%q: check type %q", name, c.Type)
		}
		set := []bool{c.SubjectType != nil, c.SubjectID != nil, c.SubjectDisplayName != nil}
		switch {
		case !slices.Contains(set, true):
		case !slices.Contains(set, false):
			if *c.SubjectType != "party" || *c.SubjectID <= 0 || *c.SubjectDisplayName == "" {
				t.Errorf("%q: party subject %q %d %q", name, *c.SubjectType, *c.SubjectID, *c.SubjectDisplayName)
			}
		default:
			t.Errorf("%q: subject fields partly set %v", name, set)
		}

		done := c.Status == domain.CheckCompleted
		st, _ := c.Result["status"].(string)
		if st == "" {
			t.Errorf("%q: result without status: %v", name, c.Result)
		}
		count, hasCount := c.Result["matches_count"]
		if hasCount != (done && c.Type == domain.CheckOrganizationScreening) {
			t.Errorf("%q: %s %s check, result %v: matches_count present=%v", name, c.Status, c.Type, c.Result, hasCount)
		}
		switch {
		case done && c.Type == domain.CheckOrganizationScreening:
			n, ok := count.(int)
			matched, _ := c.Result["matched"].(bool)
			if !ok || n < 0 || matched != (n > 0) || !slices.Contains([]string{"clear", "hit", "needs_review"}, st) || (st == "clear") != (n == 0) {
				t.Errorf("%q: screening result %v", name, c.Result)
			}
		case done && c.Type == domain.CheckRegistryLookup:
			if !slices.Contains([]string{"active", "suspended", "expired", "cancelled"}, st) || c.Result["legal_name"] != name || c.Result["registration_status"] == nil {
				t.Errorf("%q: registry result %v", name, c.Result)
			}
		default:
			if st != string(c.Status) {
				t.Errorf("%q: %s check with result status %q", name, c.Status, st)
			}
		}
		if (c.CheckedAt != nil) != (done || c.Status == domain.CheckFailed) {
			t.Errorf("%q: %s check with checked_at set=%v", name, c.Status, c.CheckedAt != nil)
		}
		if c.SubjectType != nil && !done {
			t.Errorf("%q: party check %s", name, c.Status)
		}
	}
}

func TestDemoChecks(t *testing.T) {
	for _, n := range sizes {
		party := 0
		for _, d := range Demo(testNow, n) {
			checkChecks(t, d)
			for _, c := range d.Checks {
				if c.SubjectType != nil {
					party++
				}
			}
		}
		if party == 0 || party > n/5 {
			t.Errorf("n=%d: %d party-scoped checks, want a few", n, party)
		}
	}
}
