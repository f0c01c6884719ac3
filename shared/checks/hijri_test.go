package checks

import (
	"testing"
	"time"
)

func TestToHijri(t *testing.T) {
	tests := []struct {
		gregorian string
		want      hijriDate
	}{
		// 1 Muharram 1446 was 7 July 2024 (Umm al-Qura); the tabular calendar agrees within a day.
		{"2024-07-07", hijriDate{1446, 1, 1}},
		{"2025-03-01", hijriDate{1446, 9, 1}},
		{"2026-11-20", hijriDate{1448, 6, 10}},
	}
	for _, tt := range tests {
		g, _ := time.Parse("2006-01-02", tt.gregorian)
		got := toHijri(g)
		diff := ordinal(got) - ordinal(tt.want)
		if diff < -2 || diff > 2 {
			t.Errorf("toHijri(%s) = %v, want %v within two days", tt.gregorian, got, tt.want)
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

// ordinal approximates a Hijri date's day number, enough to compare nearby dates.
func ordinal(d hijriDate) int {
	return int(float64(d.year-1)*354.36667 + float64(d.month-1)*29.5306 + float64(d.day))
}
