package main

// End to end: a signed re-screen through the local gateway reaches a
// person's queue.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// approveInStore completes the entity's initial review as approved, as a
// decision writes it. The decision's own rules are not what these tests are
// about, so it is written straight to the store.
func (f *createFixture) approveInStore(t *testing.T, entityID int64) {
	t.Helper()
	ctx := context.Background()
	e, err := f.st.Entity(ctx, f.account, entityID)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := f.st.EntityReviews(ctx, f.account, entityID, e.ReviewsCount)
	if err != nil || len(rs) != 1 {
		t.Fatalf("reviews of entity %d: %+v, %v", entityID, rs, err)
	}
	now := time.Now()
	r := rs[0]
	r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt, r.UpdatedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), new("documents verified"), &now, now
	e.Status, e.UpdatedAt = domain.EntityApproved, now
	err = f.st.ApplyDecision(ctx, domain.Decision{
		Audit: domain.AuditRecord{AccountID: f.account, ActionID: fmt.Sprintf("approve-%d", r.ID), Action: domain.ActionApprove,
			OperatorName: "test operator", EntityID: entityID, ReviewID: &r.ID, Reason: "documents verified", At: now},
		Review: &r, ReviewWas: rs[0].Status, Entity: &e,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRescreenReachesTheQueue: a re-screen signed as the provider signs it,
// reporting a 0.95 OFAC match, opens a review for an approved entity that
// the queue's default order shows first; for an entity under an open review
// it opens none; a clear answer opens none; the same delivery twice opens
// one.
func TestRescreenReachesTheQueue(t *testing.T) {
	f := newCreateFixture(t)
	secrets, _ := webhooks.ParseSecrets(localWebhookSecret())
	q := &queue.Service{Store: f.st, Clock: domain.SystemClock}
	tests := []struct {
		name       string
		number     string
		approved   bool
		outcome    sim.Outcome
		deliveries int
		wantOpened bool
	}{
		{"approved entity, a 0.95 match", "7000000600", true, sim.Hit, 1, true},
		{"entity under an open review", "7000000610", false, sim.Hit, 1, false},
		{"approved entity, a clear answer", "7000000620", true, sim.Clear, 1, false},
		{"approved entity, the same delivery twice", "7000000630", true, sim.Hit, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.create(t, map[string]any{"registration_number": tt.number, "country_code": "SA", "legal_name": "Listed Trading " + tt.number})
			if r.status != 201 {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			m := r.json(t)
			entityID := int64(m["id"].(float64))
			if tt.approved {
				f.approveInStore(t, entityID)
			}
			before, err := q.Page(context.Background(), f.account, 0, queue.Filter{}, "")
			if err != nil {
				t.Fatal(err)
			}
			checkID := int64(checksByType(t, m)["organization_screening"]["id"].(float64))
			now := time.Now()
			event := sim.NewScreeningEvent(fmt.Sprintf("evs-%d-%d", f.account, checkID), tt.outcome, "Listed Trading "+tt.number, now)
			for _, res := range event.Data.Response["results"].([]any) {
				res.(map[string]any)["score"] = 0.95
			}
			id := ""
			for n := range tt.deliveries {
				d := f.webhookPost(t, secrets[0], id, event, now)
				want := map[bool]string{true: `"applied"`, false: `"duplicate"`}[n == 0]
				if d.Status != 200 || !strings.Contains(d.Body, want) {
					t.Fatalf("delivery %d: %d %s", n+1, d.Status, d.Body)
				}
				id = d.ID
			}
			reviews := f.get(t, r.header.Get("Location")).json(t)["reviews"].([]any)
			var active []map[string]any
			for _, rv := range reviews {
				if rm := rv.(map[string]any); rm["status"] == "open" || rm["status"] == "in_progress" || rm["status"] == "escalated" {
					active = append(active, rm)
				}
			}
			page, err := q.Page(context.Background(), f.account, 0, queue.Filter{}, "")
			if err != nil {
				t.Fatal(err)
			}
			if !tt.wantOpened {
				if len(reviews) != 1 || len(page.Rows) != len(before.Rows) {
					t.Errorf("%d reviews, queue %d rows (was %d): want no review opened", len(reviews), len(page.Rows), len(before.Rows))
				}
				return
			}
			if len(reviews) != 2 || len(active) != 1 || active[0]["purpose"] != "periodic" || active[0]["assigned_user_id"] != nil ||
				active[0]["triggering_reason"] != "provider_update" {
				t.Fatalf("reviews %v: want the approved one and one open periodic review, unassigned, opened by the provider's update", reviews)
			}
			for _, rv := range reviews {
				if rm := rv.(map[string]any); rm["id"] != active[0]["id"] && rm["triggering_reason"] != nil {
					t.Errorf("the review the intake opened has triggering_reason %v, want null", rm["triggering_reason"])
				}
			}
			// First, but after the alerts opened before it (the first case's
			// in this account): those come oldest first.
			at := -1
			for i, row := range page.Rows {
				if row.Review.EntityID == entityID {
					at = i
					break
				}
				if !row.Review.DueNow() {
					break
				}
			}
			if len(page.Rows) != len(before.Rows)+1 || at < 0 || page.Rows[at].Due.String() != "due today" {
				t.Errorf("queue: %d rows (was %d), the new review at %d: want it ahead of every review not due now, due today", len(page.Rows), len(before.Rows), at)
			}
			if tt.number == "7000000600" && at != 0 {
				t.Errorf("the account's first alert is at %d of the queue, want 0", at)
			}
		})
	}
}
