package domain_test

import (
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

var recordsT0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

func TestRecordLockUntil(t *testing.T) {
	at := func(y, d int) *time.Time { t := recordsT0.AddDate(y, 0, d); return &t }
	tests := []struct {
		name  string
		years int
		end   *time.Time
		want  time.Time
	}{
		{"an EU relationship lasting: five years from the write", 5, nil, recordsT0.AddDate(5, 0, 0)},
		{"a Saudi relationship lasting: ten", 10, nil, recordsT0.AddDate(10, 0, 0)},
		{"ended, its retention ahead: the end's date", 5, at(4, 3), *at(4, 3)},
		{"ended, its retention past: a day (S3 wants a date ahead)", 5, at(0, -3), *at(0, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domain.RecordLockUntil(recordsT0.Add(400*time.Millisecond), tt.years, tt.end); !got.Equal(tt.want) {
				t.Errorf("RecordLockUntil = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRecordKeepYears(t *testing.T) {
	tests := []struct {
		until time.Time
		want  int
	}{
		{recordsT0.AddDate(0, 0, 1), 1},
		{recordsT0.AddDate(5, 0, 0), 5},
		{recordsT0.AddDate(5, 0, 0).Add(time.Second), 6},
		{recordsT0.AddDate(10, 0, 0), 10},
		{recordsT0.AddDate(30, 0, 0), 10},
	}
	for _, tt := range tests {
		got := domain.RecordKeepYears(recordsT0, tt.until)
		if got != tt.want {
			t.Errorf("RecordKeepYears(%s) = %d, want %d", tt.until.Format(time.DateOnly), got, tt.want)
		}
		// The lifecycle keeps the version past its lock.
		if got == tt.want && tt.want < 10 && !recordsT0.AddDate(0, 0, domain.RecordsKeepDays(got)).After(tt.until) {
			t.Errorf("%d years kept %d days: not past %s", got, domain.RecordsKeepDays(got), tt.until)
		}
	}
}

func TestRecordRenewal(t *testing.T) {
	day := func(n int) time.Time { return recordsT0.AddDate(0, 0, n) }
	due := recordsT0.AddDate(domain.RecordsRenewYears, 0, -domain.RecordsRenewDays)
	end := &domain.RecordEnd{At: day(100), Until: day(100).AddDate(5, 0, 0)}
	tests := []struct {
		name      string
		now       time.Time
		end       *domain.RecordEnd
		want      bool
		wantUntil time.Time
	}{
		{"lasting, young", day(30), nil, false, time.Time{}},
		{"lasting, due", due, nil, true, due.AddDate(10, 0, 0)},
		{"lasting, past due (renewals failed a while)", due.AddDate(0, 0, 90), nil, true, due.AddDate(10, 0, 90)},
		{"ended after the write, retention ahead: locked to the end", day(120), end, true, end.Until},
		{"ended after the write, retention past", end.Until.AddDate(0, 0, 1), end, false, time.Time{}},
		{"ended before the write (locked to the end at it)", day(120), &domain.RecordEnd{At: day(-1), Until: day(-1).AddDate(5, 0, 0)}, false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			until, ok := domain.RecordRenewal(recordsT0, tt.now, 10, tt.end)
			if ok != tt.want || (ok && !until.Equal(tt.wantUntil)) {
				t.Errorf("RecordRenewal = %s, %t; want %s, %t", until, ok, tt.wantUntil, tt.want)
			}
		})
	}
}

func TestRecordClosureRenewal(t *testing.T) {
	end := domain.RecordEnd{At: recordsT0, Until: recordsT0.AddDate(7, 0, 0)} // an EU account's seven years
	tests := []struct {
		name    string
		written time.Time
		years   int
		want    bool
	}{
		{"written before the end, locked five years: short", recordsT0.AddDate(-1, 0, 0), 5, true},
		{"the closure itself, a minute after the end, locked five years: short", recordsT0.Add(time.Minute), 5, true},
		{"a Saudi record before the end, ten years: short", recordsT0.AddDate(0, 0, -1), 10, true},
		{"the closure itself, ten years from a minute after the end: long enough", recordsT0.Add(time.Minute), 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := end
			if tt.years == 10 {
				e.Until = recordsT0.AddDate(10, 0, 0)
			}
			until, ok := domain.RecordClosureRenewal(tt.written, recordsT0.Add(2*time.Minute), tt.years, e)
			if ok != tt.want || (ok && !until.Equal(e.Until)) {
				t.Errorf("RecordClosureRenewal = %s, %t; want %t, to %s", until, ok, tt.want, e.Until)
			}
		})
	}
}

// A record's life, day by day, as the daily run renews it: a relationship
// of eleven years ends, and its records are kept as the rule says. At no
// day before the end of its retention is no version locked; the current
// version's lifecycle takes it within a few days of that end (an EU
// record: E + 5 years and up to RecordsKeepDays' slack), and no version is
// locked past it.
func TestARecordsLife(t *testing.T) {
	written := recordsT0
	ended := recordsT0.AddDate(11, 0, 0)
	for _, tc := range []struct {
		name         string
		years, after int // the rule's minimum, the years kept after the end
	}{{"EU", 5, 5}, {"EU, extended to seven", 5, 7}, {"SA", 10, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			end := &domain.RecordEnd{At: ended, Until: ended.AddDate(tc.after, 0, 0)}
			type version struct{ at, until time.Time }
			vs := []version{{written, domain.RecordLockUntil(written, tc.years, nil)}}
			for now := written; now.Before(end.Until.AddDate(1, 0, 0)); now = now.AddDate(0, 0, 1) {
				cur := vs[len(vs)-1]
				var e *domain.RecordEnd
				if !now.Before(ended) {
					e = end
					if now.Equal(ended) { // the closure's own renewal
						if u, ok := domain.RecordClosureRenewal(cur.at, now, tc.years, *end); ok {
							vs = append(vs, version{now, u})
						}
						continue
					}
				}
				if u, ok := domain.RecordRenewal(cur.at, now, tc.years, e); ok {
					vs = append(vs, version{now, u})
				}
				locked := false
				for _, v := range vs {
					locked = locked || v.until.After(now)
				}
				if !locked && now.Before(end.Until) {
					t.Fatalf("%s: no version locked, its retention ends %s", now.Format(time.DateOnly), end.Until.Format(time.DateOnly))
				}
			}
			last := vs[len(vs)-1]
			gone := last.at.AddDate(0, 0, domain.RecordsKeepDays(domain.RecordKeepYears(last.at, last.until)))
			if gone.Before(end.Until) || gone.Sub(end.Until) > 4*24*time.Hour || last.until.After(end.Until) {
				t.Errorf("the last version (of %s) locked to %s, goes %s; want it locked to the end %s and gone within days of it",
					last.at.Format(time.DateOnly), last.until.Format(time.DateOnly), gone.Format(time.DateOnly), end.Until.Format(time.DateOnly))
			}
		})
	}
}
