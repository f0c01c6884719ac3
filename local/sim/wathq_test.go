package sim

import (
	"reflect"
	"testing"
)

// TestWathqAnswer: both generations' answers carry the register asked for,
// in the fields providers.md names for each.
func TestWathqAnswer(t *testing.T) {
	tests := []struct {
		name, id, status string
		wantLegacy       map[string]any
		wantExpiry       any
		wantCRNumber     string
	}{
		{"an active register has no expiry date", "7001234567", RegisterActive,
			map[string]any{"id": "active", "name": "السجل التجاري قائم", "nameEn": "Active"}, nil, "1010234567"},
		{"an expired register still carries its expiry date", "7001234564", RegisterExpired,
			map[string]any{"id": "expired", "name": "السجل التجاري منتهي", "nameEn": "Expired"}, "1440/01/01", "1010234564"},
		{"a suspended register is named in English too", "7001234567", RegisterSuspended,
			map[string]any{"id": "suspended", "name": "السجل التجاري موقوف", "nameEn": "Suspended"}, nil, "1010234567"},
		{"a cancelled register", "7001234567", RegisterCancelled,
			map[string]any{"id": "cancelled", "name": "السجل التجاري مشطوب", "nameEn": "Cancelled"}, nil, "1010234567"},
		{"a short number's CR number is padded", "CN-12", RegisterActive,
			map[string]any{"id": "active", "name": "السجل التجاري قائم", "nameEn": "Active"}, nil, "1010000012"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, api := range []string{WathqV4, WathqV5} {
				a := WathqAnswer(api, tt.id, "Najd Trading Company", tt.status)
				if got := a["status"]; !reflect.DeepEqual(got, tt.wantLegacy) {
					t.Errorf("%s status = %v, want %v", api, got, tt.wantLegacy)
				}
				if a["expiryDate"] != tt.wantExpiry || a["crNumber"] != tt.wantCRNumber || a["crEntityNumber"] != tt.id || a["crName"] != "Najd Trading Company" {
					t.Errorf("%s: the register is not the one asked for: %v", api, a)
				}
			}
			c := WathqAnswer(WathqCurrent, tt.id, "Najd Trading Company", tt.status)
			st := c["status"].(map[string]any)
			var named any
			for _, row := range WathqStatusLookup() {
				if row["id"] == st["id"] {
					named = row["nameEn"]
				}
			}
			if named != tt.wantLegacy["nameEn"] || st["name"] != tt.wantLegacy["name"] {
				t.Errorf("current status %v names %v through the lookup, want %v", st, named, tt.wantLegacy["nameEn"])
			}
			if c["crNationalNumber"] != tt.id || c["name"] != "Najd Trading Company" || c["crNumber"] != tt.wantCRNumber {
				t.Errorf("current: the register is not the one asked for: %v", c)
			}
		})
	}
}
