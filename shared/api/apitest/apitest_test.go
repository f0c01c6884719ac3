package apitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const goodEntity = `{"id":1000000151,"registration_number":"7001234560","legal_name":"Jazan Services Est.","country_id":682,
"status":"ready_for_review","registration_status":"valid_status","current_score":70,"risk_level":null,"risk_level_assessed":false,
"sanctions_status":"clear","website_url":null,"social_url":null,"business_activity_summary":null,"updated_at":"2026-11-23T16:03:54.773Z",
"current_relationships_count":0,"reviews_count":0,"documents_count":0,"checks_count":0,"checks":[],"reviews":[]}`

// The checks bite: each exchange the description does not allow is
// reported, and each it allows is not.
func TestCheck(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	json := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tag := `"LXEWQrcmsEQBYnyp-6wy9chTD7G"`
	one := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Etag": {tag}}
	listHeaders := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Total-Count": {"1"}}
	cases := []struct {
		name    string
		method  string
		target  string
		hostile bool
		status  int
		header  http.Header
		body    string
		want    string // a fragment of the first problem; "" for none
	}{
		{"an entity as described", "GET", "/api/v1/entities/1000000151", false, 200, one, goodEntity, ""},
		{"an entity without its ETag", "GET", "/api/v1/entities/1000000151", false, 200, json, goodEntity, "ETag"},
		{"a 304 as described", "GET", "/api/v1/entities/1000000151", false, 304, http.Header{"Etag": {tag}}, "", ""},
		{"a Markdown 304 as described", "GET", "/api/v1/entity_reviews/9.md", false, 304, http.Header{"Etag": {tag}}, "", ""},
		{"a 304 without its ETag", "GET", "/api/v1/entities/1000000151", false, 304, http.Header{}, "", "ETag"},
		{"a field missing", "GET", "/api/v1/entities/1000000151", false, 200, one, strings.Replace(goodEntity, `"checks_count":0,`, "", 1), "checks_count"},
		{"the risk-level rule broken", "GET", "/api/v1/entities/1000000151", false, 200, one,
			strings.Replace(goodEntity, `"risk_level_assessed":false,`, "", 1), "response"},
		{"an assessed entity saying it is not", "GET", "/api/v1/entities/1000000151", false, 200, one,
			strings.Replace(goodEntity, `"risk_level":null`, `"risk_level":"low","risk_level_updated_at":"2026-11-23T16:03:54.773Z"`, 1), "response"},
		{"an unknown status", "GET", "/api/v1/entities/1000000151", false, 200, one, strings.Replace(goodEntity, "ready_for_review", "pending", 1), "status"},
		{"Markdown as described", "GET", "/api/v1/entities/1000000151.md", false, 200,
			http.Header{"Content-Type": {"text/markdown; charset=utf-8"}, "Etag": {tag}}, "# Jazan\n", ""},
		{"a list as described", "GET", "/api/v1/entities?per_page=1", false, 200, listHeaders,
			`{"entities":[` + goodEntity + `],"meta":{"page":1,"per_page":1,"total_count":1,"total_pages":1}}`, ""},
		{"a list without X-Total-Count", "GET", "/api/v1/entities", false, 200, json,
			`{"entities":[],"meta":{"page":1,"per_page":50,"total_count":0,"total_pages":0}}`, "X-Total-Count"},
		{"a status the operation does not have", "GET", "/api/v1/entities", false, 418, json, `{"error":{"code":"conflict","message":"x"}}`, "418"},
		{"a 422 as described", "GET", "/api/v1/entities?country_code=ZZ", false, 422, json, `{"errors":{"country_code":["Country \"ZZ\" is not a country the service knows"]}}`, ""},
		{"a 422 without its fields", "GET", "/api/v1/entities?country_code=ZZ", false, 422, json, `{"errors":{}}`, "response"},
		{"a request past a limit", "GET", "/api/v1/entities?country_code=%01", false, 422, json,
			`{"errors":{"country_code":["must not contain control characters"]}}`, "request"},
		{"the same, marked hostile", "GET", "/api/v1/entities?country_code=%01", true, 422, json,
			`{"errors":{"country_code":["must not contain control characters"]}}`, ""},
		{"a paging fallback", "GET", "/api/v1/entities?per_page=500", false, 200, listHeaders,
			`{"entities":[],"meta":{"page":1,"per_page":200,"total_count":1,"total_pages":1}}`, ""},
		{"an unknown path's error", "GET", "/api/v1/nothing", false, 404, json, `{"error":{"code":"not_found","message":"No such resource."}}`, ""},
		{"an unknown path's bare text", "GET", "/api/v1/nothing", false, 404, http.Header{"Content-Type": {"text/plain"}}, "404 page not found", "text/plain"},
		{"an unknown path answered 200", "GET", "/api/v1/nothing", false, 200, json, `{}`, "200"},
		{"another method's 405", "DELETE", "/api/v1/entities/1", false, 405, http.Header{"Content-Type": {"application/json"}, "Allow": {"GET"}},
			`{"error":{"code":"method_not_allowed","message":"DELETE is not allowed here; use GET."}}`, ""},
		{"another method answered 200", "DELETE", "/api/v1/entities/1", false, 200, json, `{}`, "not 405"},
		{"an error code not described", "GET", "/api/v1/entities/1", false, 404, json, `{"error":{"code":"missing","message":"x"}}`, "response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://127.0.0.1:3000"+tc.target, nil)
			req.Header.Set("Authorization", "Bearer evs_test")
			if tc.hostile {
				req = Hostile(req)
			}
			resp := &http.Response{StatusCode: tc.status, Header: tc.header, Request: req}
			problems := c.Check(req, nil, resp, []byte(tc.body))
			switch {
			case tc.want == "" && len(problems) > 0:
				t.Errorf("problems: %q", problems)
			case tc.want != "" && len(problems) == 0:
				t.Errorf("no problem found, want one about %q", tc.want)
			case tc.want != "" && !strings.Contains(strings.Join(problems, "\n"), tc.want):
				t.Errorf("problems %q do not mention %q", problems, tc.want)
			}
		})
	}
}

func TestMatchTemplate(t *testing.T) {
	cases := []struct {
		template, path string
		want           bool
	}{
		{"/api/v1/entities/{id}", "/api/v1/entities/12", true},
		{"/api/v1/entities/{id}", "/api/v1/entities/12.md", false},
		{"/api/v1/entities/{id}.md", "/api/v1/entities/12.md", true},
		{"/api/v1/entities/{id}.md", "/api/v1/entities/.md", false},
		{"/api/v1/entities/{id}", "/api/v1/entities/12/x", false},
		{"/api/v1/entities", "/api/v1/entities", true},
	}
	for _, c := range cases {
		if got := matchTemplate(c.template, c.path); got != c.want {
			t.Errorf("matchTemplate(%q, %q) = %v", c.template, c.path, got)
		}
	}
}
