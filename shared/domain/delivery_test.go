package domain

import (
	"testing"
	"time"
)

func TestAttemptID(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "dlv_x"}, {1, "dlv_x"}, {2, "dlv_x.2"}, {12, "dlv_x.12"}} {
		if got := AttemptID("dlv_x", tc.n); got != tc.want {
			t.Errorf("AttemptID(%d) = %s, want %s", tc.n, got, tc.want)
		}
	}
}

// TestDeliveryFilterRange: a date range whose end is not after its start
// is refused, naming created_before; either end may be open.
func TestDeliveryFilterRange(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		from, until time.Time
		field       string // "" for valid
	}{
		{"open", time.Time{}, time.Time{}, ""},
		{"from only", day, time.Time{}, ""},
		{"before only", time.Time{}, day, ""},
		{"a day", day, day.AddDate(0, 0, 1), ""},
		{"a millisecond", day, day.Add(time.Millisecond), ""},
		{"in another zone", day.In(time.FixedZone("AST", 3*3600)), day.Add(time.Hour), ""},
		{"empty", day, day, "created_before"},
		{"from after before", day.AddDate(0, 0, 1), day, "created_before"},
		{"a five-digit year", day, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "created_before"},
		{"before the year 1", time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC), time.Time{}, "created_from"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := DeliveryFilter{CreatedFrom: tc.from, CreatedBefore: tc.until}.Validate()
			if tc.field == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if ErrorCode(err) != ECodeInvalid || ErrorFields(err)[tc.field] == nil {
				t.Errorf("err = %v, want %s refused", err, tc.field)
			}
		})
	}
}
