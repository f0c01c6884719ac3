package queue_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/schema"
)

// RecountQueue migrates an account whose reviews predate the queue: it
// indexes them, with their entity's country and name, and counts them;
// run again, it changes nothing, and later writes count on from there.
func TestQueueRecount(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	acct := w.account(t)
	reviews := w.seed(t, acct, []spec{
		{created: t0, country: "AE"}, {created: t0.Add(time.Minute), status: domain.ReviewInProgress, assignee: 9},
		{created: t0.Add(2 * time.Minute), status: domain.ReviewEscalated, escalation: domain.EscalationSupervisor},
		{created: t0.Add(3 * time.Minute)}, {status: domain.ReviewCompleted}, {status: domain.ReviewCancelled},
	})
	// As before the queue: no queue attributes on the reviews, no counts.
	for _, r := range reviews {
		err := w.st.DB().Table(w.names[schema.Reviews]).Update("account_id", acct).Range("review_id", r.ID).
			Remove("queue_key", "entity_country", "entity_name").Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	for shard := range 8 {
		if err := w.st.DB().Table(w.names[schema.Accounts]).Delete("account_id", acct).Range("sk", fmt.Sprintf("QUEUE#%d", shard)).Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	page := func() queue.Page {
		t.Helper()
		p, err := w.svc.Page(ctx, acct, 7, queue.Filter{}, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := page(); len(p.Rows) != 0 || !maps.Equal(p.Counts, counts(0, 0, 0)) {
		t.Fatalf("before the recount: %v, %v", ids(p.Rows), p.Counts)
	}
	if done, err := w.st.QueueRecounted(ctx, acct); err != nil || done {
		t.Fatalf("recounted before the recount: %t, %v", done, err)
	}
	active := []int64{reviews[0].ID, reviews[1].ID, reviews[2].ID, reviews[3].ID}
	for run := range 2 {
		got, err := w.st.RecountQueue(ctx, acct)
		if err != nil {
			t.Fatal(err)
		}
		p := page()
		if !maps.Equal(got, counts(2, 1, 1)) || !maps.Equal(p.Counts, got) || !slices.Equal(ids(p.Rows), active) {
			t.Fatalf("recount %d: %v, page %v / %v", run+1, got, ids(p.Rows), p.Counts)
		}
		if rows := w.walk(t, acct, 7, queue.Filter{Country: "AE"}, 2); !slices.Equal(ids(rows), active[:1]) {
			t.Errorf("recount %d: in AE %v, want %v", run+1, ids(rows), active[:1])
		}
	}
	if _, err := w.svc.ClaimNext(ctx, actor(acct, 7, "claim-after-recount"), operator(acct, 7), queue.Filter{}); err != nil {
		t.Fatal(err)
	}
	if p := page(); !maps.Equal(p.Counts, counts(1, 2, 1)) {
		t.Errorf("after a claim: %v", p.Counts)
	}
	if done, err := w.st.QueueRecounted(ctx, acct); err != nil || !done {
		t.Errorf("recounted after the recount and a claim: %t, %v", done, err)
	}
}
