package checks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Fixtures written from ../shared/providers.md: the legacy fullinfo answer
// (flat camelCase fields) and the current one (crNationalNumber, name,
// status{id:int}), and the status lookup that names the current one's ids.
const wathqLegacyActive = `{"crName":"شركة النور للتجارة","crNumber":1010123456,"crEntityNumber":7001234567,"crMainNumber":null,
"issueDate":"1391/10/19","expiryDate":null,"businessType":{"id":"101","name":"شركة ذات مسئولية محدودة"},
"status":{"id":"active","name":"السجل التجاري قائم","nameEn":"Active"},"cancellation":null,"location":{"id":"1010","name":"الرياض"},
"company":{"period":"99","startDate":"1391/10/19","endDate":null},
"activities":{"description":"تجارة","isic":[{"id":"463012","name":"البيع بالجملة","nameEn":"Wholesale"}]},
"parties":[{"name":"محمد علي","birthDate":"1980/01/01","sharesCount":50,"gross":50000,"identity":{"id":"1000000001","type":"National_ID"},"relation":{"id":"1","name":"شريك"},"nationality":{"id":"1","name":"سعودي"}}],
"capital":{"paidAmount":100000,"subscribedAmount":100000,"announcedAmount":100000,"share":{"sharePrice":1000,"sharesCount":100}}}`

const wathqCurrentActive = `{"crNationalNumber":"7001234567","crNumber":"1010123456","versionNo":3,"name":"شركة النور للتجارة","nameLangId":1,
"crCapital":100000,"companyDuration":99,"isMain":true,"issueDateGregorian":"2019-07-02","issueDateHijri":"1440/10/29",
"mainCrNationalNumber":null,"inLiquidationProcess":false,"hasEcommerce":false,"headquarterCityName":"الرياض","isLicenseBased":false,
"entityType":{"id":201,"name":"شركة ذات مسؤولية محدودة","formId":1,"formName":"ذات مسؤولية محدودة","characters":[]},
"status":{"id":1,"name":"نشط"},"confirmationDate":{"gregorian":"2026-03-01","hijri":"1447/09/12"},
"activities":[{"id":"463012","name":"البيع بالجملة"}],
"parties":[{"name":"السيد محمد علي","typeId":1,"typeName":"سعودي","identity":{"id":"1000000001","typeId":1,"typeName":"National_ID"},
"partnership":[{"id":1,"name":"شريك"}],"partnerShare":{"cashContributionCount":50,"inKindContributionCount":0,"totalContributionCount":50},
"nationality":{"id":"1","name":"سعودي"},"crNumber":null}],
"management":{"structureId":1,"structureName":"مدير","managers":[{"name":"محمد علي","typeId":1,"typeName":"سعودي","isLicensed":true,
"identity":{"id":"1000000001","typeId":1,"typeName":"National_ID"},"nationality":{"id":"1","name":"سعودي"},"positions":[{"id":1,"name":"مدير"}]}]}}`

const wathqStatusLookup = `[{"id":1,"nameAr":"نشط","nameEn":"Active"},{"id":2,"nameAr":"موقوف","nameEn":"Suspended"},
{"id":3,"nameAr":"منتهي","nameEn":"Expired"},{"id":4,"nameAr":"مشطوب","nameEn":"Deleted"}]`

// TestWathqExpiry pins when a legacy expiry date has passed: the day after
// it, by the Umm al-Qura calendar, in Riyadh.
func TestWathqExpiry(t *testing.T) {
	tests := []struct {
		name   string
		expiry string
		now    time.Time
		want   domain.RegistrationStatus
	}{
		{"on the expiry day", "1446/08/29", time.Date(2025, 2, 28, 20, 59, 0, 0, time.UTC), domain.RegistrationValid},
		{"from midnight in Riyadh", "1446/08/29", time.Date(2025, 2, 28, 21, 0, 0, 0, time.UTC), domain.RegistrationExpired},
		// The tabular calendar read 7 July 2024 as 1445/12/30.
		{"Umm al-Qura, not tabular", "1445/12/30", time.Date(2024, 7, 7, 12, 0, 0, 0, time.UTC), domain.RegistrationExpired},
		{"unreadable expiry", "29/12/1445", time.Date(2024, 7, 7, 12, 0, 0, 0, time.UTC), domain.RegistrationValid},
		{"beyond the calendar's tables", "1446/01/01", time.Date(2077, 11, 17, 12, 0, 0, 0, time.UTC), domain.RegistrationValid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Wathq{Clock: domain.FixedClock(tt.now)}
			if got := w.registrationStatus(RegistryRecord{StatusID: "active", ExpiryHijri: tt.expiry}); got != tt.want {
				t.Errorf("status = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestWathqLookup(t *testing.T) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC) // 1448/06/10 (Umm al-Qura, in Riyadh)
	legacy, current := wathqLegacyActive, wathqCurrentActive
	tests := []struct {
		name       string
		api        string
		status     int
		body       string
		wantStatus domain.RegistrationStatus
		wantID     string
		wantErr    string // ProviderError.Status
	}{
		{"legacy: active", WathqV4, 200, legacy, domain.RegistrationValid, "active", ""},
		{"legacy v5: active", WathqV5, 200, legacy, domain.RegistrationValid, "active", ""},
		{"legacy: active but past an expiry date", WathqV4, 200, strings.Replace(legacy, `"expiryDate":null`, `"expiryDate":"1447/01/01"`, 1), domain.RegistrationExpired, "active", ""},
		{"legacy: active with a future expiry date", WathqV4, 200, strings.Replace(legacy, `"expiryDate":null`, `"expiryDate":"1450/01/01"`, 1), domain.RegistrationValid, "active", ""},
		{"legacy: suspended", WathqV4, 200, strings.Replace(legacy, `"nameEn":"Active"`, `"nameEn":"Suspended"`, 1), domain.RegistrationInvalid, "suspended", ""},
		{"legacy: expired", WathqV4, 200, strings.Replace(legacy, `"nameEn":"Active"`, `"nameEn":"Expired"`, 1), domain.RegistrationExpired, "expired", ""},
		{"legacy: no status is no answer", WathqV4, 200, `{"crName":"x"}`, "", "", "bad_response"},
		{"current: active through the lookup", WathqCurrent, 200, current, domain.RegistrationValid, "active", ""},
		{"current: suspended through the lookup", WathqCurrent, 200, strings.Replace(current, `"status":{"id":1,`, `"status":{"id":2,`, 1), domain.RegistrationInvalid, "suspended", ""},
		{"current: expired through the lookup", WathqCurrent, 200, strings.Replace(current, `"status":{"id":1,`, `"status":{"id":3,`, 1), domain.RegistrationExpired, "expired", ""},
		{"current: deleted through the lookup", WathqCurrent, 200, strings.Replace(current, `"status":{"id":1,`, `"status":{"id":4,`, 1), domain.RegistrationInvalid, "deleted", ""},
		{"current: a status the lookup lacks", WathqCurrent, 200, strings.Replace(current, `"status":{"id":1,`, `"status":{"id":9,`, 1), "", "", "bad_response"},
		{"current: every optional field absent", WathqCurrent, 200, `{"status":{"id":1}}`, domain.RegistrationValid, "active", ""},
		{"not found (404.2.1)", WathqCurrent, 404, `{"code":"404.2.1","message":"Commercial registration not found"}`, domain.RegistrationInvalid, "not_found", ""},
		{"legacy not found (404.2.1)", WathqV4, 404, `{"code":"404.2.1","message":"Commercial registration not found"}`, domain.RegistrationInvalid, "not_found", ""},
		{"a bad key (401.1.1)", WathqCurrent, 401, `{"code":"401.1.1","message":"Invalid apiKey"}`, "", "", "401"},
		{"rate limited (429.1.1)", WathqCurrent, 429, `{"code":"429.1.1","message":"Too many requests"}`, "", "", "429"},
		{"a bad request (400.2.1)", WathqV4, 400, `{"code":"400.2.1","message":"Bad request"}`, "", "", "400"},
		{"provider fault", WathqCurrent, 503, `busy`, "", "", "503"},
		{"garbage", WathqCurrent, 200, `<html>`, "", "", "bad_response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := map[string]string{WathqCurrent: "/commercial-registration/fullinfo/7001234567",
				WathqV4: "/v4/commercialregistration/fullinfo/7001234567", WathqV5: "/v5/commercialregistration/fullinfo/7001234567"}[tt.api]
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("apiKey") != "secret-key" {
					w.WriteHeader(401)
					return
				}
				switch {
				case tt.api == WathqCurrent && r.URL.Path == "/commercial-registration/lookup/status":
					io.WriteString(w, wathqStatusLookup)
				case r.URL.Path == path && (tt.api != WathqCurrent || r.URL.Query().Get("language") == "ar"):
					w.WriteHeader(tt.status)
					io.WriteString(w, tt.body)
				default:
					w.WriteHeader(400)
					io.WriteString(w, `{"code":"400.1.1","message":"unexpected request `+r.URL.String()+`"}`)
				}
			}))
			defer srv.Close()
			w := &Wathq{BaseURL: srv.URL, APIKey: "secret-key", API: tt.api, Clock: domain.FixedClock(now)}
			rec, err := w.Lookup(context.Background(), "7001234567")
			if tt.wantErr != "" {
				var pe *ProviderError
				if !errors.As(err, &pe) || pe.Status != tt.wantErr {
					t.Fatalf("err = %v, want provider status %s", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "secret-key") {
					t.Error("the error carries the API key")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != tt.wantStatus || rec.StatusID != tt.wantID {
				t.Errorf("got %s (%s), want %s (%s)", rec.Status, rec.StatusID, tt.wantStatus, tt.wantID)
			}
			if rec.Found && rec.Name != "" && (rec.Name != "شركة النور للتجارة" || rec.UnifiedNumber != "7001234567" || rec.CRNumber != "1010123456" ||
				rec.City != "الرياض" || len(rec.Activities) != 1 || rec.Activities[0].ID != "463012" || rec.LegalForm == "" || rec.IssueDate == "") {
				t.Errorf("record = %+v", rec)
			}
		})
	}
}

// TestWathqStatusLookupIsReadOnce: the current API's lookup is read once per
// client, not with every register.
func TestWathqStatusLookupIsReadOnce(t *testing.T) {
	lookups := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/commercial-registration/lookup/status" {
			lookups++
			io.WriteString(w, wathqStatusLookup)
			return
		}
		io.WriteString(w, wathqCurrentActive)
	}))
	defer srv.Close()
	w := &Wathq{BaseURL: srv.URL, Clock: domain.SystemClock}
	for range 3 {
		if _, err := w.Lookup(context.Background(), "7001234567"); err != nil {
			t.Fatal(err)
		}
	}
	if lookups != 1 {
		t.Errorf("the status lookup was read %d times, want once", lookups)
	}
}

func TestWathqTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := (&Wathq{BaseURL: srv.URL}).Lookup(ctx, "7001234567")
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != "timeout" {
		t.Fatalf("err = %v, want a timeout", err)
	}
}

func yenteServer(t *testing.T, results string, check func(r *http.Request, body map[string]any)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if check != nil {
			check(r, body)
		}
		queries := body["queries"].(map[string]any)
		resp := map[string]any{}
		for ref := range queries {
			var rs []any
			json.Unmarshal([]byte(results), &rs)
			resp[ref] = map[string]any{"status": 200, "results": rs, "total": map[string]any{"value": len(rs), "relation": "eq"}, "query": map[string]any{}}
		}
		json.NewEncoder(w).Encode(map[string]any{"responses": resp, "limit": 5})
	}))
}

func TestYenteScreen(t *testing.T) {
	tests := []struct {
		name    string
		results string
		want    domain.SanctionsStatus
		matches int
	}{
		{"no results", `[]`, domain.SanctionsClear, 0},
		{"weak results", `[{"id":"a","caption":"A","schema":"Company","properties":{"topics":["sanction"]},"score":0.4,"match":false}]`, domain.SanctionsClear, 0},
		{"near miss", `[{"id":"a","caption":"A","schema":"Company","properties":{"topics":["sanction"]},"score":0.67,"match":false}]`, domain.SanctionsNeedsReview, 0},
		{"match below the hit score", `[{"id":"a","caption":"A","schema":"Company","properties":{"topics":["sanction"]},"score":0.8,"match":true}]`, domain.SanctionsNeedsReview, 1},
		{"strong match", `[{"id":"a","caption":"A","schema":"Company","properties":{"topics":["sanction"]},"score":0.97,"match":true,"datasets":["us_ofac_sdn"]},{"id":"b","caption":"B","schema":"Company","properties":{"topics":["sanction"]},"score":0.75,"match":true}]`, domain.SanctionsHit, 2},
		// yente sets match by the threshold sent, the band's low edge: the
		// service's own line decides.
		{"yente's match flag at the band's edge", `[{"id":"a","caption":"A","schema":"Company","properties":{"topics":["sanction"]},"score":0.66,"match":true}]`, domain.SanctionsNeedsReview, 0},
		// Each match classified by its topics: sanctions_status follows the
		// sanction class alone; a PEP or other-risk match is a match to
		// judge that leaves it clear.
		{"a PEP alone", `[{"id":"p","caption":"P","schema":"Person","properties":{"topics":["role.pep"]},"score":0.97}]`, domain.SanctionsClear, 1},
		{"a relative of a PEP", `[{"id":"r","caption":"R","schema":"Person","properties":{"topics":["role.rca"]},"score":0.95}]`, domain.SanctionsClear, 1},
		{"debarred", `[{"id":"d","caption":"D","schema":"Company","properties":{"topics":["debarment"]},"score":0.95}]`, domain.SanctionsClear, 1},
		{"owned or controlled by a designated party", `[{"id":"c","caption":"C","schema":"Company","properties":{"topics":["sanction.control"]},"score":0.95}]`, domain.SanctionsHit, 1},
		{"a sanctioned PEP is a sanction", `[{"id":"s","caption":"S","schema":"Person","properties":{"topics":["role.pep","sanction"]},"score":0.95}]`, domain.SanctionsHit, 1},
		{"a PEP near miss is no review", `[{"id":"p","caption":"P","schema":"Person","properties":{"topics":["role.pep"]},"score":0.67}]`, domain.SanctionsClear, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := yenteServer(t, tt.results, func(r *http.Request, body map[string]any) {
				q := r.URL.Query()
				if r.URL.Path != "/match/sanctions" || q.Get("threshold") != "0.65" || q.Get("algorithm") != "logic-v2" || r.Header.Get("Authorization") != "ApiKey k" {
					t.Errorf("request %s %v %v", r.URL.Path, q, r.Header)
				}
				if got := q["exclude_entity_ids"]; len(got) != 1 || got[0] != "NK-dismissed" {
					t.Errorf("exclusions = %v", got)
				}
				qs := body["queries"].(map[string]any)["evs-1-2"].(map[string]any)
				props := qs["properties"].(map[string]any)
				if qs["schema"] != "Company" || props["jurisdiction"].([]any)[0] != "sa" || props["registrationNumber"].([]any)[0] != "7001234567" || props["name"].([]any)[0] != "Al Noor" {
					t.Errorf("query = %v", qs)
				}
			})
			defer srv.Close()
			y := &Yente{BaseURL: srv.URL, APIKey: "k", Dataset: "sanctions"}
			res, err := y.Screen(context.Background(), ScreeningQuery{Reference: "evs-1-2", Names: []ScreenedName{{Name: "Al Noor", Source: domain.NameDeclared}}, Jurisdiction: "SA", RegistrationNumber: "7001234567", ExcludeEntityIDs: []string{"NK-dismissed"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.want || len(res.Matches) != tt.matches || res.Matched != (tt.matches > 0) {
				t.Errorf("status %s with %d matches, want %s with %d", res.Status, len(res.Matches), tt.want, tt.matches)
			}
			m := Sanitize(domain.CheckOrganizationScreening, ScreeningResultMap(res))
			if m["matches_count"] != tt.matches || m["status"] != string(tt.want) || m["threshold"] != 0.7 || m["dataset"] != "sanctions" {
				t.Errorf("result = %v", m)
			}
		})
	}
}

func TestSanitizeDropsWhatIsNotAllowed(t *testing.T) {
	in := map[string]any{"status": "clear", "matched": false, "matches_count": 0, "api_key": "k", "raw": "{}",
		"matches": []any{map[string]any{"id": "x", "score": 0.9, "properties": map[string]any{"secret": 1}}}}
	out := Sanitize(domain.CheckOrganizationScreening, in)
	if _, ok := out["api_key"]; ok {
		t.Error("api_key kept")
	}
	if _, ok := out["raw"]; ok {
		t.Error("raw kept")
	}
	if m := out["matches"].([]any)[0].(map[string]any); m["properties"] != nil || m["id"] != "x" {
		t.Errorf("match = %v", m)
	}
	if got := Sanitize(domain.CheckRegistryLookup, map[string]any{"status": "active", "matches_count": 3}); len(got) != 1 {
		t.Errorf("registry result = %v", got)
	}
}

func TestScreeningReference(t *testing.T) {
	ref := ScreeningReference(12, 3456)
	if a, c, ok := ParseScreeningReference(ref); !ok || a != 12 || c != 3456 {
		t.Errorf("round trip %s = %d %d %v", ref, a, c, ok)
	}
	for _, bad := range []string{"", "evs-1", "evs-0-1", "evs-1-2-3", "evs-01-2", "xyz-1-2", "evs--1-2"} {
		if _, _, ok := ParseScreeningReference(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
