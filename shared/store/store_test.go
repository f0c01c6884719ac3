package store_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// These tests run against DynamoDB Local (started when not running), each on
// tables of its own.

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func newAccount(t *testing.T, st *store.Store, countries ...string) int64 {
	t.Helper()
	ctx := context.Background()
	acct, err := st.CreateAccount(ctx, "Acme "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range countries {
		numeric := map[string]int{"SA": 682, "AE": 784}[c]
		if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, c, numeric, t0)); err != nil {
			t.Fatal(err)
		}
	}
	return acct.ID
}

func sampleEntity(accountID int64, country, number string, at time.Time) domain.EntityDetail {
	numeric := map[string]int{"SA": 682, "AE": 784}[country]
	return domain.EntityDetail{
		Entity: domain.Entity{
			AccountID: accountID, RegistrationNumber: number, LegalName: "Entity " + number,
			CountryCode: country, CountryID: numeric,
			Status: domain.EntityDraft, RegistrationStatus: domain.RegistrationUnknown, SanctionsStatus: domain.SanctionsNotRun,
			CreatedAt: at, UpdatedAt: at,
		},
	}
}

func TestCreateEntityRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	website := "https://example.sa"
	checked := t0.Add(time.Minute)
	d := sampleEntity(acct, "SA", "7001234567", t0)
	d.Entity.Score = &domain.Score{Value: 70, Breakdown: []domain.ScoreComponent{{Key: "registry", Label: "Registry", Points: 40, Max: 40}, {Key: "screening", Label: "Screening", Points: 30, Max: 30}}}
	d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskMedium, AssessedAt: t0.Add(time.Hour)}
	d.Entity.WebsiteURL = &website
	d.Entity.DocumentsCount = 3
	d.Checks = []domain.Check{
		{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted, ProviderStatus: "active", TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "active"}, CheckedAt: &checked, CreatedAt: t0, UpdatedAt: checked},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckPending, TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "pending"}, CreatedAt: t0.Add(time.Second), UpdatedAt: t0.Add(time.Second)},
	}
	d.Reviews = []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, NotesCount: 2, CreatedAt: t0, UpdatedAt: t0}}

	created, err := st.CreateEntity(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.EntityDetail(ctx, acct, created.Entity.ID)
	if err != nil {
		t.Fatal(err)
	}
	e := got.Entity
	if e.ChecksCount != 2 || e.ReviewsCount != 1 || e.DocumentsCount != 3 {
		t.Errorf("counts = %d checks, %d reviews, %d documents", e.ChecksCount, e.ReviewsCount, e.DocumentsCount)
	}
	if e.Score == nil || e.Score.Value != 70 || len(e.Score.Breakdown) != 2 {
		t.Errorf("score = %+v", e.Score)
	}
	if e.Risk == nil || e.Risk.Level != domain.RiskMedium || !e.Risk.AssessedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("risk = %+v", e.Risk)
	}
	if e.WebsiteURL == nil || *e.WebsiteURL != website || e.SocialURL != nil {
		t.Errorf("urls = %v %v", e.WebsiteURL, e.SocialURL)
	}
	if len(got.Checks) != 2 || got.Checks[0].Status != domain.CheckPending {
		t.Fatalf("checks not newest first: %+v", got.Checks)
	}
	if _, ok := got.Checks[0].Result["matches_count"]; ok {
		t.Errorf("pending check grew a matches_count")
	}
	if got.Checks[1].CheckedAt == nil || !got.Checks[1].CheckedAt.Equal(checked) || got.Checks[0].CheckedAt != nil {
		t.Errorf("checked_at = %v, %v", got.Checks[1].CheckedAt, got.Checks[0].CheckedAt)
	}
	if len(got.Reviews) != 1 || got.Reviews[0].ChecksCount != 2 || got.Reviews[0].NotesCount != 2 {
		t.Fatalf("reviews = %+v", got.Reviews)
	}
	if rid := got.Checks[0].ReviewID; rid == nil || *rid != got.Reviews[0].ID {
		t.Errorf("checks not linked to the initial review")
	}
	if _, err := st.Review(ctx, acct, got.Reviews[0].ID); err != nil {
		t.Errorf("review: %v", err)
	}
}

func TestUnassessedUnscoredEntityStaysSo(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	created, err := st.CreateEntity(ctx, sampleEntity(acct, "SA", "7000000001", t0))
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.Entity(ctx, acct, created.Entity.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Risk != nil || e.Score != nil {
		t.Errorf("risk %+v, score %+v; want both nil", e.Risk, e.Score)
	}
}

func TestAccountIsolation(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	a, b := newAccount(t, st, "SA"), newAccount(t, st, "SA")
	d := sampleEntity(a, "SA", "7000000002", t0)
	d.Reviews = []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: t0, UpdatedAt: t0}}
	created, err := st.CreateEntity(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Entity(ctx, b, created.Entity.ID); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("other account's entity: err = %v, want not_found", err)
	}
	if _, err := st.Review(ctx, b, created.Reviews[0].ID); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("other account's review: err = %v, want not_found", err)
	}
	page, err := st.ListEntities(ctx, b, domain.EntityFilter{}, 1, 50)
	if err != nil || page.Total != 0 || len(page.Entities) != 0 {
		t.Errorf("other account's list = %+v, %v", page, err)
	}
	// The same registration number is free in another account.
	if _, err := st.CreateEntity(ctx, sampleEntity(b, "SA", "7000000002", t0)); err != nil {
		t.Errorf("same number in another account: %v", err)
	}
}

func TestRegistrationNumberIsUniquePerAccountAndCountry(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA", "AE")
	if _, err := st.CreateEntity(ctx, sampleEntity(acct, "SA", "7000000003", t0)); err != nil {
		t.Fatal(err)
	}
	_, err := st.CreateEntity(ctx, sampleEntity(acct, "SA", "7000000003", t0))
	if f := domain.ErrorFields(err)["registration_number"]; len(f) != 1 || f[0] != "has already been taken" {
		t.Fatalf("duplicate: err = %v", err)
	}
	// Nothing of the refused create was written: the count is still 1.
	page, err := st.ListEntities(ctx, acct, domain.EntityFilter{}, 1, 50)
	if err != nil || page.Total != 1 {
		t.Fatalf("after refused duplicate: total %d, %v", page.Total, err)
	}
	if _, err := st.CreateEntity(ctx, sampleEntity(acct, "AE", "7000000003", t0)); err != nil {
		t.Errorf("same number in another country: %v", err)
	}
}

func TestConcurrentCreates(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			_, err := st.CreateEntity(ctx, sampleEntity(acct, "SA", fmt.Sprintf("71%08d", i), t0))
			errs <- err
		}(i)
		// The same number raced by everyone: exactly one wins.
		go func() {
			defer wg.Done()
			_, err := st.CreateEntity(ctx, sampleEntity(acct, "SA", "7999999999", t0))
			if domain.ErrorCode(err) == domain.ECodeInvalid {
				err = nil
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	page, err := st.ListEntities(ctx, acct, domain.EntityFilter{}, 1, 200)
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != n+1 || len(page.Entities) != n+1 {
		t.Fatalf("total %d, listed %d; want %d", page.Total, len(page.Entities), n+1)
	}
	if !sort.SliceIsSorted(page.Entities, func(i, j int) bool { return page.Entities[i].ID > page.Entities[j].ID }) {
		t.Errorf("not ordered by id descending: %v", ids(page.Entities))
	}
	winners, err := st.ListEntities(ctx, acct, domain.EntityFilter{RegistrationNumber: "7999999999"}, 1, 50)
	if err != nil || winners.Total != 1 {
		t.Errorf("raced number created %d times (%v)", winners.Total, err)
	}
}

func ids(es []domain.Entity) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st)
	k := domain.APIKey{Hash: "ab12", Prefix: "evs_ab", AccountID: acct, Permissions: []string{domain.PermEntityView}, CreatedAt: t0}
	if err := st.PutAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := st.APIKeyByHash(ctx, "ab12")
	if err != nil || got.AccountID != acct || !got.Has(domain.PermEntityView) || !got.ActiveAt(time.Now()) {
		t.Fatalf("got %+v, %v", got, err)
	}
	if err := st.RevokeAPIKey(ctx, "ab12", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeAPIKey(ctx, "ab12", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ = st.APIKeyByHash(ctx, "ab12")
	if got.ActiveAt(time.Now()) || !got.RevokedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("revoked_at = %v, want the first revocation", got.RevokedAt)
	}
	if err := st.RevokeAPIKey(ctx, "nope", t0); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("revoke unknown: %v", err)
	}
	if err := st.PutAPIKey(ctx, domain.APIKey{Hash: "cd34", AccountID: 999999, CreatedAt: t0}); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("key for a missing account: %v", err)
	}
}

func TestAccounts(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	a := newAccount(t, st, "SA", "AE")
	accts, err := st.ListAccounts(ctx)
	if err != nil || len(accts) != 1 || accts[0].ID != a {
		t.Fatalf("accounts = %+v, %v", accts, err)
	}
	cs, err := st.CountryConfigs(ctx, a)
	if err != nil || len(cs) != 2 {
		t.Fatalf("countries = %+v, %v", cs, err)
	}
	for _, c := range cs {
		if c.CountryCode == "SA" && (c.RegistrationPattern != domain.SaudiRegistrationPattern || len(c.IntakeChecks) != 2) {
			t.Errorf("SA config = %+v", c)
		}
	}
	if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(424242, "SA", 682, t0)); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("country for a missing account: %v", err)
	}
}
