package sim

import (
	"fmt"
	"strings"
)

// The register's states, as the legacy API's status.id names them (the
// current API gives a number, resolved through its status lookup).
const (
	RegisterActive    = "active"
	RegisterSuspended = "suspended"
	RegisterExpired   = "expired"
	RegisterCancelled = "cancelled"
)

// The Wathq API generations the simulator serves (checks.WathqAPIs).
const (
	WathqCurrent = "commercial-registration"
	WathqV4      = "v4"
	WathqV5      = "v5"
)

// registerStatuses are the current API's status lookup rows
// (GET /commercial-registration/lookup/status): {id, nameAr, nameEn}.
func registerStatuses() []map[string]any {
	var out []map[string]any
	for i, s := range []string{RegisterActive, RegisterSuspended, RegisterExpired, RegisterCancelled} {
		ar, en := registerStatusNames(s)
		out = append(out, map[string]any{"id": i + 1, "nameAr": ar, "nameEn": en})
	}
	return out
}

// WathqStatusLookup is the current API's status lookup.
func WathqStatusLookup() []map[string]any { return registerStatuses() }

func registerStatusID(status string) int {
	for _, row := range registerStatuses() {
		if _, en := registerStatusNames(status); row["nameEn"] == en {
			return row["id"].(int)
		}
	}
	return 0
}

// WathqAnswer is Wathq's fullinfo answer, in the shape of generation api,
// for the register of name in state status (RegisterActive, …): one body
// for the simulator's Wathq and the seed's in-process one, so the demo's
// evidence reads as a live lookup does. The fields are those providers.md
// gives for each generation; only an expired register still carries an
// expiry date (abolished in 2025), and only the legacy API has one.
func WathqAnswer(api, id, name, status string) map[string]any {
	return WathqRegisterAnswer(api, id, Registration{Name: name, Status: status})
}

// WathqRegisterAnswer is WathqAnswer for a register with its parties.
func WathqRegisterAnswer(api, id string, reg Registration) map[string]any {
	if api == WathqCurrent {
		a := currentAnswer(id, reg.Name, reg.Status)
		owners, managers := currentParties(reg.Parties)
		a["parties"] = owners
		a["management"].(map[string]any)["managers"] = managers
		return a
	}
	a := legacyAnswer(id, reg.Name, reg.Status)
	a["parties"] = legacyParties(reg.Parties)
	return a
}

// legacyAnswer: v4 and v5 fullinfo, flat camelCase fields.
func legacyAnswer(id, name, status string) map[string]any {
	var expiry any
	if status == RegisterExpired {
		expiry = "1440/01/01"
	}
	ar, en := registerStatusNames(status)
	return map[string]any{
		"crName":         name,
		"crNumber":       crNumber(id),
		"crEntityNumber": id,
		"crMainNumber":   nil,
		"issueDate":      "1440/10/29",
		"expiryDate":     expiry,
		"businessType":   map[string]any{"id": "201", "name": "شركة ذات مسئولية محدودة"},
		"status":         map[string]any{"id": status, "name": ar, "nameEn": en},
		"cancellation":   nil,
		"location":       map[string]any{"id": "1010", "name": "الرياض"},
		"company":        map[string]any{"period": "99", "startDate": "1440/10/29", "endDate": nil},
		"activities": map[string]any{"description": "البيع بالجملة للمواد الغذائية",
			"isic": []any{map[string]any{"id": "463012", "name": "البيع بالجملة للمواد الغذائية", "nameEn": "Wholesale of food"}}},
		"parties": []any{},
	}
}

// currentAnswer: GET /commercial-registration/fullinfo/{crNationalNumber}.
func currentAnswer(id, name, status string) map[string]any {
	ar, _ := registerStatusNames(status)
	return map[string]any{
		"crNationalNumber":     id,
		"crNumber":             crNumber(id),
		"versionNo":            1,
		"name":                 name,
		"nameLangId":           1,
		"crCapital":            100000,
		"isMain":               true,
		"issueDateGregorian":   "2019-07-02",
		"issueDateHijri":       "1440/10/29",
		"mainCrNationalNumber": nil,
		"inLiquidationProcess": false,
		"hasEcommerce":         false,
		"headquarterCityName":  "الرياض",
		"isLicenseBased":       false,
		"entityType":           map[string]any{"id": 201, "name": "شركة ذات مسؤولية محدودة", "formId": 1, "formName": "شركة ذات مسؤولية محدودة", "characters": []any{}},
		"status":               map[string]any{"id": registerStatusID(status), "name": ar},
		"activities":           []any{map[string]any{"id": "463012", "name": "البيع بالجملة للمواد الغذائية"}},
		"parties":              []any{},
		"management":           map[string]any{"structureId": 1, "structureName": "مدير", "managers": []any{}},
	}
}

// WathqError is Wathq's error body: {"code": "<status>.<n>.<n>", "message"}.
func WathqError(code, message string) map[string]any {
	return map[string]any{"code": code, "message": message}
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
		return "السجل التجاري مشطوب", "Cancelled"
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
