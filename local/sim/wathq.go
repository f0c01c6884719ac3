package sim

import (
	"fmt"
	"strings"
)

// The register's states as Wathq's cr_status.id names them.
const (
	RegisterActive    = "active"
	RegisterSuspended = "suspended"
	RegisterExpired   = "expired"
	RegisterCancelled = "cancelled"
)

// WathqAnswer is Wathq's answer to GET /v4/commercialregistration/info/{id}
// for the register of name in state status (RegisterActive, …): one body
// for the simulator's Wathq and the seed's in-process one, so the demo's
// evidence reads as a live lookup does. Only an expired register still
// carries an expiry date (abolished in 2025).
func WathqAnswer(id, name, status string) map[string]any {
	var expiry any
	if status == RegisterExpired {
		expiry = "1440/01/01"
	}
	ar, en := registerStatusNames(status)
	return map[string]any{"cr_info": map[string]any{
		"cr_name":         name,
		"cr_number":       crNumber(id),
		"cr_entity_no":    id,
		"cr_issue_date":   "1440/10/29",
		"cr_expiry_date":  expiry,
		"cr_main_number":  nil,
		"cr_bus_type":     map[string]any{"id": "201", "name": "شركة ذات مسئولية محدودة"},
		"cr_status":       map[string]any{"id": status, "name": ar, "name_en": en},
		"cr_cancellation": nil,
		"cr_location":     map[string]any{"id": "1010", "name": "الرياض"},
		"activities":      map[string]any{"isic": []any{map[string]any{"id": "463012", "name": "البيع بالجملة"}}},
	}}
}

// registerStatusNames is a state's Arabic and English names, as Wathq
// gives them beside its id.
func registerStatusNames(status string) (ar, en string) {
	switch status {
	case RegisterActive:
		return "السجل التجاري قائم", "Active"
	case RegisterSuspended:
		return "السجل التجاري موقوف", "Suspended"
	case RegisterExpired:
		return "السجل التجاري منتهي", "Expired"
	case RegisterCancelled:
		return "السجل التجاري مشطوب", "Struck off"
	}
	return status, status
}

// crNumber is the legacy CR number the register shows beside the unified
// number: Riyadh's prefix and the unified number's last six digits.
func crNumber(id string) string {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
	if len(digits) > 6 {
		digits = digits[len(digits)-6:]
	}
	return "1010" + fmt.Sprintf("%06s", digits)
}
