package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestPartiesRoundTrip: an entity's parties are written with it, each
// given an id of the account's party sequence, read back whole, and
// counted in current_relationships_count (the current ones only), by
// create and by import alike.
func TestPartiesRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	since, until := t0.Add(time.Minute), t0.Add(time.Hour)
	parties := []domain.Party{
		{Kind: domain.PartyPerson, Name: "محمد علي", Title: "السيد", Roles: []domain.PartyRole{domain.RoleOwner, domain.RoleManager},
			RoleWords: []string{"شريك", "مدير"}, Shares: &domain.ShareCounts{Cash: 600, Total: 600},
			Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000001"}, Nationality: "SA", NationalityRegister: "1 سعودي",
			BirthDate: "1975-03-14", BirthDateRegister: "1975/03/14", Source: domain.PartyFromRegister, Current: true, Since: &since},
		{Kind: domain.PartyCompany, Name: "شركة الأفق القابضة", Roles: []domain.PartyRole{domain.RoleOwner},
			Shares: &domain.ShareCounts{Cash: 300, InKind: 100, Total: 400}, Identity: domain.PartyIdentity{Type: domain.IdentityUnifiedNumber, Number: "7009876543"},
			Source: domain.PartyFromRegister, Current: true, Since: &since},
		{Kind: domain.PartyPerson, Name: "Former Manager", Roles: []domain.PartyRole{domain.RoleManager}, Source: domain.PartyDeclared,
			Current: false, Since: &since, Until: &until},
	}
	tests := []struct {
		name  string
		write func(d domain.EntityDetail) (int64, error)
	}{
		{"create", func(d domain.EntityDetail) (int64, error) {
			c, err := st.CreateEntity(ctx, d)
			return c.Entity.ID, err
		}},
		{"import", func(d domain.EntityDetail) (int64, error) {
			out, err := st.ImportEntities(ctx, acct, []domain.EntityDetail{d})
			if err != nil {
				return 0, err
			}
			return out[0].Entity.ID, nil
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := sampleEntity(acct, "SA", []string{"7001234567", "7001234568"}[i], t0)
			d.Entity.Parties = parties
			d.Entity.RelationshipsCount = 9 // not what is written: the count is the parties'
			id, err := tt.write(d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.Entity(ctx, acct, id)
			if err != nil {
				t.Fatal(err)
			}
			if got.RelationshipsCount != 2 || len(got.Parties) != 3 {
				t.Fatalf("count %d, %d parties", got.RelationshipsCount, len(got.Parties))
			}
			seen := map[int64]bool{}
			for k, p := range got.Parties {
				if p.ID == 0 || seen[p.ID] || p.ID/domain.IDSpan != acct || p.EntityID != id || p.AccountID != acct {
					t.Errorf("party %d: id %d, entity %d, account %d", k, p.ID, p.EntityID, p.AccountID)
				}
				seen[p.ID] = true
				want := parties[k]
				want.ID, want.AccountID, want.EntityID = p.ID, acct, id
				if !reflect.DeepEqual(normaliseTimes(p), normaliseTimes(want)) {
					t.Errorf("party %d\n%+v\nwant\n%+v", k, p, want)
				}
			}
		})
	}
}

// normaliseTimes compares times by instant.
func normaliseTimes(p domain.Party) domain.Party {
	for _, t := range []**time.Time{&p.Since, &p.Until} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	return p
}

// TestFiftyPartiesCreate: a merchant with 50 parties, each screened with
// its answer kept (two items a check), has more to write than one
// transaction holds: the commit takes the entity's own checks and what
// fits, the rest follow, and the entity counts every check, which get-one
// reads back, the dossier's revision moved with each later write.
func TestFiftyPartiesCreate(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	evidence := func(n int) *domain.Evidence {
		return domain.NewEvidence("opensanctions", "POST", "https://yente.example/match/default", 200, []byte(fmt.Sprintf(`{"n":%d}`, n)), t0)
	}
	d := domain.EntityDetail{
		Entity: domain.Entity{AccountID: acct, RegistrationNumber: "7000005040", LegalName: "Fifty Partners Co", CountryCode: "SA", CountryID: 682,
			Status: domain.EntityReadyForReview, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{
			{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted, Evidence: evidence(-1), CreatedAt: t0, UpdatedAt: t0},
			{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, Evidence: evidence(0), CreatedAt: t0, UpdatedAt: t0},
		},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: t0, UpdatedAt: t0}},
	}
	ids, err := st.ReservePartyIDs(ctx, acct, 50)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		p := domain.Party{ID: ids[i], Kind: domain.PartyPerson, Name: fmt.Sprintf("Partner %02d", i), Roles: []domain.PartyRole{domain.RoleOwner},
			Shares: &domain.ShareCounts{Total: 20}, Source: domain.PartyFromRegister, Current: true}
		d.Entity.Parties = append(d.Entity.Parties, p)
		d.Checks = append(d.Checks, domain.Check{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted,
			SubjectType: new("party"), SubjectID: new(p.ID), SubjectDisplayName: new(p.Name), Evidence: evidence(i + 1), CreatedAt: t0, UpdatedAt: t0})
	}
	created, err := st.CreateEntity(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Checks) != 52 || created.Entity.ChecksCount != 52 || created.Entity.DossierRev < 2 {
		t.Errorf("created: %d checks, count %d, dossier rev %d", len(created.Checks), created.Entity.ChecksCount, created.Entity.DossierRev)
	}
	got, err := st.EntityDetail(ctx, acct, created.Entity.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checks) != 52 || got.Entity.ChecksCount != 52 || got.Entity.RelationshipsCount != 50 || got.Entity.DossierRev != created.Entity.DossierRev {
		t.Errorf("read back: %d checks (count %d), %d relationships, dossier rev %d (created said %d)",
			len(got.Checks), got.Entity.ChecksCount, got.Entity.RelationshipsCount, got.Entity.DossierRev, created.Entity.DossierRev)
	}
	for _, c := range got.Checks {
		if c.EntityID != created.Entity.ID || c.ReviewID == nil || *c.ReviewID != created.Reviews[0].ID {
			t.Errorf("check %d: entity %d, review %v; want the entity's, the intake review's", c.ID, c.EntityID, c.ReviewID)
			break
		}
	}
	// The intake review counts every check linked to it, those written
	// after the commit too, in the answer and in the store.
	rev, err := st.Review(ctx, acct, created.Reviews[0].ID)
	if err != nil || rev.ChecksCount != 52 || created.Reviews[0].ChecksCount != 52 {
		t.Errorf("intake review: checks_count %d stored, %d answered (%v); want 52", rev.ChecksCount, created.Reviews[0].ChecksCount, err)
	}
	ev, err := st.Evidence(ctx, acct, got.Checks[len(got.Checks)-1].ID)
	if err != nil || ev.SHA256 == "" {
		t.Errorf("the last party check's evidence: %+v, %v", ev, err)
	}
}
