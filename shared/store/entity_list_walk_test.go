package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestUpdatedSinceWalk follows the cursors an updated_since listing hands
// on, as a client following rel=next does, with changes scattered across
// the account, alone and with a country, at two sizes: the walk lists
// exactly the matches, newest first, each once, with the first page's exact
// total on every page; and it reads O(account) items in all, not O(pages ×
// account) — every page after the first reads about per_page × size ÷
// matches items.
func TestUpdatedSinceWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 4,000 entities")
	}
	ctx := context.Background()
	const perPage = 50
	for _, n := range []int{1000, 3000} {
		// A permutation of 0..n-1 hours: matches anywhere in the sequence.
		st, acct, all, counter := countedAccount(t, n, func(i int) time.Duration { return time.Duration(i*7919%n) * time.Hour })
		for _, tc := range []struct {
			country string
			hours   int // the threshold: entities changed that many hours after t0 or later match
		}{{"", n / 2}, {"", n / 4}, {"", 3 * n / 4}, {"AE", n / 2}} {
			since := t0.Add(time.Duration(tc.hours) * time.Hour)
			var want []int64
			size := 0
			for i := len(all) - 1; i >= 0; i-- {
				e := all[i].Entity
				if tc.country != "" && e.CountryCode != tc.country {
					continue
				}
				size++
				if !e.UpdatedAt.Before(since) {
					want = append(want, e.ID)
				}
			}
			name := fmt.Sprintf("%d entities, country %q, %d of %d matching", n, tc.country, len(want), size)
			f := domain.EntityFilter{UpdatedSince: &since, CountryCode: tc.country}
			var got []int64
			counter.Reset()
			firstItems, pages, cursors := 0, 0, 0
			for page := 1; ; page++ {
				res, err := st.ListEntities(ctx, acct, f, page, perPage)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if res.Total != len(want) {
					t.Fatalf("%s: page %d total %d, want %d", name, page, res.Total, len(want))
				}
				got = append(got, ids(res.Entities)...)
				if page == 1 {
					firstItems = counter.Items()
				}
				if res.Next == "" {
					break
				}
				cursors++
				f.Cursor = res.Next
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: the walk listed %d entities, not the %d matches in order", name, len(got), len(want))
			}
			if cursors != pages-1 {
				t.Errorf("%s: %d of %d pages continued by a cursor, want all but the first", name, cursors, pages)
			}
			// After the first page, each reads about per_page × size ÷
			// matches items (twice, as the first read of a page is two
			// pages' worth), and the country's pages read keys and items.
			rest := counter.Items() - firstItems
			perKind := 1
			if tc.country != "" {
				perKind = 2
			}
			if bound := perKind * (3*size + 4*perPage*pages); rest > bound {
				t.Errorf("%s: pages 2..%d read %d items, want at most %d (O(account))", name, pages, rest, bound)
			}
			t.Logf("%s: %d pages, first %d items, the rest %d (%.1f a page)", name, pages, firstItems, rest, float64(rest)/float64(max(pages-1, 1)))
		}
	}
}

// A cursor that does not fit its request (another page, threshold or
// per_page, or garbage) is ignored: the page is placed by its number.
func TestUpdatedSinceCursorThatDoesNotFitIsIgnored(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA", "AE")
	importMixChanged(t, st, acct, 400, func(i int) time.Duration { return time.Duration(i*7919%400) * time.Hour })
	since := t0.Add(200 * time.Hour)
	f := domain.EntityFilter{UpdatedSince: &since}
	first, err := st.ListEntities(ctx, acct, f, 1, 20)
	if err != nil || first.Next == "" {
		t.Fatalf("page 1: next %q, %v", first.Next, err)
	}
	later := t0.Add(300 * time.Hour)
	other := newAccount(t, st, "SA")
	importMixChanged(t, st, other, 400, func(i int) time.Duration { return time.Duration(i) * time.Hour })
	othersFirst, err := st.ListEntities(ctx, other, f, 1, 20)
	if err != nil || othersFirst.Next == "" {
		t.Fatalf("other account's page 1: next %q, %v", othersFirst.Next, err)
	}
	for _, tc := range []struct {
		name          string
		since         *time.Time
		page, perPage int
		cursor        string
	}{
		{"another page", &since, 3, 20, first.Next},
		{"another per_page", &since, 2, 25, first.Next},
		{"another threshold", &later, 2, 20, first.Next},
		{"another account's", &since, 2, 20, othersFirst.Next},
		{"garbage", &since, 2, 20, "not-a-cursor"},
		{"base64 garbage", &since, 2, 20, "dzF8Mnwy"},
	} {
		byNumber, err := st.ListEntities(ctx, acct, domain.EntityFilter{UpdatedSince: tc.since}, tc.page, tc.perPage)
		if err != nil {
			t.Fatal(err)
		}
		withCursor, err := st.ListEntities(ctx, acct, domain.EntityFilter{UpdatedSince: tc.since, Cursor: tc.cursor}, tc.page, tc.perPage)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ids(withCursor.Entities), withCursor.Total) != fmt.Sprint(ids(byNumber.Entities), byNumber.Total) {
			t.Errorf("%s: %v (%d), want the page by its number %v (%d)", tc.name, ids(withCursor.Entities), withCursor.Total, ids(byNumber.Entities), byNumber.Total)
		}
	}
}

// An entity below the cursor that starts to match during a walk (a decision
// on an old entity) is not lost, even when the first page's count was a
// whole number of pages: the walk goes on while matches remain, and its
// total grows to take the entity in.
func TestUpdatedSinceWalkTakesInAnEntityChangedDuringIt(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA", "AE")
	all := importMix(t, st, acct, 40) // entity i changed i hours after t0
	since := t0.Add(20 * time.Hour)   // 20 match: two pages of 10
	f := domain.EntityFilter{UpdatedSince: &since}
	first, err := st.ListEntities(ctx, acct, f, 1, 10)
	if err != nil || first.Total != 20 || first.Next == "" {
		t.Fatalf("page 1: total %d next %q, %v", first.Total, first.Next, err)
	}
	old := all[4].Entity // matched nothing; now changed
	old.UpdatedAt = t0.Add(100 * time.Hour)
	if err := st.ApplyDecision(ctx, domain.Decision{
		Audit:  domain.AuditRecord{AccountID: acct, ActionID: "walk-change", Action: domain.ActionUpdateProfile, EntityID: old.ID, OperatorName: "test", At: old.UpdatedAt},
		Entity: &old,
	}); err != nil {
		t.Fatal(err)
	}
	got := ids(first.Entities)
	f.Cursor = first.Next
	for page := 2; f.Cursor != ""; page++ {
		res, err := st.ListEntities(ctx, acct, f, page, 10)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(res.Entities)...)
		if page == 2 && (res.Total != 21 || res.Next == "") {
			t.Errorf("page 2: total %d next %q, want 21 and a page 3", res.Total, res.Next)
		}
		f.Cursor = res.Next
	}
	if len(got) != 21 || got[20] != old.ID {
		t.Errorf("the walk listed %v, want the 20 matches then entity %d", got, old.ID)
	}
}
