package decisions_test

import (
	"context"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

func TestPeriodicReviews(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	if err := w.st.PutAccountSettings(ctx, w.account, domain.AccountSettings{ReviewIntervalDays: 30, DeclaredDecisions: true}); err != nil {
		t.Fatal(err)
	}
	due, _ := w.entity(t, domain.ReviewCompleted, domain.EntityApproved)          // created t0, reviewed long ago
	busy, _ := w.entity(t, domain.ReviewInProgress, domain.EntityUnderMonitoring) // has an active review
	draft, _ := w.entity(t, domain.ReviewCompleted, domain.EntityRejected)        // not monitored
	ended, _ := w.entity(t, domain.ReviewCompleted, domain.EntityApproved)        // its relationship ended
	if err := w.st.DB().Table(w.st.Names()[schema.Entities]).Update("account_id", w.account).Range("entity_id", ended.ID).
		Set("relationship_ended_at", domain.FormatTime(t0)).Set("retain_until", domain.FormatTime(t0.AddDate(10, 0, 0))).Run(ctx); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(40 * 24 * time.Hour)
	s := &decisions.Scheduler{Store: w.st, Clock: domain.FixedClock(now), Queue: w.st}
	res, err := s.Run(ctx)
	if err != nil || res.Opened != 1 || res.Recounted != 1 {
		t.Fatalf("run = %+v, %v; want one review opened and the account's queue counted", res, err)
	}
	// The queue counts the account's reviews, from before the run and
	// opened by it: the busy one and the new one.
	if got, err := w.st.QueueCounts(ctx, w.account); err != nil || got[domain.ReviewOpen] != 1 || got[domain.ReviewInProgress] != 1 {
		t.Errorf("queue counts %v, %v; want 1 open, 1 in progress", got, err)
	}
	// The opening is audited, in a chain that holds.
	if c, err := w.st.AuditChain(ctx, w.account, due.ID); err != nil || c.Head.Seq != 1 || c.Verify() != nil {
		t.Errorf("due entity's chain: %+v, %v; want one record and the chain to hold", c, err)
	}
	// Running again in the same period opens nothing and never counts a
	// queue again.
	if res, err := s.Run(ctx); err != nil || res.Opened != 0 || res.Recounted != 0 {
		t.Errorf("second run = %+v, %v", res, err)
	}
	reviews, _ := w.st.EntityReviews(ctx, w.account, due.ID, 2)
	ent, _ := w.st.Entity(ctx, w.account, due.ID)
	if len(reviews) != 2 || reviews[0].Purpose != domain.ReviewPeriodic || reviews[0].Status != domain.ReviewOpen || ent.Status != domain.EntityUnderMonitoring {
		t.Errorf("due entity: %s with %+v", ent.Status, reviews)
	}
	for _, id := range []int64{busy.ID, draft.ID, ended.ID} {
		if rs, _ := w.st.EntityReviews(ctx, w.account, id, 1); len(rs) != 1 {
			t.Errorf("entity %d got a review", id)
		}
	}
	trail, _ := w.st.AuditTrail(ctx, w.account, due.ID)
	if len(trail) != 1 || trail[0].OperatorName != decisions.SchedulerName {
		t.Errorf("audit = %+v", trail)
	}
	// Within the interval of the new review's completion nothing is due:
	// the open review itself blocks a second one.
	later := &decisions.Scheduler{Store: w.st, Clock: domain.FixedClock(now.Add(35 * 24 * time.Hour))}
	if res, _ := later.Run(ctx); res.Opened != 0 {
		t.Errorf("an entity with an open periodic review got another")
	}
}
