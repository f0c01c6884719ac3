package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// BenchmarkUpdatedSince seeds one account at 10,000 and at 50,000 entities
// (entity i changed i seconds after a base time, every third in AE) and
// reports, as ratios to the unfiltered page 1's p50 measured alternately in
// the same run, the store's updated_since pages: every entity matching (page
// 1 and the last page), the newest 100, half (page 1 and the last page),
// country + updated_since; the full walk with updated_since (all matching)
// over the unfiltered walk, and the walk with half matching (following the
// cursors rel=next carries) per page over the unfiltered walk's, with the
// items it reads per entity in the account; and the DynamoDB requests and
// items each page reads. Targets: every page ratio ≤ 1.5 but half matching
// (≤ 3, reported), the walk ≤ 1.5.
func BenchmarkUpdatedSince(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) { benchUpdatedSince(b, n) })
	}
}

func benchUpdatedSince(b *testing.B, n int) {
	ctx := context.Background()
	counter := &devstacktest.Reads{}
	db := devstack.DB(counter.Option)
	names := devstacktest.Tables(b, db)
	st := store.New(db, names)
	// The same tables through a client whose every request takes 4 ms more,
	// as a round trip to DynamoDB in the region does. On DynamoDB Local,
	// on two cores, requests made side by side queue for the CPU, which
	// AWS's do not: the page ratios are reported both ways.
	remote := store.New(devstack.DB(roundTrip(4*time.Millisecond)), names)
	e := &env{store: st, log: quietLogger()}
	acct, err := createAccount(ctx, e, "Bench", []string{"SA", "AE"})
	if err != nil {
		b.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ds := seed.Bulk(domain.Now(), n)
	for i := range ds {
		ds[i].Entity.UpdatedAt = base.Add(time.Duration(i) * time.Second)
		if i%3 == 2 {
			ds[i].Entity.CountryCode, ds[i].Entity.CountryID = "AE", 784
			ds[i].Entity.RegistrationNumber = fmt.Sprintf("CN-%07d", i)
		}
	}
	start := time.Now()
	if _, err := st.ImportEntities(ctx, acct.ID, ds); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d entities in %s", n, time.Since(start).Round(time.Millisecond))
	at := func(i int) *time.Time { t := base.Add(time.Duration(i) * time.Second); return &t }
	listOn := func(st *store.Store, f domain.EntityFilter, page int) time.Duration {
		t0 := time.Now()
		if _, err := st.ListEntities(ctx, acct.ID, f, page, benchPerPage); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	list := func(f domain.EntityFilter, page int) time.Duration { return listOn(st, f, page) }
	lastPage := func(matches int) int { return (matches + benchPerPage - 1) / benchPerPage }
	aeAll := n / 3
	cases := []struct {
		name   string
		filter domain.EntityFilter
		page   int
	}{
		{"all/page1", domain.EntityFilter{UpdatedSince: at(-1)}, 1},
		{"all/last", domain.EntityFilter{UpdatedSince: at(-1)}, lastPage(n)},
		{"newest100/page1", domain.EntityFilter{UpdatedSince: at(n - 100)}, 1},
		{"half/page1", domain.EntityFilter{UpdatedSince: at(n / 2)}, 1},
		{"half/last", domain.EntityFilter{UpdatedSince: at(n / 2)}, lastPage(n - n/2)},
		{"country+all/page1", domain.EntityFilter{UpdatedSince: at(-1), CountryCode: "AE"}, 1},
		{"country+all/last", domain.EntityFilter{UpdatedSince: at(-1), CountryCode: "AE"}, lastPage(aeAll)},
	}
	const samples = 20
	for i := 0; i < 10; i++ { // warm up
		list(domain.EntityFilter{}, 1)
	}
	b.ResetTimer()
	for range b.N {
		for _, c := range cases {
			var firsts, pages []time.Duration
			k := samples
			if strings.HasPrefix(c.name, "half") {
				k = 5 // O(account / 2) keys a page: a few samples tell
			}
			for range k {
				firsts = append(firsts, list(domain.EntityFilter{}, 1))
				pages = append(pages, list(c.filter, c.page))
			}
			counter.Reset()
			list(c.filter, c.page)
			requests, items := counter.Total(), counter.Items()
			b.Logf("%s: p50 %s, unfiltered page 1 %s, %d requests, %d items", c.name, p50(pages), p50(firsts), requests, items)
			b.ReportMetric(float64(p50(pages))/float64(p50(firsts)), c.name+"/unfiltered-p50")
			firsts, pages = nil, nil
			for range min(k, 10) {
				firsts = append(firsts, listOn(remote, domain.EntityFilter{}, 1))
				pages = append(pages, listOn(remote, c.filter, c.page))
			}
			b.Logf("%s with 4 ms round trips: p50 %s, unfiltered page 1 %s", c.name, p50(pages), p50(firsts))
			b.ReportMetric(float64(p50(pages))/float64(p50(firsts)), c.name+"/unfiltered-p50-4ms-round-trips")
			b.ReportMetric(float64(requests), c.name+"-requests")
			b.ReportMetric(float64(items), c.name+"-items")
		}
		// A walk as a client makes it: following rel=next, which carries
		// the cursor where the store hands one on.
		walk := func(f domain.EntityFilter) (time.Duration, int) {
			t0 := time.Now()
			pages := 0
			for page := 1; ; page++ {
				res, err := st.ListEntities(ctx, acct.ID, f, page, benchPerPage)
				if err != nil {
					b.Fatal(err)
				}
				pages++
				if page*benchPerPage >= res.Total {
					break
				}
				f.Cursor = res.Next
			}
			return time.Since(t0), pages
		}
		// Three rounds, alternating, each walk's median: one walk is a
		// single long run, which a pause of DynamoDB Local's would skew.
		var plains, alls, halves []time.Duration
		var plainPages, halfPages, allItems, halfItems int
		for range 3 {
			d, p := walk(domain.EntityFilter{})
			plains, plainPages = append(plains, d), p
			counter.Reset()
			d, _ = walk(domain.EntityFilter{UpdatedSince: at(-1)})
			allItems = counter.Items()
			alls = append(alls, d)
			counter.Reset()
			d, p = walk(domain.EntityFilter{UpdatedSince: at(n / 2)})
			halfItems = counter.Items()
			halves, halfPages = append(halves, d), p
		}
		plain, since, half := p50(plains), p50(alls), p50(halves)
		perPage := func(d time.Duration, pages int) float64 { return float64(d) / float64(pages) }
		b.Logf("walks: unfiltered %s (%d pages); all matching %s, %d items; half %s (%d pages), %d items",
			plain.Round(time.Millisecond), plainPages, since.Round(time.Millisecond), allItems, half.Round(time.Millisecond), halfPages, halfItems)
		b.ReportMetric(float64(since)/float64(plain), "walk-all/unfiltered-walk")
		b.ReportMetric(perPage(half, halfPages)/perPage(plain, plainPages), "walk-half-per-page/unfiltered-per-page")
		b.ReportMetric(float64(halfItems)/float64(n), "walk-half-items/entities")
	}
}
