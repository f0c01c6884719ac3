package domain_test

import (
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestRenewRecord(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	ptr := func(t time.Time) *time.Time { return &t }
	tests := []struct {
		name    string
		written time.Time
		now     time.Time
		until   *time.Time
		want    bool
	}{
		{"fresh, relationship lasting", day(0), day(29), nil, false},
		{"its lock ends within 60 days, relationship lasting", day(0), day(31), nil, true},
		{"its lock ran out, relationship lasting (renewals failed a while)", day(0), day(100), nil, true},
		{"ended, the lock short of the end of retention", day(0), day(31), ptr(day(400)), true},
		{"ended, the lock reaches the end of retention", day(0), day(31), ptr(day(90)), false},
		{"ended, retention over", day(0), day(31), ptr(day(10)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domain.RenewRecord(tt.written, tt.now, tt.until); got != tt.want {
				t.Errorf("RenewRecord(%s, %s, %v) = %t, want %t", tt.written.Format(time.DateOnly), tt.now.Format(time.DateOnly), tt.until, got, tt.want)
			}
		})
	}
	// Renewed on the day it falls due, month after month, a record of a
	// relationship that ended is locked past the end of its retention by
	// less than a renewal's step, and never runs unlocked before it.
	until := day(3652)
	written := day(0)
	for now := day(0); now.Before(day(4000)); now = now.AddDate(0, 0, 1) {
		if domain.RecordLockEnd(written).Before(now) && now.Before(until) {
			t.Fatalf("unlocked on %s, before the end of retention", now.Format(time.DateOnly))
		}
		if domain.RenewRecord(written, now, &until) {
			written = now
		}
	}
	if end := domain.RecordLockEnd(written); end.Before(until) || end.Sub(until) > 31*24*time.Hour {
		t.Errorf("last lock ends %s, %s after the end of retention %s", end.Format(time.DateOnly), end.Sub(until), until.Format(time.DateOnly))
	}
}
