package domain

import "time"

// The records bucket's locks (README, "What is kept, where, for how long").
// Compliance mode only ever lengthens a date, and a relationship's end, so
// the date the law sets, is unknown while it lasts: no object is written
// with a date that could later prove too long (an EU record must go 5
// years after the end). So every version is locked a short while from its
// write (the bucket's default retention, which no role can change), and a
// record is renewed — its bytes written again as a new version, locked
// from then — while it must be kept: every month or so while its
// relationship lasts or a legal hold stands, and until its lock reaches
// the end of its retention once the relationship ended. Unrenewed, its
// current version is deleted by the bucket's lifecycle a month after its
// lock ran out, the earlier versions a day after that. A record thus goes
// at most about two months after the end of its retention, and survives
// two months of renewals failing before its lock runs out.
const (
	// RecordsLockDays is the bucket's default retention (COMPLIANCE).
	RecordsLockDays = 90
	// RecordsRenewDays: a version whose lock ends within this many days
	// is renewed (each renewal moves the lock on by about 30 days).
	RecordsRenewDays = 60
	// RecordsExpireDays: the lifecycle deletes a current version this many
	// days after it was written (30 days after its lock ran out), and a
	// noncurrent one RecordsNoncurrentDays after it was superseded, as
	// soon as its own lock allows.
	RecordsExpireDays     = 120
	RecordsNoncurrentDays = 1
)

// RecordLockEnd is when the lock of a version written at written runs out.
func RecordLockEnd(written time.Time) time.Time {
	return written.UTC().AddDate(0, 0, RecordsLockDays)
}

// RenewRecord says whether a locked copy whose newest version was written
// at written must be renewed at now: its lock ends within RecordsRenewDays
// and must last longer. until is the end of the retention of the record's
// entity, nil while its relationship lasts or a legal hold stands (kept
// however long that takes).
func RenewRecord(written, now time.Time, until *time.Time) bool {
	end := RecordLockEnd(written)
	if !end.Before(now.AddDate(0, 0, RecordsRenewDays)) {
		return false
	}
	return until == nil || end.Before(*until)
}
