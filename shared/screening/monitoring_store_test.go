package screening_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/store"
)

// monitorT0 is when the entities of the monitoring tests were created and
// approved; the answers come a day later.
var monitorT0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// monitoredEntity creates an approved, clear entity whose screening is
// complete, with its initial review in the status given (completed:
// approved), and returns it with the screening check.
func monitoredEntity(t *testing.T, st *store.Store, acct int64, number string, review domain.ReviewStatus) (domain.Entity, domain.Check) {
	t.Helper()
	at := monitorT0
	d := domain.EntityDetail{
		Entity: domain.Entity{
			AccountID: acct, RegistrationNumber: number, LegalName: "Entity " + number, CountryCode: "SA", CountryID: 682,
			Status: domain.EntityApproved, RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsClear,
			CreatedAt: at, UpdatedAt: at,
		},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: checks.ProviderOpenSanctions,
			Status: domain.CheckCompleted, ProviderStatus: "200", TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "clear", "matched": false, "matches_count": 0, "matches": []any{}}, CheckedAt: &at, CreatedAt: at, UpdatedAt: at}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: review, CreatedAt: at, UpdatedAt: at}},
	}
	if review == domain.ReviewCompleted {
		d.Reviews[0].Outcome, d.Reviews[0].CompletedAt = new(domain.OutcomeApproved), &at
	} else {
		d.Entity.Status = domain.EntityReadyForReview
	}
	created, err := st.CreateEntity(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return created.Entity, created.Checks[0]
}

// answerOf is yente's answer to the entity's query: one result scoring
// score on OFAC's list, or none for score 0.
func answerOf(acct, checkID int64, score float64) screening.Answer {
	qr := checks.YenteQueryResponse{Status: 200}
	if score > 0 {
		qr.Results = []checks.ScreeningMatch{{ID: "NK-ofac-1", Caption: "Listed Trading", Schema: "Company", Score: score, Match: true, Datasets: []string{"us_ofac_sdn"},
			Properties: checks.MatchProperties{Topics: []string{"sanction"}}}}
	}
	qr.Total.Value = len(qr.Results)
	return screening.Answer{Reference: checks.ScreeningReference(acct, checkID), Response: qr}
}

// TestMonitoringOpensAReview, on DynamoDB Local: a re-screen that turns an
// approved entity with no active review to hit opens one review, in the
// same write, that the queue's default order shows first (before a review
// waiting since the day before), unassigned and due today, counted and
// audited; an entity under an open review, a clear answer and a second
// delivery of the same webhook open none.
func TestMonitoringOpensAReview(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	now := monitorT0.Add(24 * time.Hour)
	svc := &screening.Service{Store: st, Clock: domain.FixedClock(now),
		Readers: map[string]screening.Reader{checks.ProviderOpenSanctions: &checks.Yente{}}}
	q := &queue.Service{Store: st, Clock: domain.FixedClock(now)}
	tests := []struct {
		name       string
		review     domain.ReviewStatus // the entity's initial review
		score      float64             // the answer's match, 0 for none
		deliveries int                 // of the same webhook
		wantOpened bool
		wantStatus domain.SanctionsStatus
	}{
		{"approved, a 0.95 match", domain.ReviewCompleted, 0.95, 1, true, domain.SanctionsHit},
		{"approved, a 0.78 match", domain.ReviewCompleted, 0.78, 1, true, domain.SanctionsNeedsReview},
		{"under an open review", domain.ReviewOpen, 0.95, 1, false, domain.SanctionsHit},
		{"a clear answer", domain.ReviewCompleted, 0, 1, false, domain.SanctionsClear},
		{"delivered twice", domain.ReviewCompleted, 0.95, 2, true, domain.SanctionsHit},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acct, err := st.CreateAccount(ctx, "Monitor "+tt.name, monitorT0)
			if err != nil {
				t.Fatal(err)
			}
			// A review waiting since the day before, for another entity.
			waiting, _ := monitoredEntity(t, st, acct.ID, fmt.Sprintf("70000051%02d", i), domain.ReviewOpen)
			e, c := monitoredEntity(t, st, acct.ID, fmt.Sprintf("70000050%02d", i), tt.review)
			before, err := q.Page(ctx, acct.ID, 0, queue.Filter{}, "")
			if err != nil {
				t.Fatal(err)
			}
			webhookID := "msg_monitor_" + fmt.Sprint(i)
			for n := range tt.deliveries {
				applied, err := svc.Apply(ctx, checks.ProviderOpenSanctions, webhookID, answerOf(acct.ID, c.ID, tt.score))
				if err != nil || applied != (n == 0) {
					t.Fatalf("delivery %d: applied %v, %v", n+1, applied, err)
				}
			}
			after, err := st.Entity(ctx, acct.ID, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			reviews, err := st.EntityReviews(ctx, acct.ID, e.ID, after.ReviewsCount)
			if err != nil {
				t.Fatal(err)
			}
			if after.SanctionsStatus != tt.wantStatus || after.ChecksCount != e.ChecksCount+1 {
				t.Errorf("entity: sanctions %s, %d checks; want %s, %d", after.SanctionsStatus, after.ChecksCount, tt.wantStatus, e.ChecksCount+1)
			}
			page, err := q.Page(ctx, acct.ID, 0, queue.Filter{}, "")
			if err != nil {
				t.Fatal(err)
			}
			if !tt.wantOpened {
				if len(reviews) != 1 || after.ReviewsCount != 1 || after.Status != e.Status {
					t.Errorf("reviews %+v (count %d), entity %s: want the one review, the entity as it was", reviews, after.ReviewsCount, after.Status)
				}
				if len(page.Rows) != len(before.Rows) || page.Counts[domain.ReviewOpen] != before.Counts[domain.ReviewOpen] {
					t.Errorf("queue: %d rows, %v; was %d, %v", len(page.Rows), page.Counts, len(before.Rows), before.Counts)
				}
				return
			}
			if len(reviews) != 2 || after.ReviewsCount != 2 || after.Status != domain.EntityUnderMonitoring {
				t.Fatalf("reviews %+v (count %d), entity %s: want a second review, under_monitoring", reviews, after.ReviewsCount, after.Status)
			}
			r := reviews[0] // active first
			if r.Status != domain.ReviewOpen || r.Purpose != domain.ReviewPeriodic || r.AssignedUserID != nil ||
				r.TriggeringReason != domain.TriggerProviderUpdate || !r.CreatedAt.Equal(now) {
				t.Errorf("opened review %+v", r)
			}
			if len(page.Rows) != len(before.Rows)+1 || page.Rows[0].Review.ID != r.ID {
				t.Fatalf("queue rows %+v: want review %d first, then the %d before", page.Rows, r.ID, len(before.Rows))
			}
			if page.Rows[1].Review.EntityID != waiting.ID {
				t.Errorf("second row is of entity %d, want the waiting one %d", page.Rows[1].Review.EntityID, waiting.ID)
			}
			if first := page.Rows[0]; first.Due.String() != "due today" || first.LegalName != e.LegalName || first.Sanctions != string(tt.wantStatus) {
				t.Errorf("first row: due %q, name %q, sanctions %q", first.Due, first.LegalName, first.Sanctions)
			}
			if page.Counts[domain.ReviewOpen] != before.Counts[domain.ReviewOpen]+1 {
				t.Errorf("open count %d, was %d", page.Counts[domain.ReviewOpen], before.Counts[domain.ReviewOpen])
			}
			rec, err := st.AuditRecord(ctx, acct.ID, screening.MonitoringActionID(checks.ProviderOpenSanctions, webhookID))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Action != domain.ActionOpenPeriodicReview || rec.OperatorID != 0 || rec.OperatorName != screening.MonitorName ||
				rec.ReviewID == nil || *rec.ReviewID != r.ID || rec.EntityID != e.ID ||
				rec.After["review_id"] != float64(r.ID) || rec.After["triggering_reason"] != domain.TriggerProviderUpdate {
				t.Errorf("audit record %+v", rec)
			}
		})
	}
}
