package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// importMix loads n entities: every third in AE, the rest in SA, entity i
// updated i hours after t0.
func importMix(t *testing.T, st *store.Store, acct int64, n int) []domain.EntityDetail {
	t.Helper()
	return importMixChanged(t, st, acct, n, hours)
}

// hours changes entity i i hours after t0.
func hours(i int) time.Duration { return time.Duration(i) * time.Hour }

// countedAccount is an account (SA and AE) of its own tables holding the
// n entities of importMixChanged, read through a request counter.
func countedAccount(t *testing.T, n int, changed func(i int) time.Duration) (*store.Store, int64, []domain.EntityDetail, *devstacktest.Reads) {
	t.Helper()
	counter := &devstacktest.Reads{}
	st := devstacktest.Store(t, counter.Option)
	acct := newAccount(t, st, "SA", "AE")
	return st, acct, importMixChanged(t, st, acct, n, changed), counter
}

// importMixChanged is importMix with entity i updated changed(i) after t0.
func importMixChanged(t *testing.T, st *store.Store, acct int64, n int, changed func(i int) time.Duration) []domain.EntityDetail {
	t.Helper()
	ds := make([]domain.EntityDetail, n)
	for i := range ds {
		country, number := "SA", fmt.Sprintf("70%08d", i)
		if i%3 == 2 {
			country, number = "AE", fmt.Sprintf("CN-%07d", i)
		}
		ds[i] = sampleEntity(acct, country, number, t0.Add(time.Duration(i)*time.Minute))
		ds[i].Entity.UpdatedAt = t0.Add(changed(i))
	}
	out, err := st.ImportEntities(context.Background(), acct, ds)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestListEntities(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA", "AE")
	all := importMix(t, st, acct, 30) // 20 SA, 10 AE
	newest := all[len(all)-1].Entity.ID
	since := t0.Add(20 * time.Hour)

	tests := []struct {
		name          string
		filter        domain.EntityFilter
		page, perPage int
		wantTotal     int
		wantIDs       []int64
	}{
		{"first page", domain.EntityFilter{}, 1, 4, 30, []int64{newest, newest - 1, newest - 2, newest - 3}},
		{"middle page", domain.EntityFilter{}, 2, 4, 30, []int64{newest - 4, newest - 5, newest - 6, newest - 7}},
		{"last partial page", domain.EntityFilter{}, 8, 4, 30, []int64{newest - 28, newest - 29}},
		{"page past the end", domain.EntityFilter{}, 9, 4, 30, []int64{}},
		{"country", domain.EntityFilter{CountryCode: "AE"}, 1, 3, 10, []int64{all[29].Entity.ID, all[26].Entity.ID, all[23].Entity.ID}},
		{"country, lower case", domain.EntityFilter{CountryCode: "ae"}, 4, 3, 10, []int64{all[2].Entity.ID}},
		{"country without entities", domain.EntityFilter{CountryCode: "GB"}, 1, 3, 0, []int64{}},
		{"registration number", domain.EntityFilter{RegistrationNumber: "7000000004"}, 1, 50, 1, []int64{all[4].Entity.ID}},
		{"registration number is exact", domain.EntityFilter{RegistrationNumber: "700000000"}, 1, 50, 0, []int64{}},
		{"registration number and other country", domain.EntityFilter{RegistrationNumber: "7000000004", CountryCode: "AE"}, 1, 50, 0, []int64{}},
		{"updated since", domain.EntityFilter{UpdatedSince: &since}, 1, 4, 10, []int64{newest, newest - 1, newest - 2, newest - 3}},
		{"updated since, page 3", domain.EntityFilter{UpdatedSince: &since}, 3, 4, 10, []int64{all[21].Entity.ID, all[20].Entity.ID}},
		{"updated since and country", domain.EntityFilter{UpdatedSince: &since, CountryCode: "AE"}, 1, 50, 4, []int64{all[29].Entity.ID, all[26].Entity.ID, all[23].Entity.ID, all[20].Entity.ID}},
		{"updated since and registration number", domain.EntityFilter{UpdatedSince: &since, RegistrationNumber: "7000000004"}, 1, 50, 0, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.ListEntities(ctx, acct, tt.filter, tt.page, tt.perPage)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != tt.wantTotal {
				t.Errorf("total = %d, want %d", got.Total, tt.wantTotal)
			}
			if fmt.Sprint(ids(got.Entities)) != fmt.Sprint(tt.wantIDs) {
				t.Errorf("ids = %v, want %v", ids(got.Entities), tt.wantIDs)
			}
		})
	}
}

func TestUpdatedSinceIsInclusiveToTheMillisecond(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	all := importMix(t, st, acct, 3)
	at := all[1].Entity.UpdatedAt
	for _, tt := range []struct {
		since time.Time
		want  int
	}{
		{at, 2},
		{at.Add(time.Microsecond), 1}, // just after entity 1's change
		{at.Add(-time.Microsecond), 2},
	} {
		got, err := st.ListEntities(ctx, acct, domain.EntityFilter{UpdatedSince: &tt.since}, 1, 50)
		if err != nil || got.Total != tt.want {
			t.Errorf("since %s: total %d, %v; want %d", tt.since.Format(time.RFC3339Nano), got.Total, err, tt.want)
		}
	}
}

// TestPageCostDoesNotGrowWithDepth reads page 1 and a deep page of a large
// account and checks both cost the same: one GetItem (the counters) and one
// Query of per_page items, never O(page x per_page) or O(account size).
func TestPageCostDoesNotGrowWithDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 3,000 entities")
	}
	ctx := context.Background()
	counter := &devstacktest.Reads{}
	st := devstacktest.Store(t, counter.Option)
	acct := newAccount(t, st, "SA", "AE")
	const n, perPage = 3000, 50
	importMix(t, st, acct, n)

	for _, f := range []domain.EntityFilter{{}, {CountryCode: "SA"}} {
		costs := map[int]string{}
		for _, page := range []int{1, n / perPage / 2, 40} {
			counter.Reset()
			res, err := st.ListEntities(ctx, acct, f, page, perPage)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Entities) != perPage {
				t.Fatalf("filter %+v page %d: %d entities", f, page, len(res.Entities))
			}
			// A country's page reads its range of the country's index, then
			// its items by key.
			want := map[string]int{"GetItem": 1, "Query": 1}
			if f.CountryCode != "" {
				want["BatchGetItem"] = 1
			}
			if fmt.Sprint(counter.Requests()) != fmt.Sprint(want) {
				t.Errorf("filter %+v page %d: requests %v, want %v", f, page, counter.Requests(), want)
			}
			// Its keys from the index, then the items: a page's worth each.
			if counter.Items() > 2*perPage+1 {
				t.Errorf("filter %+v page %d: read %d items, want at most %d", f, page, counter.Items(), 2*perPage+1)
			}
			costs[page] = fmt.Sprintf("%v/%d items", counter.Requests(), counter.Items())
		}
		t.Logf("filter %+v: cost by page %v", f, costs)
	}
}

// TestUpdatedSinceCost pins what an updated_since page costs, alone and
// with a country, at two account sizes: with every entity matching or only
// the newest, at most four requests and one round of keys and a page of
// items at either size; with half matching, no more keys than the smaller side (twice, as
// both sides are read side by side) and a page of items.
func TestUpdatedSinceCost(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 4,000 entities")
	}
	ctx := context.Background()
	const perPage = 50
	type cost struct{ requests, items int }
	costs := map[string]map[int]cost{}
	for _, n := range []int{1000, 3000} {
		st, acct, _, counter := countedAccount(t, n, hours) // entity i changed i hours after t0; every third in AE
		at := func(h int) *time.Time { v := t0.Add(time.Duration(h) * time.Hour); return &v }
		cases := []struct {
			name    string
			filter  domain.EntityFilter
			matches int
		}{
			{"all", domain.EntityFilter{UpdatedSince: at(-1)}, n},
			{"newest 100", domain.EntityFilter{UpdatedSince: at(n - 100)}, 100},
			{"half", domain.EntityFilter{UpdatedSince: at(n / 2)}, n / 2},
			{"country, all", domain.EntityFilter{UpdatedSince: at(-1), CountryCode: "AE"}, n / 3},
			{"country, newest 100", domain.EntityFilter{UpdatedSince: at(n - 300), CountryCode: "AE"}, 100},
			{"country, half", domain.EntityFilter{UpdatedSince: at(n / 2), CountryCode: "AE"}, n/3 - (n/2)/3},
		}
		for _, tc := range cases {
			for _, page := range []int{1, 2} {
				counter.Reset()
				res, err := st.ListEntities(ctx, acct, tc.filter, page, perPage)
				if err != nil {
					t.Fatal(err)
				}
				if res.Total != tc.matches || len(res.Entities) != min(perPage, tc.matches-(page-1)*perPage) {
					t.Fatalf("%d entities, %s, page %d: total %d and %d entities, want %d matching", n, tc.name, page, res.Total, len(res.Entities), tc.matches)
				}
				requests := counter.Total()
				key := fmt.Sprintf("%s page %d", tc.name, page)
				if costs[key] == nil {
					costs[key] = map[int]cost{}
				}
				costs[key][n] = cost{requests, counter.Items()}
				size := n
				if tc.filter.CountryCode != "" {
					size = n / 3
				}
				smaller := min(tc.matches, size-tc.matches)
				if maxItems := 2*(smaller+store.FirstSideRound) + 2*perPage; counter.Items() > maxItems {
					t.Errorf("%d entities, %s, page %d: read %d items, want at most %d (2 x the smaller side %d + a round, and the page)", n, tc.name, page, counter.Items(), maxItems, smaller)
				}
			}
		}
	}
	for key, byN := range costs {
		t.Logf("%-22s 1k: %v  3k: %v", key, byN[1000], byN[3000])
		// Every entity or only the newest matching: one round of each side
		// at most, whatever the size (a country's page adds the read of its
		// items by key beside the index).
		bound := cost{requests: 4, items: 2*store.FirstSideRound + perPage + 1}
		if strings.HasPrefix(key, "country") {
			bound.requests = 5
		}
		for n, c := range byN {
			if !strings.Contains(key, "half") && (c.requests > bound.requests || c.items > bound.items) {
				t.Errorf("%s at %d entities: cost %v, want at most %v at any size", key, n, c, bound)
			}
		}
	}
}

// TestUpdatedSinceAgreesWithAFullRead: with changes scattered across the
// account (so the non-matches are anywhere in the sequence), every page of
// every threshold, alone and with a country, is what filtering and sorting
// every entity gives.
func TestUpdatedSinceAgreesWithAFullRead(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA", "AE")
	const n, perPage = 600, 37
	// A permutation of 0..n-1 hours: changes scattered across the sequence.
	all := importMixChanged(t, st, acct, n, func(i int) time.Duration { return time.Duration(i*7919%n) * time.Hour })
	for _, country := range []string{"", "AE"} {
		for _, h := range []int{-1, 10, 150, 300, 450, 590, n} {
			since := t0.Add(time.Duration(h) * time.Hour)
			var want []int64
			for i := len(all) - 1; i >= 0; i-- {
				e := all[i].Entity
				if (country == "" || e.CountryCode == country) && !e.UpdatedAt.Before(since) {
					want = append(want, e.ID)
				}
			}
			f := domain.EntityFilter{UpdatedSince: &since, CountryCode: country}
			for page := 1; (page-1)*perPage <= len(want); page++ {
				got, err := st.ListEntities(ctx, acct, f, page, perPage)
				if err != nil {
					t.Fatal(err)
				}
				end := min(page*perPage, len(want))
				if got.Total != len(want) || fmt.Sprint(ids(got.Entities)) != fmt.Sprint(want[(page-1)*perPage:end]) {
					t.Fatalf("country %q since +%dh page %d: total %d ids %v, want total %d ids %v",
						country, h, page, got.Total, ids(got.Entities), len(want), want[(page-1)*perPage:end])
				}
			}
		}
	}
}

// An entity changed between two rounds of the matching side moves up the
// index and is read again: it is listed and counted once (its key twice in
// one BatchGetItem would be refused).
func TestUpdatedSinceCountsAnEntityReadTwiceOnce(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA", "AE")
	all := importMix(t, st, acct, 3)
	var read []int64
	for _, d := range all {
		read = append(read, d.Entity.ID)
	}
	read = append(read, read[1]) // entity 2 again, from a later round
	got, err := st.PageOfMatches(ctx, acct, read, 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{all[2].Entity.ID, all[1].Entity.ID, all[0].Entity.ID}
	if got.Total != 3 || fmt.Sprint(ids(got.Entities)) != fmt.Sprint(want) {
		t.Errorf("total %d ids %v, want 3 %v", got.Total, ids(got.Entities), want)
	}
}

// TestRegistrationFilterCost pins the registration_number filter, alone and
// with every other filter, at two account sizes: the number's guards (one
// Query of the accounts table, strongly consistent) and its entities by key
// (one BatchGetItem), whatever the account's size.
func TestRegistrationFilterCost(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 4,000 entities")
	}
	ctx := context.Background()
	const perPage = 50
	for _, n := range []int{1000, 3000} {
		st, acct, _, counter := countedAccount(t, n, hours) // entity i changed i hours after t0; "70%08d" in SA, "CN-%07d" in AE
		early, late := t0, t0.Add(time.Duration(n)*time.Hour)
		for _, tc := range []struct {
			name   string
			filter domain.EntityFilter
			want   int
		}{
			{"alone", domain.EntityFilter{RegistrationNumber: "7000000003"}, 1},
			{"with its country", domain.EntityFilter{RegistrationNumber: "7000000003", CountryCode: "SA"}, 1},
			{"with another country", domain.EntityFilter{RegistrationNumber: "7000000003", CountryCode: "AE"}, 0},
			{"with updated_since, matching", domain.EntityFilter{RegistrationNumber: "CN-0000002", UpdatedSince: &early}, 1},
			{"with updated_since, too late", domain.EntityFilter{RegistrationNumber: "CN-0000002", UpdatedSince: &late}, 0},
			{"with country and updated_since", domain.EntityFilter{RegistrationNumber: "CN-0000002", CountryCode: "AE", UpdatedSince: &early}, 1},
			{"unknown", domain.EntityFilter{RegistrationNumber: "7999999999"}, 0},
		} {
			counter.Reset()
			res, err := st.ListEntities(ctx, acct, tc.filter, 1, perPage)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != tc.want || len(res.Entities) != tc.want {
				t.Errorf("%d entities, %s: total %d, %d entities, want %d", n, tc.name, res.Total, len(res.Entities), tc.want)
			}
			requests := counter.Total()
			if requests > 2 || counter.Requests()["Query"] != 1 || counter.Items() > 2 {
				t.Errorf("%d entities, %s: %v, %d items; want one Query of the guards and at most one BatchGetItem, 2 items", n, tc.name, counter.Requests(), counter.Items())
			}
		}
	}
}
