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

const wathqActive = `{"cr_info":{"cr_name":"شركة النور للتجارة","cr_number":1010123456,"cr_entity_no":7001234567,
"cr_issue_date":"1440/10/29","cr_expiry_date":null,"cr_bus_type":{"id":"101","name":"x"},
"cr_status":{"id":"active","name":"السجل التجاري قائم","name_en":"Active"},"cr_cancellation":null,"cr_location":{"id":"1010","name":"الرياض"}}}`

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
	tests := []struct {
		name       string
		status     int
		body       string
		wantStatus domain.RegistrationStatus
		wantID     string
		wantErr    string // ProviderError.Status
	}{
		{"active", 200, wathqActive, domain.RegistrationValid, "active", ""},
		{"active but past a legacy expiry date", 200, strings.Replace(wathqActive, `"cr_expiry_date":null`, `"cr_expiry_date":"1447/01/01"`, 1), domain.RegistrationExpired, "active", ""},
		{"active with a future expiry date", 200, strings.Replace(wathqActive, `"cr_expiry_date":null`, `"cr_expiry_date":"1450/01/01"`, 1), domain.RegistrationValid, "active", ""},
		{"suspended", 200, strings.Replace(wathqActive, `"id":"active"`, `"id":"suspended"`, 1), domain.RegistrationInvalid, "suspended", ""},
		{"expired", 200, strings.Replace(wathqActive, `"id":"active"`, `"id":"expired"`, 1), domain.RegistrationExpired, "expired", ""},
		{"not found", 404, `{"code":"404","message":"not found"}`, domain.RegistrationInvalid, "not_found", ""},
		{"provider fault", 503, `busy`, "", "", "503"},
		{"garbage", 200, `<html>`, "", "", "bad_response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v4/commercialregistration/info/7001234567" || r.Header.Get("apiKey") != "secret-key" {
					w.WriteHeader(401)
					return
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			w := &Wathq{BaseURL: srv.URL, APIKey: "secret-key", Clock: domain.FixedClock(now)}
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
			if rec.Found && (rec.Name != "شركة النور للتجارة" || rec.UnifiedNumber != "7001234567" || rec.CRNumber != "1010123456") {
				t.Errorf("record = %+v", rec)
			}
		})
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
		{"weak results", `[{"id":"a","caption":"A","schema":"Company","score":0.4,"match":false}]`, domain.SanctionsClear, 0},
		{"near miss", `[{"id":"a","caption":"A","schema":"Company","score":0.67,"match":false}]`, domain.SanctionsNeedsReview, 0},
		{"match below the hit score", `[{"id":"a","caption":"A","schema":"Company","score":0.8,"match":true}]`, domain.SanctionsNeedsReview, 1},
		{"strong match", `[{"id":"a","caption":"A","schema":"Company","score":0.97,"match":true,"datasets":["us_ofac_sdn"]},{"id":"b","caption":"B","schema":"Company","score":0.75,"match":true}]`, domain.SanctionsHit, 2},
		// yente sets match by the threshold sent, the band's low edge: the
		// service's own line decides.
		{"yente's match flag at the band's edge", `[{"id":"a","caption":"A","schema":"Company","score":0.66,"match":true}]`, domain.SanctionsNeedsReview, 0},
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
			res, err := y.Screen(context.Background(), ScreeningQuery{Reference: "evs-1-2", Name: "Al Noor", Jurisdiction: "SA", RegistrationNumber: "7001234567", ExcludeEntityIDs: []string{"NK-dismissed"}})
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
