package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// ProviderWathq is the provider key of the Saudi commercial register.
const ProviderWathq = "wathq"

// Wathq is a client of the Wathq commercial-registration info API:
// GET {base}/v4/commercialregistration/info/{id}, authenticated by an apiKey
// header, where id is a legacy CR number or a unified number (7…).
type Wathq struct {
	BaseURL string // e.g. https://api.wathq.sa
	APIKey  string
	Client  *http.Client
	// Clock tells today's date, against which expiry is judged (required).
	Clock domain.Clock
}

// RegistryRecord is what the register says of an entity.
type RegistryRecord struct {
	Found         bool
	Name          string
	CRNumber      string
	UnifiedNumber string
	// StatusID is the register's own status id (active, suspended, …), or
	// "not_found".
	StatusID    string
	ExpiryHijri string
	Status      domain.RegistrationStatus
	// Evidence is the register's answer as received.
	Evidence *domain.Evidence
}

type wathqInfo struct {
	CRInfo struct {
		Name          string          `json:"cr_name"`
		Number        json.RawMessage `json:"cr_number"`
		EntityNo      json.RawMessage `json:"cr_entity_no"`
		ExpiryDate    *string         `json:"cr_expiry_date"`
		Status        *wathqStatus    `json:"cr_status"`
		Cancellation  json.RawMessage `json:"cr_cancellation"`
		BusinessType  json.RawMessage `json:"cr_bus_type"`
		LocationRaw   json.RawMessage `json:"cr_location"`
		ActivitiesRaw json.RawMessage `json:"activities"`
	} `json:"cr_info"`
}

type wathqStatus struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	NameEn string `json:"name_en"`
}

// Lookup asks the register for number. A number the register does not know
// is a record with Found false (an answer, not a failure).
func (w *Wathq) Lookup(ctx context.Context, number string) (RegistryRecord, error) {
	u := strings.TrimSuffix(w.BaseURL, "/") + "/v4/commercialregistration/info/" + url.PathEscape(number)
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return RegistryRecord{}, &ProviderError{Provider: ProviderWathq, Status: "misconfigured", Err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("apiKey", w.APIKey)
	resp, body, ev, err := do(ctx, w.Client, ProviderWathq, req)
	if err != nil {
		return RegistryRecord{}, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return RegistryRecord{StatusID: "not_found", Status: domain.RegistrationInvalid, Evidence: ev}, nil
	case resp.StatusCode != http.StatusOK:
		return RegistryRecord{}, statusError(ProviderWathq, resp.StatusCode, body, ev)
	}
	var info wathqInfo
	if err := json.Unmarshal(body, &info); err != nil || info.CRInfo.Status == nil {
		return RegistryRecord{}, &ProviderError{Provider: ProviderWathq, Status: "bad_response", Err: fmt.Errorf("unreadable answer: %v", err), Evidence: ev}
	}
	rec := RegistryRecord{
		Evidence:      ev,
		Found:         true,
		Name:          strings.TrimSpace(info.CRInfo.Name),
		CRNumber:      jsonScalar(info.CRInfo.Number),
		UnifiedNumber: jsonScalar(info.CRInfo.EntityNo),
		StatusID:      strings.ToLower(strings.TrimSpace(info.CRInfo.Status.ID)),
	}
	if info.CRInfo.ExpiryDate != nil {
		rec.ExpiryHijri = *info.CRInfo.ExpiryDate
	}
	rec.Status = w.registrationStatus(rec)
	return rec, nil
}

// registrationStatus maps the register's answer: an active register is
// valid unless it carries an expiry date that has passed (registers issued
// before the 2025 Commercial Register Law may still have one); expired is
// expired; anything else (suspended, cancelled, struck off…) is invalid.
func (w *Wathq) registrationStatus(rec RegistryRecord) domain.RegistrationStatus {
	switch rec.StatusID {
	case "active":
		if rec.ExpiryHijri != "" {
			// An expiry that cannot be read, or a day beyond the Umm al-Qura
			// tables, leaves the register's own word (active) standing.
			exp, err := parseHijri(rec.ExpiryHijri)
			if today, terr := ummAlQuraDay(w.Clock.Now()); err == nil && terr == nil && exp.before(today) {
				return domain.RegistrationExpired
			}
		}
		return domain.RegistrationValid
	case "expired":
		return domain.RegistrationExpired
	default:
		return domain.RegistrationInvalid
	}
}

// jsonScalar renders a JSON number or string as text (Wathq sends numbers
// for CR numbers, which may come as strings elsewhere).
func jsonScalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
