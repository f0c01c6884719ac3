package api

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

var countries = country.ISO()

func TestParseListQuery(t *testing.T) {
	tests := []struct {
		query       string
		page, per   int
		country     string
		regNumber   string
		since       string
		errorFields []string
	}{
		{query: "", page: 1, per: 50},
		{query: "page=3&per_page=20", page: 3, per: 20},
		{query: "per_page=500", page: 1, per: 200},
		{query: "per_page=200", page: 1, per: 200},
		{query: "per_page=abc", page: 1, per: 50},
		{query: "per_page=0", page: 1, per: 50},
		{query: "per_page=-5", page: 1, per: 50},
		{query: "per_page=2.5", page: 1, per: 50},
		{query: "page=0", page: 1, per: 50},
		{query: "page=-2", page: 1, per: 50},
		{query: "page=x", page: 1, per: 50},
		{query: "country_code=sa", page: 1, per: 50, country: "SA"},
		{query: "country_code=Sa", page: 1, per: 50, country: "SA"},
		{query: "country_code=XX", errorFields: []string{"country_code"}},
		{query: "registration_number=7001234567", page: 1, per: 50, regNumber: "7001234567"},
		{query: "updated_since=2026-01-31T09:30:00Z", page: 1, per: 50, since: "2026-01-31T09:30:00Z"},
		{query: "updated_since=2026-01-31T12:30:00%2B03:00", page: 1, per: 50, since: "2026-01-31T09:30:00Z"},
		{query: "updated_since=2026-01-31", page: 1, per: 50, since: "2026-01-31T00:00:00Z"},
		{query: "updated_since=yesterday", errorFields: []string{"updated_since"}},
		{query: "updated_since=2026-01-31T09:30:00", errorFields: []string{"updated_since"}},
		{query: "updated_since=bad&country_code=XX", errorFields: []string{"country_code", "updated_since"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			v, _ := url.ParseQuery(tt.query)
			q, err := parseListQuery(v, countries)
			if len(tt.errorFields) > 0 {
				fields := domain.ErrorFields(err)
				if domain.ErrorCode(err) != domain.ECodeInvalid || len(fields) != len(tt.errorFields) {
					t.Fatalf("err = %v, want validation errors on %v", err, tt.errorFields)
				}
				for _, f := range tt.errorFields {
					if len(fields[f]) != 1 {
						t.Errorf("no message for %s: %v", f, fields)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q.page != tt.page || q.perPage != tt.per || q.filter.CountryCode != tt.country || q.filter.RegistrationNumber != tt.regNumber {
				t.Errorf("got page %d per %d country %q reg %q", q.page, q.perPage, q.filter.CountryCode, q.filter.RegistrationNumber)
			}
			if tt.since != "" && (q.filter.UpdatedSince == nil || q.filter.UpdatedSince.Format(time.RFC3339) != tt.since) {
				t.Errorf("updated_since = %v, want %s", q.filter.UpdatedSince, tt.since)
			}
		})
	}
}

func TestUnknownCountryMessage(t *testing.T) {
	_, err := parseListQuery(url.Values{"country_code": {"zz"}}, countries)
	if got := domain.ErrorFields(err)["country_code"]; len(got) != 1 || got[0] != `Country "zz" is not a country the service knows` {
		t.Errorf("message = %v", got)
	}
}

func TestLinkHeader(t *testing.T) {
	base := "https://api.example.com/prod/api/v1/entities"
	tests := []struct {
		name       string
		page, per  int
		totalPages int
		filters    url.Values
		cursor     string
		want       map[string]string // rel -> page
	}{
		{name: "only page", page: 1, per: 50, totalPages: 1, want: map[string]string{}},
		{name: "empty account", page: 1, per: 50, totalPages: 0, want: map[string]string{}},
		{name: "first of many", page: 1, per: 50, totalPages: 4, want: map[string]string{"next": "2", "last": "4"}},
		{name: "middle", page: 2, per: 50, totalPages: 4, want: map[string]string{"first": "1", "prev": "1", "next": "3", "last": "4"}},
		{name: "last", page: 4, per: 50, totalPages: 4, want: map[string]string{"first": "1", "prev": "3"}},
		{name: "past the end", page: 9, per: 50, totalPages: 4, want: map[string]string{"first": "1", "prev": "4"}},
		{name: "filters carried", page: 1, per: 10, totalPages: 2, filters: url.Values{"country_code": {"sa"}, "updated_since": {"2026-01-01T00:00:00Z"}}, want: map[string]string{"next": "2", "last": "2"}},
		{name: "cursor on next alone", page: 2, per: 10, totalPages: 4, filters: url.Values{"updated_since": {"2026-01-01T00:00:00Z"}}, cursor: "dzF8Mw", want: map[string]string{"first": "1", "prev": "1", "next": "3", "last": "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := listQuery{page: tt.page, perPage: tt.per, filterParams: tt.filters}
			h := linkHeader(base, q, tt.totalPages, tt.cursor)
			got := map[string]string{}
			for _, part := range strings.Split(h, ", ") {
				if part == "" {
					continue
				}
				u, rel, ok := strings.Cut(part, ">; rel=")
				if !ok || !strings.HasPrefix(u, "<"+base+"?") {
					t.Fatalf("malformed link %q", part)
				}
				parsed, _ := url.Parse(strings.TrimPrefix(u, "<"))
				qv := parsed.Query()
				if qv.Get("per_page") != itoa(tt.per) {
					t.Errorf("%s: per_page = %q", rel, qv.Get("per_page"))
				}
				for k := range tt.filters {
					if qv.Get(k) != tt.filters.Get(k) {
						t.Errorf("%s: filter %s = %q, want %q", rel, k, qv.Get(k), tt.filters.Get(k))
					}
				}
				rel = strings.Trim(rel, `"`)
				if want := map[bool]string{true: tt.cursor}[rel == "next"]; qv.Get("cursor") != want {
					t.Errorf("%s: cursor = %q, want %q", rel, qv.Get("cursor"), want)
				}
				got[rel] = qv.Get("page")
			}
			if len(got) != len(tt.want) {
				t.Fatalf("links %v, want %v (header %q)", got, tt.want, h)
			}
			for rel, page := range tt.want {
				if got[rel] != page {
					t.Errorf("rel=%s page %q, want %q", rel, got[rel], page)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestWantsMarkdown(t *testing.T) {
	tests := []struct {
		accept string
		want   bool
	}{
		{"", false},
		{"application/json", false},
		{"*/*", false},
		{"text/markdown", true},
		{"text/markdown; charset=utf-8", true},
		{"text/markdown, application/json", true},
		{"application/json, text/markdown", false},
		{"application/json;q=0.9, text/markdown", true},
		{"text/markdown;q=0.5, application/json", false},
		{"text/*", true},
		{"text/html", false},
		{"text/markdown;q=0", false},
	}
	for _, tt := range tests {
		if got := wantsMarkdown(tt.accept); got != tt.want {
			t.Errorf("wantsMarkdown(%q) = %v, want %v", tt.accept, got, tt.want)
		}
	}
}

func TestParsePathID(t *testing.T) {
	tests := []struct {
		raw      string
		id       int64
		markdown bool
		ok       bool
	}{
		{"42", 42, false, true},
		{"42.md", 42, true, true},
		{"9007199254740992", MaxID, false, true},
		{"9007199254740992.md", MaxID, true, true},
		{"9007199254740993", 0, false, false}, // 2^53 + 1
		{"abc", 0, false, false},
		{"abc.md", 0, false, false},
		{"0", 0, false, false},
		{"007", 0, false, false}, // one id, one spelling
		{"-3", 0, false, false},
		{"+3", 0, false, false},
		{" 3", 0, false, false},
		{"3\n", 0, false, false},
		{"3\x00", 0, false, false},
		{"3\x7f", 0, false, false},
		{"3\xff", 0, false, false},
		{"1e3", 0, false, false},
		{"0x10", 0, false, false},
		{"42.json", 0, false, false},
		{"42.md.md", 0, false, false},
		{"99999999999999999999", 0, false, false},
		{strings.Repeat("1", 4096), 0, false, false},
		{".md", 0, false, false},
		{"", 0, false, false},
	}
	for _, tt := range tests {
		id, md, ok := ParsePathID(tt.raw)
		if id != tt.id || md != tt.markdown || ok != tt.ok {
			t.Errorf("ParsePathID(%.40q) = %d, %v, %v; want %d, %v, %v", tt.raw, id, md, ok, tt.id, tt.markdown, tt.ok)
		}
	}
}

var at = time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)

// TestRiskLevelRule pins the contract's rule on every view an entity has.
func TestRiskLevelRule(t *testing.T) {
	unassessed := domain.Entity{ID: 1, UpdatedAt: at}
	assessed := domain.Entity{ID: 2, UpdatedAt: at, Risk: &domain.RiskAssessment{Level: domain.RiskHigh, AssessedAt: at}}
	for _, tt := range []struct {
		name string
		view func(domain.Entity) any
		// path to the entity object inside the view
		inner func(map[string]any) map[string]any
	}{
		{"entity", func(e domain.Entity) any { return entityView(e, nil, nil) }, func(m map[string]any) map[string]any { return m }},
		{"review summary", func(e domain.Entity) any { return reviewDetailView(domain.Review{ID: 9, EntityID: e.ID}, e) },
			func(m map[string]any) map[string]any {
				return m["entity_review"].(map[string]any)["entity"].(map[string]any)
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.inner(toMap(t, tt.view(unassessed)))
			if v, ok := u["risk_level"]; !ok || v != nil {
				t.Errorf("unassessed risk_level = %v (present %v), want null", v, ok)
			}
			if v, ok := u["risk_level_assessed"]; !ok || v != false {
				t.Errorf("unassessed risk_level_assessed = %v (present %v), want false", v, ok)
			}
			if _, ok := u["risk_level_updated_at"]; ok {
				t.Errorf("unassessed entity has risk_level_updated_at")
			}
			a := tt.inner(toMap(t, tt.view(assessed)))
			if a["risk_level"] != "high" || a["risk_level_updated_at"] != "2026-03-04T05:06:07.890Z" {
				t.Errorf("assessed = %v / %v", a["risk_level"], a["risk_level_updated_at"])
			}
			if _, ok := a["risk_level_assessed"]; ok {
				t.Errorf("assessed entity has risk_level_assessed")
			}
		})
	}
}

func TestEntityViewShape(t *testing.T) {
	unscored := toMap(t, entityView(domain.Entity{ID: 1, UpdatedAt: at}, nil, nil))
	if _, ok := unscored["current_score"]; ok {
		t.Errorf("unscored entity has current_score")
	}
	for _, k := range []string{"website_url", "social_url", "business_activity_summary"} {
		if v, ok := unscored[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
	if c, ok := unscored["checks"].([]any); !ok || len(c) != 0 {
		t.Errorf("checks = %v, want []", unscored["checks"])
	}
	if r, ok := unscored["reviews"].([]any); !ok || len(r) != 0 {
		t.Errorf("reviews = %v, want []", unscored["reviews"])
	}
	scored := toMap(t, entityView(domain.Entity{ID: 1, UpdatedAt: at, Score: &domain.Score{Value: 0}}, nil, nil))
	if v, ok := scored["current_score"]; !ok || v != float64(0) {
		t.Errorf("a score of 0 must show: %v, %v", v, ok)
	}
	check := toMap(t, checkView(domain.Check{ID: 3, Status: domain.CheckPending, CreatedAt: at, UpdatedAt: at}))
	for _, k := range []string{"subject_type", "subject_id", "subject_display_name", "checked_at"} {
		if v, ok := check[k]; !ok || v != nil {
			t.Errorf("check %s = %v (present %v), want null", k, v, ok)
		}
	}
	if r, ok := check["result"].(map[string]any); !ok || len(r) != 0 {
		t.Errorf("check result = %v, want {}", check["result"])
	}
	review := toMap(t, reviewView(domain.Review{ID: 77, CreatedAt: at, UpdatedAt: at}))
	if review["api_path"] != "/api/v1/entity_reviews/77" {
		t.Errorf("api_path = %v", review["api_path"])
	}
}

func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
