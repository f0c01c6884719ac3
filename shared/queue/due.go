package queue

import (
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Due is where a review stands against its account's SLA for its purpose,
// in whole calendar days (UTC, the service's time): due in Days, due today
// (Days 0), or Days late. None: the purpose has no SLA.
type Due struct {
	Days int
	Late bool
	None bool
}

// String is the queue's tag: "due in 2 days", "due today", "3 days late",
// "" for none.
func (d Due) String() string {
	switch {
	case d.None:
		return ""
	case d.Late:
		return plural(d.Days) + " late"
	case d.Days == 0:
		return "due today"
	default:
		return "due in " + plural(d.Days)
	}
}

func plural(days int) string {
	if days == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", days)
}

// dueOf is the due date of a review created at created, with slaDays
// (0 or less: no SLA), as it stands at now: due at the end of the day
// slaDays after the day it was created.
func dueOf(created, now time.Time, slaDays int) Due {
	if slaDays <= 0 {
		return Due{None: true}
	}
	return dueAt(day(created).AddDate(0, 0, slaDays), now)
}

// dueAt is where a review due at the end of the day due stands at now.
func dueAt(due, now time.Time) Due {
	days := int(due.Sub(day(now)).Hours() / 24)
	if days < 0 {
		return Due{Days: -days, Late: true}
	}
	return Due{Days: days}
}

// dueOfReview is where the review stands: due the day it opened when it is
// due now (domain.Review.DueNow: a screening answer opened it), whatever
// its purpose's SLA; else as dueOf has it.
func dueOfReview(r domain.Review, now time.Time, slaDays int) Due {
	if r.DueNow() {
		return dueAt(day(r.CreatedAt), now)
	}
	return dueOf(r.CreatedAt, now, slaDays)
}

// day is t's calendar day in UTC, at midnight.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
