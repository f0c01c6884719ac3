package sim

import (
	"reflect"
	"testing"
)

func TestWathqAnswer(t *testing.T) {
	tests := []struct {
		name, id, status string
		wantStatus       map[string]any
		wantExpiry       any
		wantCRNumber     string
	}{
		{"an active register has no expiry date", "7001234567", RegisterActive,
			map[string]any{"id": "active", "name": "السجل التجاري قائم", "name_en": "Active"}, nil, "1010234567"},
		{"an expired register still carries its expiry date", "7001234564", RegisterExpired,
			map[string]any{"id": "expired", "name": "السجل التجاري منتهي", "name_en": "Expired"}, "1440/01/01", "1010234564"},
		{"a suspended register is named in English too", "7001234567", RegisterSuspended,
			map[string]any{"id": "suspended", "name": "السجل التجاري موقوف", "name_en": "Suspended"}, nil, "1010234567"},
		{"a cancelled register is struck off", "7001234567", RegisterCancelled,
			map[string]any{"id": "cancelled", "name": "السجل التجاري مشطوب", "name_en": "Struck off"}, nil, "1010234567"},
		{"a short number's CR number is padded", "CN-12", RegisterActive,
			map[string]any{"id": "active", "name": "السجل التجاري قائم", "name_en": "Active"}, nil, "1010000012"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := WathqAnswer(tt.id, "Najd Trading Company", tt.status)["cr_info"].(map[string]any)
			if got := info["cr_status"]; !reflect.DeepEqual(got, tt.wantStatus) {
				t.Errorf("cr_status = %v, want %v", got, tt.wantStatus)
			}
			if got := info["cr_expiry_date"]; got != tt.wantExpiry {
				t.Errorf("cr_expiry_date = %v, want %v", got, tt.wantExpiry)
			}
			if got := info["cr_number"]; got != tt.wantCRNumber {
				t.Errorf("cr_number = %v, want %v", got, tt.wantCRNumber)
			}
			if info["cr_entity_no"] != tt.id || info["cr_name"] != "Najd Trading Company" {
				t.Errorf("the register is not the one asked for: %v", info)
			}
		})
	}
}
