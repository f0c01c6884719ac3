package checks

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Saudi commercial registers carry Hijri dates ("1446/10/29"). The tabular
// (arithmetic) Islamic calendar is used to tell whether an expiry date has
// passed; it can differ from the Umm al-Qura calendar by a day or two, so a
// register expiring within that margin may read one way or the other.

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

// toHijri converts a Gregorian day to the tabular Islamic calendar, through
// the Julian day number.
func toHijri(t time.Time) hijriDate {
	y, m, d := t.UTC().Date()
	// Julian day number of the Gregorian date (Fliegel and Van Flandern).
	a := (14 - int(m)) / 12
	yy := y + 4800 - a
	mm := int(m) + 12*a - 3
	jd := d + (153*mm+2)/5 + 365*yy + yy/4 - yy/100 + yy/400 - 32045
	// Tabular Islamic calendar, epoch 16 July 622 (Julian day 1948440).
	l := jd - 1948440 + 10632
	n := (l - 1) / 10631
	l = l - 10631*n + 354
	j := ((10985-l)/5316)*((50*l)/17719) + (l/5670)*((43*l)/15238)
	l = l - ((30-j)/15)*((17719*j)/50) - (j/16)*((15238*j)/43) + 29
	month := (24 * l) / 709
	day := l - (709*month)/24
	year := 30*n + j - 30
	return hijriDate{year, month, day}
}
