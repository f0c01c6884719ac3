package queue_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
)

// The most one page may read, whatever the account holds: 4 queries of the
// queue's index reading 100 items each, one BatchGetItem of at most 100
// entities, one of the 8 count shards, and the account's item.
const (
	maxQueries      = 4
	maxBatchGets    = 1 + 1
	maxGetItems     = 1
	maxItemsPerPage = 4*100 + 100 + 8 + 1
)

// Every page costs the same bounded requests and items in an account of 30
// active reviews and in one of 600 (each with as many finished reviews,
// which the index never holds): an unfiltered page exactly the same; a
// filtered one at most the budget, and a page the budget could not fill
// says there is more.
func TestQueuePageCost(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	sizes := []int{30, 600}
	accounts := map[int]int64{}
	for _, n := range sizes {
		acct := w.account(t)
		accounts[n] = acct
		specs := make([]spec, 0, 2*n)
		for i := range n {
			specs = append(specs,
				spec{country: []string{"SA", "AE"}[i%2], risk: []domain.RiskLevel{"", domain.RiskLow, domain.RiskHigh}[i%3],
					status:  []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}[i%3],
					created: t0.Add(time.Duration(i) * time.Minute)},
				spec{status: domain.ReviewCompleted, created: t0.Add(-time.Duration(i+1) * time.Minute)})
		}
		w.seed(t, acct, specs)
	}
	type cost struct {
		requests map[string]int
		items    int
		rows     int
		more     bool
	}
	for _, tc := range []struct {
		name   string
		f      queue.Filter
		exact  bool // the same cost at every size
		filled bool // a full page at every size
	}{
		{"unfiltered", queue.Filter{}, true, true},
		{"open", queue.Filter{Status: domain.ReviewOpen}, false, false},
		{"high risk in AE", queue.Filter{Risk: "high", Country: "AE"}, false, false},
		{"a country no entity has", queue.Filter{Country: "FR"}, false, false},
		{"sanctions hit, none has", queue.Filter{Sanctions: "hit"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			costs := map[int]cost{}
			for _, n := range sizes {
				w.reads.Reset()
				p, err := w.svc.Page(ctx, accounts[n], 7, tc.f, "")
				if err != nil {
					t.Fatal(err)
				}
				c := cost{requests: w.reads.Requests(), items: w.reads.Items(), rows: len(p.Rows), more: p.Next != ""}
				costs[n] = c
				t.Logf("%d active reviews: %d rows, more %v, requests %v, items read %d", n, c.rows, c.more, c.requests, c.items)
				r := c.requests
				if r["Query"] > maxQueries || r["BatchGetItem"] > maxBatchGets || r["GetItem"] > maxGetItems ||
					len(r) > 3 || c.items > maxItemsPerPage {
					t.Errorf("%d active reviews: requests %v and %d items, over the budget", n, r, c.items)
				}
				if tc.filled && c.rows != queue.PageSize {
					t.Errorf("%d active reviews: %d rows, want %d", n, c.rows, queue.PageSize)
				}
				// At 600 no filter here reaches the end on page 1, full or
				// not; at 30 only the unfiltered page stops short of it.
				if want := n == 600 || tc.filled; c.more != want {
					t.Errorf("%d active reviews: the page says there is more: %v, want %v", n, c.more, want)
				}
			}
			if tc.exact && (!maps.Equal(costs[30].requests, costs[600].requests) || costs[30].items != costs[600].items) {
				t.Errorf("the page costs %v / %d items at 30 but %v / %d at 600", costs[30].requests, costs[30].items, costs[600].requests, costs[600].items)
			}
		})
	}
}
