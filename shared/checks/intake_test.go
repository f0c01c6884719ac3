package checks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Small fakes at the edge: providers that answer as told, and that tell
// whether the screening followed the register's answer.
type fakeRegistry struct {
	rec   RegistryRecord
	err   error
	block bool
	// answered is closed when the lookup returns.
	answered chan struct{}
}

func (f *fakeRegistry) Lookup(ctx context.Context, number string) (RegistryRecord, error) {
	if f.answered != nil {
		defer close(f.answered)
	}
	if f.block {
		<-ctx.Done()
		return RegistryRecord{}, transportError(ctx, ProviderWathq, ctx.Err())
	}
	return f.rec, f.err
}

type fakeScreener struct {
	res    ScreeningResult
	err    error
	gotRef string
	got    ScreeningQuery
	// mustFollow, when set, must be closed when the screening starts
	// (early says it was not).
	mustFollow <-chan struct{}
	early      bool
}

func (f *fakeScreener) Screen(ctx context.Context, q ScreeningQuery) (ScreeningResult, error) {
	if f.mustFollow != nil {
		select {
		case <-f.mustFollow:
		default:
			f.early = true
		}
	}
	f.gotRef, f.got = q.Reference, q
	return f.res, f.err
}

func saConfig(timeoutMS int) domain.CountryConfig {
	c := domain.DefaultCountryConfig(1, "SA", 682, time.Now())
	for i := range c.IntakeChecks {
		c.IntakeChecks[i].TimeoutMS = timeoutMS
	}
	return c
}

func TestIntake(t *testing.T) {
	valid := RegistryRecord{Found: true, Name: "Al Noor Trading", StatusID: "active", Status: domain.RegistrationValid, UnifiedNumber: "7001234567"}
	clear := ScreeningResult{Status: domain.SanctionsClear, Threshold: 0.7, Algorithm: "logic-v1", Dataset: "default"}
	hit := ScreeningResult{Status: domain.SanctionsHit, Matched: true, Matches: []ScreeningMatch{{ID: "NK-1", Score: 0.95, Match: true}}}
	tests := []struct {
		name          string
		reg           *fakeRegistry
		scr           *fakeScreener
		wantName      string
		wantReg       domain.RegistrationStatus
		wantSanctions domain.SanctionsStatus
		wantScore     *int
		wantStatuses  [2]domain.CheckStatus
	}{
		{"all clear", &fakeRegistry{rec: valid}, &fakeScreener{res: clear}, "Al Noor Trading", domain.RegistrationValid, domain.SanctionsClear, new(70), [2]domain.CheckStatus{domain.CheckCompleted, domain.CheckCompleted}},
		{"sanctions hit", &fakeRegistry{rec: valid}, &fakeScreener{res: hit}, "Al Noor Trading", domain.RegistrationValid, domain.SanctionsHit, new(70), [2]domain.CheckStatus{domain.CheckCompleted, domain.CheckCompleted}},
		{"registry times out", &fakeRegistry{block: true}, &fakeScreener{res: clear}, "Declared Name", domain.RegistrationUnknown, domain.SanctionsClear, new(30), [2]domain.CheckStatus{domain.CheckFailed, domain.CheckCompleted}},
		{"both fail", &fakeRegistry{err: &ProviderError{Provider: "wathq", Status: "503", Err: errors.New("x")}}, &fakeScreener{err: &ProviderError{Provider: "opensanctions", Status: "unreachable", Err: errors.New("y")}},
			"Declared Name", domain.RegistrationUnknown, domain.SanctionsNotRun, nil, [2]domain.CheckStatus{domain.CheckFailed, domain.CheckFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{Registries: map[string]Registry{ProviderWathq: tt.reg}, Screeners: map[string]Screener{ProviderOpenSanctions: tt.scr}, Clock: domain.SystemClock}
			d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA", CountryID: 682,
				DeclaredName: "Declared Name", Config: saConfig(100), CheckIDs: []int64{10, 11}})
			e := d.Entity
			if e.LegalName != tt.wantName || e.RegistrationStatus != tt.wantReg || e.SanctionsStatus != tt.wantSanctions || e.Status != domain.EntityReadyForReview {
				t.Errorf("entity = %q %s %s %s", e.LegalName, e.RegistrationStatus, e.SanctionsStatus, e.Status)
			}
			if (e.Score == nil) != (tt.wantScore == nil) || (e.Score != nil && e.Score.Value != *tt.wantScore) {
				t.Errorf("score = %+v, want %v", e.Score, tt.wantScore)
			}
			if len(d.Checks) != 2 || d.Checks[0].Status != tt.wantStatuses[0] || d.Checks[1].Status != tt.wantStatuses[1] {
				t.Fatalf("checks = %+v", d.Checks)
			}
			for _, c := range d.Checks {
				if c.TriggeringReason != domain.TriggerIntake || c.CheckedAt == nil || c.ProviderStatus == "" {
					t.Errorf("check %+v lacks its record", c)
				}
				_, hasCount := c.Result["matches_count"]
				if c.Status == domain.CheckFailed && (hasCount || c.Result["error"] == nil || c.Result["status"] != "failed") {
					t.Errorf("failed check result = %v", c.Result)
				}
			}
			if tt.scr.gotRef != "" && tt.scr.gotRef != "evs-1-11" {
				t.Errorf("screening reference = %q", tt.scr.gotRef)
			}
			if len(d.Reviews) != 1 || d.Reviews[0].Purpose != domain.ReviewInitial || d.Reviews[0].Status != domain.ReviewOpen {
				t.Errorf("reviews = %+v", d.Reviews)
			}
		})
	}
}

// TestIntakeScreensTheRegistersNamesAfterTheRegister: the screening runs
// once the register has answered, on every name the business has, the
// register's first; without them it says it screened a partial set.
func TestIntakeScreensTheRegistersNamesAfterTheRegister(t *testing.T) {
	found := RegistryRecord{Found: true, Name: "شركة الواحة للصناعة", NameEn: "Al Waha Industries Co.", StatusID: "active", Status: domain.RegistrationValid}
	notFound := RegistryRecord{Found: false, StatusID: "not_found", Status: domain.RegistrationInvalid}
	down := &ProviderError{Provider: ProviderWathq, Status: "503", Err: errors.New("unavailable")}
	reg := func(n string) domain.EntityName { return domain.EntityName{Name: n, Source: domain.NameRegister} }
	decl := func(n string) domain.EntityName { return domain.EntityName{Name: n, Source: domain.NameDeclared} }
	tests := []struct {
		name     string
		rec      RegistryRecord
		err      error
		declared string
		known    []domain.EntityName
		want     []string // names sent, in order
		partial  string   // a word of the reason, "" for a complete set
	}{
		{"the register's Arabic and Latin names, then the declared one", found, nil, "Waha Industrial Group", nil,
			[]string{"شركة الواحة للصناعة", "Al Waha Industries Co.", "Waha Industrial Group"}, ""},
		{"the documented body: the register's names alone", found, nil, "", nil,
			[]string{"شركة الواحة للصناعة", "Al Waha Industries Co."}, ""},
		{"a declared name the register gives already is sent once", found, nil, "AL-WAHA industries co", nil,
			[]string{"شركة الواحة للصناعة", "Al Waha Industries Co."}, ""},
		{"the register does not know the number", notFound, nil, "Waha Industrial Group", nil,
			[]string{"Waha Industrial Group"}, "found no register"},
		{"the register fails", RegistryRecord{}, down, "Waha Industrial Group", nil,
			[]string{"Waha Industrial Group"}, "failed"},
		{"the register fails and nothing was declared", RegistryRecord{}, down, "", nil, []string{}, "failed"},
		{"a re-run: the register's new name replaces its old one, the declared one stays", found, nil, "",
			[]domain.EntityName{reg("مؤسسة قديمة"), decl("Waha Industrial Group")},
			[]string{"شركة الواحة للصناعة", "Al Waha Industries Co.", "Waha Industrial Group"}, ""},
		{"a re-run with the register failing screens what was known, partially", RegistryRecord{}, down, "",
			[]domain.EntityName{reg("مؤسسة قديمة"), decl("Waha Industrial Group")},
			[]string{"مؤسسة قديمة", "Waha Industrial Group"}, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answered := make(chan struct{})
			registry := &fakeRegistry{rec: tt.rec, err: tt.err, answered: answered}
			scr := &fakeScreener{res: ScreeningResult{Status: domain.SanctionsClear}, mustFollow: answered}
			r := &Runner{Registries: map[string]Registry{ProviderWathq: registry}, Screeners: map[string]Screener{ProviderOpenSanctions: scr}, Clock: domain.SystemClock}
			d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA",
				DeclaredName: tt.declared, KnownNames: tt.known, Config: saConfig(1000), CheckIDs: []int64{10, 11}})
			if scr.early {
				t.Error("the screening started before the register answered")
			}
			got := []string{}
			for _, n := range scr.got.Names {
				got = append(got, n.Name)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("names sent = %q, want %q", got, tt.want)
			}
			res := d.Checks[1].Result
			if sent, _ := res["names_screened"].([]any); len(sent) != len(tt.want) {
				t.Errorf("names_screened = %v", res["names_screened"])
			}
			reason, _ := res["names_partial_reason"].(string)
			if res["names_partial"] != (tt.partial != "") || !strings.Contains(reason, tt.partial) {
				t.Errorf("names_partial = %v (%q), want a reason with %q", res["names_partial"], reason, tt.partial)
			}
			if len(d.Entity.Names) != len(tt.want) {
				t.Errorf("entity names = %v", d.Entity.Names)
			}
		})
	}
}

// TestAFailedScreeningRecordsWhatItAsked: the names are kept with a
// failure too, so a reader sees what the provider was not asked about.
func TestAFailedScreeningRecordsWhatItAsked(t *testing.T) {
	r := &Runner{
		Registries: map[string]Registry{ProviderWathq: &fakeRegistry{rec: RegistryRecord{Found: true, Name: "شركة", StatusID: "active", Status: domain.RegistrationValid}}},
		Screeners:  map[string]Screener{ProviderOpenSanctions: &fakeScreener{err: &ProviderError{Provider: ProviderOpenSanctions, Status: "500", Err: errors.New("x")}}},
		Clock:      domain.SystemClock,
	}
	d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA", Config: saConfig(1000), CheckIDs: []int64{1, 2}})
	res := d.Checks[1].Result
	if d.Checks[1].Status != domain.CheckFailed || res["status"] != "failed" || len(res["names_screened"].([]any)) != 1 {
		t.Errorf("check = %s %v", d.Checks[1].Status, res)
	}
}

func TestIntakeWithoutScreening(t *testing.T) {
	cfg := domain.DefaultCountryConfig(1, "AE", 784, time.Now())
	cfg.IntakeChecks = nil
	d := (&Runner{Clock: domain.SystemClock}).Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "CN-1", CountryCode: "AE", Config: cfg})
	if d.Entity.SanctionsStatus != domain.SanctionsNotRun || len(d.Checks) != 0 || d.Entity.Score != nil {
		t.Errorf("entity = %+v, checks %d", d.Entity, len(d.Checks))
	}
}

// TestIntakeRecordsTheRegistersParties: the parties of a completed lookup
// become the entity's (source register, current, since the lookup), the
// lookup's result counting them; a failed lookup leaves none.
func TestIntakeRecordsTheRegistersParties(t *testing.T) {
	partners := []domain.Party{
		{Kind: domain.PartyPerson, Name: "محمد علي", Roles: []domain.PartyRole{domain.RoleOwner, domain.RoleManager}, Source: domain.PartyFromRegister, Current: true},
		{Kind: domain.PartyCompany, Name: "شركة الأفق القابضة", Roles: []domain.PartyRole{domain.RoleOwner}, Source: domain.PartyFromRegister, Current: true},
	}
	found := RegistryRecord{Found: true, Name: "شركة الواحة للصناعة", StatusID: "active", Status: domain.RegistrationValid, Parties: partners}
	down := &ProviderError{Provider: ProviderWathq, Status: "503", Err: errors.New("unavailable")}
	tests := []struct {
		name        string
		rec         RegistryRecord
		err         error
		wantParties int
	}{
		{"the register answers with two partners", found, nil, 2},
		{"the register fails", RegistryRecord{}, down, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{Registries: map[string]Registry{ProviderWathq: &fakeRegistry{rec: tt.rec, err: tt.err}},
				Screeners: map[string]Screener{ProviderOpenSanctions: &fakeScreener{res: ScreeningResult{Status: domain.SanctionsClear}}}, Clock: domain.SystemClock}
			d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA",
				Config: saConfig(1000), CheckIDs: []int64{10, 11}})
			if len(d.Entity.Parties) != tt.wantParties {
				t.Fatalf("%d parties, want %d", len(d.Entity.Parties), tt.wantParties)
			}
			for _, p := range d.Entity.Parties {
				if p.Since == nil || !p.Since.Equal(*d.Checks[0].CheckedAt) || !p.Current || p.Source != domain.PartyFromRegister {
					t.Errorf("party %+v", p)
				}
			}
			if tt.wantParties > 0 && d.Checks[0].Result["parties_count"] != tt.wantParties {
				t.Errorf("the lookup's result: %v", d.Checks[0].Result)
			}
		})
	}
}
