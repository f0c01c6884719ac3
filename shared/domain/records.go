package domain

import "time"

// The records bucket's locks (README, "What is kept, where, for how long").
// Compliance mode only ever lengthens a date, so a version is locked at its
// write to a date the law already requires: a record of a relationship
// still open when it is written must be kept until at least then plus its
// jurisdiction's minimum (the relationship cannot end earlier), and once the
// relationship ended at E, until E plus the retention its believed closure
// record names. Neither date can prove too long, and no stopped process can
// shorten either. A record still needed when its lock nears its end is
// written again as a new version, locked from then (renewal only extends).
//
// The bucket's lifecycle expires a current version by its tag
// (RecordsKeepTag: the whole years its lock runs from its write), a day
// after that lock ends, and deletes a replaced or expired version a day
// later, as soon as its own lock allows: so a record goes within days of
// the date it was locked to, whether or not any process still runs.
const (
	// RecordsDefaultLockDays is the bucket's default retention
	// (COMPLIANCE): what locks a version written without a date of its own.
	// The service names one on every write.
	RecordsDefaultLockDays = 90
	// RecordsRenewYears: a version of a record still needed is written
	// again this many years after its write, less RecordsRenewDays: the
	// shortest rule's minimum (a Saudi record, locked ten years, is so
	// written again at five, and its older version kept beside it until
	// its own lock ends: a listing then tells, with no table read, which
	// versions are due).
	RecordsRenewYears = 5
	RecordsRenewDays  = 60
	// RecordsNoncurrentDays: the lifecycle deletes a replaced or expired
	// version this many days later, as soon as its lock allows.
	RecordsNoncurrentDays = 1
	// RecordsMaxKeepYears is the longest any rule keeps a record after its
	// write or its relationship's end (SA, the default, EU extended): the
	// account's own chain and the manifests are kept so long, and no lock
	// may reach further (the bucket's policy refuses one).
	RecordsMaxKeepYears = 10
	// RecordsKeepTag names the object tag the lifecycle expires a current
	// version by: its value is the whole years from the version's write to
	// the end of its lock, 1 to RecordsMaxKeepYears (RecordKeepYears).
	RecordsKeepTag = "evs-keep-years"
)

// RecordLockUntil is the date a version written at now is locked to: now
// plus years while the relationship of its entity lasts (or its end is
// not believed), end once it ended. A version written after its retention
// ended (end past) is locked a day, which S3's future date needs.
func RecordLockUntil(now time.Time, years int, end *time.Time) time.Time {
	now = now.UTC().Truncate(time.Second)
	if end == nil {
		return now.AddDate(years, 0, 0)
	}
	if until := end.UTC().Truncate(time.Second); until.After(now) {
		return until
	}
	return now.AddDate(0, 0, 1)
}

// RecordKeepYears is the tag value of a version written at now and locked
// until until: the whole years between them, rounded up, from 1 to
// RecordsMaxKeepYears.
func RecordKeepYears(now, until time.Time) int {
	for y := 1; y < RecordsMaxKeepYears; y++ {
		if !until.After(now.AddDate(y, 0, 0)) {
			return y
		}
	}
	return RecordsMaxKeepYears
}

// RecordsKeepDays is how long the lifecycle keeps a current version tagged
// years: the longest those years can be (a leap day every four, rounded
// up), and a day.
func RecordsKeepDays(years int) int {
	return 365*years + (years+3)/4 + 1
}

// RecordRenewDue says whether a version written at written is due to be
// written again at now, if its record is still needed: RecordsRenewYears
// after its write, less RecordsRenewDays (or past that: renewals failed a
// while).
func RecordRenewDue(written, now time.Time) bool {
	return !now.Before(written.AddDate(RecordsRenewYears, 0, -RecordsRenewDays))
}

// RecordEnd is the end of a relationship as its believed closure record
// names it: when it ended, and until when its records are kept.
type RecordEnd struct {
	At, Until time.Time
}

// RecordRenewal says whether the daily run writes again, at now, a record
// whose newest version was written at written, and the date the new
// version is locked to. With no end known (end nil: the relationship
// lasting, or its end not believed, a legal hold, the account's own
// records), once due (RecordRenewDue), locked years from now. Once the
// relationship ended, a version written before the end (locked from its
// write, short of the end's date: the closure's own renewal,
// RecordClosureRenewal, did not reach it) at once, locked to end.Until;
// none once that date is past.
func RecordRenewal(written, now time.Time, years int, end *RecordEnd) (time.Time, bool) {
	if end == nil {
		return RecordLockUntil(now, years, nil), RecordRenewDue(written, now)
	}
	if !end.Until.After(now) || !written.Before(end.At) {
		return time.Time{}, false
	}
	return RecordLockUntil(now, years, &end.Until), true
}

// RecordClosureRenewal says whether a closure's renewal of its trail (run
// once, when its record is locked and believed) writes again a version
// written at written, locked from then for years: when that lock falls
// short of end.Until (a version written before the end, or in the minutes
// the closure took to be locked), locked to end.Until.
func RecordClosureRenewal(written, now time.Time, years int, end RecordEnd) (time.Time, bool) {
	if !end.Until.After(now) || !written.AddDate(years, 0, 0).Before(end.Until) {
		return time.Time{}, false
	}
	return RecordLockUntil(now, years, &end.Until), true
}
