package domain

import (
	"testing"
	"time"
)

func TestRetentionYears(t *testing.T) {
	for _, tc := range []struct {
		country  string
		extended int
		want     int
		rule     string
	}{
		{"SA", 0, 10, "sa"},
		{"SA", 8, 10, "sa"}, // SA's ten years are not shortened by an extension
		{"DE", 0, 5, "eu"},
		{"DE", 8, 8, "eu"},
		{"FR", 10, 10, "eu"},
		{"FR", 12, 5, "eu"}, // past what the rule allows: the rule's own
		{"AE", 0, 10, "default"},
		{"US", 5, 10, "default"},
	} {
		got := RetentionYears(tc.country, AccountSettings{ExtendedRetentionYears: tc.extended})
		if got != tc.want || RetentionRuleFor(tc.country).Name != tc.rule {
			t.Errorf("%s with %d: %d years (%s), want %d (%s)", tc.country, tc.extended, got, RetentionRuleFor(tc.country).Name, tc.want, tc.rule)
		}
	}
	ended := time.Date(2028, 2, 29, 10, 0, 0, 0, time.UTC)
	if got := RetainUntil(ended, 5); !got.Equal(time.Date(2033, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("RetainUntil(29 Feb 2028, 5) = %v", got)
	}
}
