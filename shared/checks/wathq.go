package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/evs-kyb/evs/shared/domain"
)

// ProviderWathq is the provider key of the Saudi commercial register.
const ProviderWathq = "wathq"

// The Wathq API generations a stage may subscribe to (WATHQ_API): they are
// not interchangeable, so which one is a setting.
const (
	// WathqCurrent is the newer API, GET {base}/commercial-registration/
	// fullinfo/{crNationalNumber}?language=ar, its status an id resolved
	// through GET {base}/commercial-registration/lookup/status.
	WathqCurrent = "commercial-registration"
	// WathqV4 and WathqV5 are the legacy API, GET {base}/v4|v5/
	// commercialregistration/fullinfo/{id}: flat camelCase fields.
	WathqV4 = "v4"
	WathqV5 = "v5"
)

// WathqAPIs lists the generations WATHQ_API may name.
func WathqAPIs() []string { return []string{WathqCurrent, WathqV4, WathqV5} }

// Wathq is a client of the Ministry of Commerce's Wathq commercial
// registration API, authenticated by an apiKey header, asked for a
// register by its unified number (7…) or, in the legacy API, a CR number.
type Wathq struct {
	BaseURL string // e.g. https://api.wathq.sa
	APIKey  string
	// API is the generation asked (WathqCurrent when empty).
	API    string
	Client *http.Client
	// Clock tells today's date, against which expiry is judged (required).
	Clock domain.Clock

	// lookups caches the current API's lookups (status, managerPositions,
	// nationalities), each read once.
	lookupsMu sync.Mutex
	lookups   map[string]map[int]lookupRow
}

// RegistryRecord is what the register says of an entity.
type RegistryRecord struct {
	Found bool
	// Name is the register's legal name (Arabic); NameEn its Latin form,
	// where the register gives one.
	Name          string
	NameEn        string
	CRNumber      string
	UnifiedNumber string
	// StatusID is the register's state as the service reads it (active,
	// suspended, expired, cancelled…: the status's English name, lower
	// case), or "not_found".
	StatusID    string
	ExpiryHijri string
	Status      domain.RegistrationStatus
	// Facts the register gives of the business, where it gives them.
	IssueDate  string // as the register writes it (Hijri in the legacy API)
	City       string
	LegalForm  string
	Activities []RegisterActivity
	// Parties are the register's owners, partners and managers (source
	// register, current; wathq_parties.go).
	Parties []domain.Party
	// Evidence is the register's answer as received.
	Evidence *domain.Evidence
}

// RegisterActivity is one business activity (an ISIC code and its name).
type RegisterActivity struct {
	ID, Name string
}

func (w *Wathq) api() string { return firstNonEmpty(w.API, WathqCurrent) }

// Lookup asks the register for number. A number the register does not know
// is a record with Found false (an answer, not a failure); a fault of the
// provider (a bad key, a rate limit, a 5xx, a timeout, an unreadable
// answer) is a *ProviderError: the check fails.
func (w *Wathq) Lookup(ctx context.Context, number string) (RegistryRecord, error) {
	base := strings.TrimSuffix(w.BaseURL, "/")
	var u string
	switch api := w.api(); api {
	case WathqCurrent:
		u = base + "/commercial-registration/fullinfo/" + url.PathEscape(number) + "?language=ar"
	case WathqV4, WathqV5:
		u = base + "/" + api + "/commercialregistration/fullinfo/" + url.PathEscape(number)
	default:
		return RegistryRecord{}, &ProviderError{Provider: ProviderWathq, Status: "misconfigured", Err: fmt.Errorf("no Wathq API %q", api)}
	}
	resp, body, ev, err := w.get(ctx, u)
	if err != nil {
		return RegistryRecord{}, err
	}
	if resp.StatusCode != http.StatusOK {
		if wathqNotFound(resp.StatusCode, body) {
			return RegistryRecord{StatusID: "not_found", Status: domain.RegistrationInvalid, Evidence: ev}, nil
		}
		return RegistryRecord{}, statusError(ProviderWathq, resp.StatusCode, body, ev)
	}
	var rec RegistryRecord
	if w.api() == WathqCurrent {
		rec, err = w.readCurrent(ctx, body)
	} else {
		rec, err = readLegacy(body)
	}
	if err != nil {
		return RegistryRecord{}, &ProviderError{Provider: ProviderWathq, Status: "bad_response", Err: err, Evidence: ev}
	}
	rec.Evidence, rec.Found = ev, true
	rec.Status = w.registrationStatus(rec)
	return rec, nil
}

// get asks Wathq for u with the key.
func (w *Wathq) get(ctx context.Context, u string) (*http.Response, []byte, *domain.Evidence, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, nil, &ProviderError{Provider: ProviderWathq, Status: "misconfigured", Err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("apiKey", w.APIKey)
	return do(ctx, w.Client, ProviderWathq, req)
}

// registrationStatus maps the register's answer: an active register is
// valid unless it carries an expiry date that has passed (registers issued
// before the 2025 Commercial Register Law may still have one); expired is
// expired; anything else (suspended, cancelled, struck off, deleted…) is
// invalid.
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

// registerState is the service's reading of a status's English name (or,
// wanting one, its id): lower case, trimmed; "struck off" and "deleted"
// stay themselves (invalid), "canceled" is "cancelled".
func registerState(nameEn, id string) string {
	s := strings.ToLower(strings.TrimSpace(firstNonEmpty(nameEn, id)))
	if s == "canceled" {
		return "cancelled"
	}
	return s
}

// jsonScalar renders a JSON number or string as text (Wathq sends numbers
// for CR numbers, which may come as strings elsewhere).
func jsonScalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
