package checks

import (
	"testing"
	"time"
)

func TestUmmAlQuraDay(t *testing.T) {
	tests := []struct {
		at   string // RFC 3339
		want hijriDate
	}{
		// Dates Saudi Arabia announced; the tabular calendar this replaced
		// was a day off on those marked so.
		{"2024-07-07T12:00:00Z", hijriDate{1446, 1, 1}},   // 1 Muharram 1446 (tabular: 1445/12/30)
		{"2025-03-01T12:00:00Z", hijriDate{1446, 9, 1}},   // 1 Ramadan 1446
		{"2025-03-30T12:00:00Z", hijriDate{1446, 10, 1}},  // Eid al-Fitr (tabular: 1446/9/30)
		{"2025-06-06T12:00:00Z", hijriDate{1446, 12, 10}}, // Eid al-Adha (tabular: 1446/12/9)
		{"2025-06-26T12:00:00Z", hijriDate{1447, 1, 1}},   // 1 Muharram 1447 (tabular: 1446/12/29)
		{"2026-02-18T12:00:00Z", hijriDate{1447, 9, 1}},   // 1 Ramadan 1447
		{"2026-11-20T12:00:00Z", hijriDate{1448, 6, 10}},  // (tabular: 1448/6/9)
		// The day is Riyadh's (UTC+3), not UTC's.
		{"2025-02-28T20:59:59Z", hijriDate{1446, 8, 29}},      // 23:59:59 in Riyadh
		{"2025-02-28T21:00:00Z", hijriDate{1446, 9, 1}},       // midnight in Riyadh, still the 28th in UTC
		{"2025-03-01T00:30:00+05:00", hijriDate{1446, 8, 29}}, // 22:30 on the 28th in Riyadh
		// The last day of the tables.
		{"2077-11-16T12:00:00Z", hijriDate{1500, 12, 30}},
	}
	for _, tt := range tests {
		at, err := time.Parse(time.RFC3339, tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ummAlQuraDay(at); err != nil || got != tt.want {
			t.Errorf("ummAlQuraDay(%s) = %v, %v; want %v", tt.at, got, err, tt.want)
		}
	}
}

func TestUmmAlQuraDayOutOfRange(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2077, 11, 16, 21, 0, 0, 0, time.UTC), // the 17th in Riyadh
		time.Date(1937, 3, 13, 12, 0, 0, 0, time.UTC),
	} {
		if got, err := ummAlQuraDay(at); err == nil {
			t.Errorf("ummAlQuraDay(%s) = %v, want an error beyond the tables", at, got)
		}
	}
}

func TestParseHijri(t *testing.T) {
	if d, err := parseHijri("1441/10/29"); err != nil || d != (hijriDate{1441, 10, 29}) {
		t.Errorf("parseHijri = %v, %v", d, err)
	}
	for _, bad := range []string{"", "1441/13/01", "29/10/1441", "abc", "1441/10"} {
		if _, err := parseHijri(bad); err == nil {
			t.Errorf("parseHijri(%q) accepted", bad)
		}
	}
}
