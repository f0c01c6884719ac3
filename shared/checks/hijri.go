package checks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	hijri "github.com/hablullah/go-hijri"
)

// Saudi commercial registers carry Hijri dates ("1446/10/29") of the Umm
// al-Qura calendar, Saudi Arabia's official one. Whether an expiry date has
// passed is judged against today's Umm al-Qura date in Riyadh.

// riyadhOffset is Saudi Arabia's time, UTC+3 all year: the kingdom keeps no
// daylight saving time, so a fixed zone is exact, and unlike
// time.LoadLocation("Asia/Riyadh") it needs no zoneinfo, which Lambda's
// provided.al2023 runtime lacks (time/tzdata would add ~450 KB to every
// binary that links this package).
const riyadhOffset = 3 * 60 * 60

// hijriDate is a date of the Islamic calendar.
type hijriDate struct{ year, month, day int }

func (d hijriDate) before(o hijriDate) bool {
	if d.year != o.year {
		return d.year < o.year
	}
	if d.month != o.month {
		return d.month < o.month
	}
	return d.day < o.day
}

// parseHijri reads "YYYY/MM/DD" (or with dashes).
func parseHijri(s string) (hijriDate, error) {
	parts := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return r == '/' || r == '-' })
	if len(parts) != 3 {
		return hijriDate{}, fmt.Errorf("not a Hijri date: %q", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return hijriDate{}, fmt.Errorf("not a Hijri date: %q", s)
		}
		n[i] = v
	}
	d := hijriDate{n[0], n[1], n[2]}
	if d.month < 1 || d.month > 12 || d.day < 1 || d.day > 30 || d.year < 1300 {
		return hijriDate{}, fmt.Errorf("not a Hijri date: %q", s)
	}
	return d, nil
}

// ummAlQuraDay is the Umm al-Qura date of the day t falls on in Riyadh. The
// calendar is tabulated from 1356 to 1500 AH (14 March 1937 to 16 November
// 2077); outside that it is an error.
func ummAlQuraDay(t time.Time) (hijriDate, error) {
	y, m, d := t.In(time.FixedZone("AST", riyadhOffset)).Date()
	// go-hijri converts the UTC calendar day of the time it is given: hand it
	// Riyadh's day at noon UTC, so that the two cannot disagree.
	u, err := hijri.CreateUmmAlQuraDate(time.Date(y, m, d, 12, 0, 0, 0, time.UTC))
	if err != nil {
		return hijriDate{}, fmt.Errorf("umm al-qura date of %04d-%02d-%02d: %w", y, m, d, err)
	}
	return hijriDate{int(u.Year), int(u.Month), int(u.Day)}, nil
}
