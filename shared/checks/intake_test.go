package checks

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Small fakes at the edge: providers that answer as told, and that can wait
// for each other to prove the checks run at the same time.
type fakeRegistry struct {
	rec     RegistryRecord
	err     error
	barrier *sync.WaitGroup
	block   bool
}

func (f *fakeRegistry) Lookup(ctx context.Context, number string) (RegistryRecord, error) {
	if f.barrier != nil {
		f.barrier.Done()
		f.barrier.Wait()
	}
	if f.block {
		<-ctx.Done()
		return RegistryRecord{}, transportError(ctx, ProviderWathq, ctx.Err())
	}
	return f.rec, f.err
}

type fakeScreener struct {
	res     ScreeningResult
	err     error
	barrier *sync.WaitGroup
	gotRef  string
}

func (f *fakeScreener) Screen(ctx context.Context, q ScreeningQuery) (ScreeningResult, error) {
	if f.barrier != nil {
		f.barrier.Done()
		f.barrier.Wait()
	}
	f.gotRef = q.Reference
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

// TestIntakeRunsChecksConcurrently gives each provider a barrier that opens
// only when both have started: run one after the other, the first would wait
// out its timeout and fail.
func TestIntakeRunsChecksConcurrently(t *testing.T) {
	var barrier sync.WaitGroup
	barrier.Add(2)
	r := &Runner{
		Registries: map[string]Registry{ProviderWathq: &fakeRegistry{rec: RegistryRecord{Found: true, StatusID: "active", Status: domain.RegistrationValid}, barrier: &barrier}},
		Screeners:  map[string]Screener{ProviderOpenSanctions: &fakeScreener{res: ScreeningResult{Status: domain.SanctionsClear}, barrier: &barrier}},
		Clock:      domain.SystemClock,
	}
	d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA", Config: saConfig(5000), CheckIDs: []int64{1, 2}})
	for _, c := range d.Checks {
		if c.Status != domain.CheckCompleted {
			t.Errorf("%s: %s", c.Type, c.Status)
		}
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
