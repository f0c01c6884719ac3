package main

import (
	"context"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

func BenchmarkZZProbeQueue(b *testing.B) {
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(b, db)
	st := store.New(db, names)
	accts := map[int]int64{}
	for _, n := range []int{1000, 20000} {
		a, _ := st.CreateAccount(ctx, "p", time.Now())
		if _, err := st.ImportEntities(ctx, a.ID, queueBenchEntities(time.Now(), n)); err != nil {
			b.Fatal(err)
		}
		accts[n] = a.ID
	}
	tm := func(f func()) time.Duration {
		var ds []time.Duration
		for range 50 {
			s := time.Now()
			f()
			ds = append(ds, time.Since(s))
		}
		return p50(ds)
	}
	for _, n := range []int{1000, 20000} {
		a := accts[n]
		var out []map[string]any
		b.Logf("n=%d page=%s counts=%s account=%s gsi-nocond=%s gsi-gt=%s gsi-gt-desc=%s byentity=%s",
			n,
			tm(func() { st.QueuePage(ctx, domain.QueueQuery{AccountID: a, Limit: 25}) }),
			tm(func() { st.QueueCounts(ctx, a) }),
			tm(func() { st.Account(ctx, a) }),
			tm(func() {
				db.Table(names[schema.Reviews]).Get("account_id", a).Index("by_queue").SearchLimit(25).RequestLimit(1).All(ctx, &out)
			}),
			tm(func() {
				db.Table(names[schema.Reviews]).Get("account_id", a).Range("queue_key", dynamo.Greater, "0").Index("by_queue").SearchLimit(25).RequestLimit(1).All(ctx, &out)
			}),
			tm(func() {
				db.Table(names[schema.Reviews]).Get("account_id", a).Range("queue_key", dynamo.Greater, "0").Index("by_queue").Order(dynamo.Descending).SearchLimit(25).RequestLimit(1).All(ctx, &out)
			}),
			tm(func() {
				db.Table(names[schema.Entities]).Get("account_id", a).Index("by_updated").SearchLimit(25).RequestLimit(1).All(ctx, &out)
			}),
		)
	}
}
