package queue

import (
	"testing"
	"time"
)

func TestQueueDue(t *testing.T) {
	created := time.Date(2026, 11, 1, 22, 30, 0, 0, time.UTC)
	at := func(days int, hour int) time.Time {
		return time.Date(2026, 11, 1+days, hour, 0, 0, 0, time.UTC)
	}
	for _, tc := range []struct {
		name string
		now  time.Time
		sla  int
		want Due
		tag  string
	}{
		{"no SLA", at(9, 12), 0, Due{None: true}, ""},
		{"just created", at(0, 23), 3, Due{Days: 3}, "due in 3 days"},
		{"the next morning", at(1, 1), 3, Due{Days: 2}, "due in 2 days"},
		{"the day before", at(2, 12), 3, Due{Days: 1}, "due in 1 day"},
		{"the day it is due", at(3, 23), 3, Due{Days: 0}, "due today"},
		{"a day past", at(4, 0), 3, Due{Days: 1, Late: true}, "1 day late"},
		{"three days past", at(6, 8), 3, Due{Days: 3, Late: true}, "3 days late"},
		{"same-day SLA, same day", at(0, 23), 1, Due{Days: 1}, "due in 1 day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := dueOf(created, tc.now, tc.sla)
			if got != tc.want || got.String() != tc.tag {
				t.Errorf("dueOf = %+v (%q), want %+v (%q)", got, got.String(), tc.want, tc.tag)
			}
		})
	}
}
