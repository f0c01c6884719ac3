package console_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// entity creates an entity whose one review is in status (assigned to
// the operator named, if any), three days old, with a registry check and
// two completed screenings: an older one, and the latest, listing two
// matches; each prep then changes it before it is written.
func (w *world) entity(t *testing.T, status domain.ReviewStatus, assignee string, prep ...func(*domain.EntityDetail)) (domain.Entity, domain.Review) {
	t.Helper()
	created := w.clock.Now().Add(-72 * time.Hour)
	seq := w.next("entity")
	check := func(typ domain.CheckType, at time.Time, result map[string]any) domain.Check {
		return domain.Check{Type: typ, ProviderKey: "test", Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake,
			Result: result, CheckedAt: &at, CreatedAt: at, UpdatedAt: at}
	}
	d := domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.account.ID, RegistrationNumber: fmt.Sprintf("70%08d", w.seqNumber()), LegalName: "Decided Trading " + seq,
			CountryCode: "SA", CountryID: 682, Status: domain.EntityReadyForReview, RegistrationStatus: domain.RegistrationValid,
			SanctionsStatus: domain.SanctionsNeedsReview, CreatedAt: created, UpdatedAt: created},
		Checks: []domain.Check{
			check(domain.CheckRegistryLookup, created, map[string]any{"status": "active", "registration_status": "valid_status",
				"evidence": map[string]any{"sha256": "5e1d0c0ffee5e1d0c0ffee5e1d0c0ffee5e1d0c0ffee5e1d0c0ffee5e1d0c0ff"}}),
			check(domain.CheckOrganizationScreening, created, map[string]any{"status": "needs_review", "matched": true, "matches_count": 1,
				"matches": []any{map[string]any{"id": "NK-old", "caption": "Old Match", "score": 0.7, "datasets": []any{"old_list"}}}}),
			check(domain.CheckOrganizationScreening, created.Add(time.Hour), map[string]any{"status": "needs_review", "matched": true, "matches_count": 2,
				"matches": []any{
					map[string]any{"id": "NK-first", "caption": "Decided Trading LLC", "schema": "Company", "score": 0.91, "datasets": []any{"us_ofac_sdn", "un_sc_sanctions"}},
					map[string]any{"id": "NK-second", "caption": "Decided Holdings", "schema": "Company", "score": 0.72, "datasets": []any{"eu_fsf"}},
				}}),
		},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: status, CreatedAt: created, UpdatedAt: created}},
	}
	if assignee != "" {
		op := w.ops[assignee]
		d.Reviews[0].AssignedUserID, d.Reviews[0].AssignedUserName = &op.ID, &op.Name
	}
	if status != domain.ReviewOpen {
		d.Reviews[0].StartedAt = &created
	}
	if status == domain.ReviewEscalated {
		d.Reviews[0].Escalation = new(domain.EscalationSupervisor)
	}
	for _, p := range prep {
		p(&d)
	}
	out, err := w.st.CreateEntity(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return out.Entity, out.Reviews[0]
}

// judged is an entity the decision policy lets an operator approve: both
// matches judged false positives, its risk assessed.
func judged(d *domain.EntityDetail) {
	d.Entity.DismissedMatches, d.Entity.SanctionsStatus = []string{"NK-first", "NK-second"}, domain.SanctionsClear
	d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: d.Entity.CreatedAt}
}

func (w *world) seqNumber() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	return w.seq
}

func itoa(n int64) string { return fmt.Sprint(n) }
