package seed

import (
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// checkTimes asserts that every timestamp of d is UTC, whole milliseconds and
// within the entity's life, which lies within [from, now].
func checkTimes(t *testing.T, d domain.EntityDetail, from, now time.Time) {
	t.Helper()
	e := d.Entity
	name := e.LegalName
	ok := func(what string, tm time.Time, lo, hi time.Time) {
		t.Helper()
		if tm.Location() != time.UTC || !tm.Equal(tm.Truncate(time.Millisecond)) || tm.Nanosecond()%int(time.Millisecond) != 0 {
			t.Errorf("%q: %s %v not UTC milliseconds", name, what, tm)
		}
		if tm.Before(lo) || tm.After(hi) {
			t.Errorf("%q: %s %v outside [%v, %v]", name, what, tm, lo, hi)
		}
	}
	ok("created_at", e.CreatedAt, from, now)
	ok("updated_at", e.UpdatedAt, e.CreatedAt, now)
	lo, hi := e.CreatedAt, e.UpdatedAt
	if e.Risk != nil {
		ok("risk assessed_at", e.Risk.AssessedAt, lo, hi)
	}
	for _, c := range d.Checks {
		ok("check created_at", c.CreatedAt, lo, hi)
		ok("check updated_at", c.UpdatedAt, c.CreatedAt, hi)
		if c.CheckedAt != nil {
			ok("check checked_at", *c.CheckedAt, c.CreatedAt, hi)
		}
	}
	for _, rv := range d.Reviews {
		ok("review created_at", rv.CreatedAt, lo, hi)
		ok("review updated_at", rv.UpdatedAt, rv.CreatedAt, hi)
		if rv.StartedAt != nil {
			ok("review started_at", *rv.StartedAt, rv.CreatedAt, rv.UpdatedAt)
		}
		if rv.CompletedAt != nil {
			ok("review completed_at", *rv.CompletedAt, rv.CreatedAt, rv.UpdatedAt)
		}
	}
	if len(d.Reviews) == 2 && d.Reviews[1].CreatedAt.Before(d.Reviews[0].UpdatedAt) {
		t.Errorf("%q: periodic review opened before the initial one closed", name)
	}
}

func TestDemoTimestamps(t *testing.T) {
	from := nowUTC.Add(-120 * 24 * time.Hour)
	weekAgo := nowUTC.Add(-7 * 24 * time.Hour)
	for _, n := range sizes {
		ds := Demo(testNow, n)
		recent := 0
		for i, d := range ds {
			checkTimes(t, d, from, nowUTC)
			if i > 0 && !d.Entity.CreatedAt.After(ds[i-1].Entity.CreatedAt) {
				t.Errorf("n=%d: entity %d not created after entity %d", n, i, i-1)
			}
			if !d.Entity.UpdatedAt.Before(weekAgo) {
				recent++
			}
		}
		if recent == 0 || recent == n || recent > n/2 {
			t.Errorf("n=%d: updated_since a week ago matches %d entities, want some but not all", n, recent)
		}
		if first, last := ds[0].Entity.CreatedAt, ds[n-1].Entity.CreatedAt; first.After(from.Add(24*time.Hour)) || last.Before(nowUTC.Add(-2*24*time.Hour)) {
			t.Errorf("n=%d: created from %v to %v, want spread over 120 days", n, first, last)
		}
	}
}
