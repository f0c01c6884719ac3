package main

// End-to-end tests: an HTTP client against the local gateway, which runs the
// authorizer's and the functions' Lambda handlers over DynamoDB Local.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

type fixture struct {
	srv                      *httptest.Server
	st                       *store.Store
	keyA, keyAViewOnly, keyB string
	keyANoView, revokedKey   string
	a, b                     []domain.EntityDetail // in creation order
}

var base = time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)

func quietLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	e := &env{store: st, log: quietLogger()}
	f := &fixture{st: st}

	acctA := mustAccount(t, e, "Account A", "SA", "AE")
	acctB := mustAccount(t, e, "Account B", "SA")
	f.keyA = mustKey(t, e, acctA, domain.PermEntityView, domain.PermReviewView)
	f.keyAViewOnly = mustKey(t, e, acctA, domain.PermEntityView)
	f.keyANoView = mustKey(t, e, acctA, domain.PermEntityCreate)
	f.keyB = mustKey(t, e, acctB, domain.PermEntityView, domain.PermReviewView)
	f.revokedKey = mustKey(t, e, acctA, domain.PermEntityView)
	if err := st.RevokeAPIKey(ctx, auth.HashKey(f.revokedKey), time.Now()); err != nil {
		t.Fatal(err)
	}

	// Account A: 7 entities, the 5th (index 4) fully populated.
	for i := 0; i < 7; i++ {
		country, number := "SA", fmt.Sprintf("70000000%02d", i)
		if i == 2 || i == 5 {
			country, number = "AE", fmt.Sprintf("CN-00%02d", i)
		}
		d := detail(country, number, base.Add(time.Duration(i)*time.Hour))
		if i == 4 {
			d = richDetail(number)
		}
		created, err := st.CreateEntity(ctx, withAccount(d, acctA))
		if err != nil {
			t.Fatal(err)
		}
		f.a = append(f.a, created)
	}
	created, err := st.CreateEntity(ctx, withAccount(detail("SA", "7999999999", base), acctB))
	if err != nil {
		t.Fatal(err)
	}
	f.b = append(f.b, created)

	f.srv = httptest.NewServer(newGateway(st, quietLogger(), providers{}))
	t.Cleanup(f.srv.Close)
	return f
}

func mustAccount(t testing.TB, e *env, name string, codes ...string) int64 {
	t.Helper()
	acct, err := createAccount(context.Background(), e, name, codes)
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID
}

func mustKey(t *testing.T, e *env, acct int64, perms ...string) string {
	t.Helper()
	key, err := createKey(context.Background(), e, acct, perms)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func withAccount(d domain.EntityDetail, acct int64) domain.EntityDetail {
	d.Entity.AccountID = acct
	return d
}

func detail(country, number string, at time.Time) domain.EntityDetail {
	numeric := map[string]int{"SA": 682, "AE": 784}[country]
	return domain.EntityDetail{Entity: domain.Entity{
		RegistrationNumber: number, LegalName: "Entity " + number, CountryCode: country, CountryID: numeric,
		Status: domain.EntityDraft, RegistrationStatus: domain.RegistrationUnknown, SanctionsStatus: domain.SanctionsNotRun,
		CreatedAt: at, UpdatedAt: at,
	}}
}

// richDetail has checks and reviews in several states, a score and a risk
// assessment.
func richDetail(number string) domain.EntityDetail {
	at := base.Add(4 * time.Hour)
	d := detail("SA", number, at)
	d.Entity.LegalName = "Al Noor | Trading *Co*"
	d.Entity.Status = domain.EntityReadyForReview
	d.Entity.RegistrationStatus = domain.RegistrationValid
	d.Entity.SanctionsStatus = domain.SanctionsClear
	d.Entity.Score = &domain.Score{Value: 70, Breakdown: []domain.ScoreComponent{{Key: "registry", Label: "Registry record", Points: 40, Max: 40}, {Key: "screening", Label: "Sanctions screening", Points: 30, Max: 30}}}
	d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskMedium, AssessedAt: at.Add(time.Hour)}
	d.Entity.DocumentsCount, d.Entity.RelationshipsCount = 3, 2
	checked := at.Add(time.Minute)
	d.Checks = []domain.Check{
		{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted, ProviderStatus: "active", TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "active"}, CheckedAt: &checked, CreatedAt: at, UpdatedAt: checked},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, ProviderStatus: "200", TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "clear", "matched": false, "matches_count": 0}, CheckedAt: &checked, CreatedAt: at.Add(2 * time.Second), UpdatedAt: checked},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckPending, TriggeringReason: domain.TriggerOperatorRequested,
			Result: map[string]any{"status": "pending"}, CreatedAt: at.Add(3 * time.Hour), UpdatedAt: at.Add(3 * time.Hour)},
	}
	approved, reason := domain.OutcomeApproved, "documents_verified"
	done := at.Add(2 * time.Hour)
	user, name := int64(11), "Sara Operator"
	d.Reviews = []domain.Review{
		{Purpose: domain.ReviewInitial, Status: domain.ReviewCompleted, Outcome: &approved, OutcomeReason: &reason, StartedAt: &at, CompletedAt: &done, NotesCount: 2, CreatedAt: at, UpdatedAt: done},
		{Purpose: domain.ReviewPeriodic, Status: domain.ReviewInProgress, AssignedUserID: &user, AssignedUserName: &name, StartedAt: &done, CreatedAt: done, UpdatedAt: done},
	}
	return d
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r.body)
	}
	return m
}

func (f *fixture) get(t *testing.T, path, key string, headers ...string) response {
	return f.do(t, "GET", path, key, headers...)
}

func (f *fixture) do(t *testing.T, method, path, key string, headers ...string) response {
	t.Helper()
	return send(t, method, f.srv.URL+path, key, nil, headers...)
}

// send makes one request with an optional API key, body and header pairs,
// and reads the whole answer.
func send(t *testing.T, method, url, key string, body []byte, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func id(d domain.EntityDetail) string { return strconv.FormatInt(d.Entity.ID, 10) }

// errorCode checks the {"error": {"code", "message"}} body and returns the code.
func errorCode(t *testing.T, r response) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok || len(m) != 1 {
		t.Fatalf("error body = %s", r.body)
	}
	msg, _ := e["message"].(string)
	if msg == "" || strings.Contains(msg, "goroutine") || strings.Contains(msg, ".go:") {
		t.Errorf("message %q is empty or leaks internals", msg)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	code, _ := e["code"].(string)
	return code
}

func TestErrors(t *testing.T) {
	f := newFixture(t)
	entity := "/api/v1/entities/" + id(f.a[0])
	review := "/api/v1/entity_reviews/" + strconv.FormatInt(f.a[4].Reviews[0].ID, 10)
	tests := []struct {
		name, method, path, key string
		status                  int
		code                    string
	}{
		{"no key", "GET", "/api/v1/entities", "", 401, "unauthorized"},
		{"malformed key", "GET", "/api/v1/entities", "garbage", 401, "unauthorized"},
		{"unknown key", "GET", entity, "evs_" + strings.Repeat("A", 43), 401, "unauthorized"},
		{"revoked key", "GET", "/api/v1/entities", f.revokedKey, 401, "unauthorized"},
		{"list without entity.view", "GET", "/api/v1/entities", f.keyANoView, 403, "forbidden"},
		{"entity without entity.view", "GET", entity, f.keyANoView, 403, "forbidden"},
		{"review without entity.review.view", "GET", review, f.keyAViewOnly, 403, "forbidden"},
		{"unknown entity", "GET", "/api/v1/entities/99999999", f.keyA, 404, "not_found"},
		{"non-numeric entity id", "GET", "/api/v1/entities/abc", f.keyA, 404, "not_found"},
		{"another account's entity", "GET", "/api/v1/entities/" + id(f.b[0]), f.keyA, 404, "not_found"},
		{"another account's entity as markdown", "GET", "/api/v1/entities/" + id(f.b[0]) + ".md", f.keyA, 404, "not_found"},
		{"another account's review", "GET", review, f.keyB, 404, "not_found"},
		{"unknown review", "GET", "/api/v1/entity_reviews/99999999", f.keyA, 404, "not_found"},
		{"non-numeric review id", "GET", "/api/v1/entity_reviews/x1", f.keyA, 404, "not_found"},
		{"unknown path", "GET", "/api/v1/nothing", f.keyA, 404, "not_found"},
		{"unknown path without key", "GET", "/api/v2/entities", "", 404, "not_found"},
		{"method not allowed", "DELETE", entity, f.keyA, 405, "method_not_allowed"},
		{"method not allowed on review", "PUT", review, f.keyA, 405, "method_not_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do(t, tt.method, tt.path, tt.key)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if code := errorCode(t, r); code != tt.code {
				t.Errorf("code %q, want %q", code, tt.code)
			}
			if tt.status == 405 && r.header.Get("Allow") != "GET" {
				t.Errorf("Allow = %q", r.header.Get("Allow"))
			}
		})
	}
	// Unknown, non-numeric and foreign ids are indistinguishable.
	a := f.get(t, "/api/v1/entities/99999999", f.keyA)
	b := f.get(t, "/api/v1/entities/"+id(f.b[0]), f.keyA)
	c := f.get(t, "/api/v1/entities/abc", f.keyA)
	if string(a.body) != string(b.body) || string(a.body) != string(c.body) {
		t.Errorf("404 bodies differ: %s / %s / %s", a.body, b.body, c.body)
	}
}

func TestInternalErrorsLeakNothing(t *testing.T) {
	f := newFixture(t)
	// Functions whose tables do not exist: every read fails inside DynamoDB.
	broken := store.New(devstack.DB(), schema.NamesWithPrefix("missing-"))
	gw := newGateway(broken, quietLogger(), providers{})
	gw.Authorizer = newGateway(f.st, quietLogger(), providers{}).Authorizer
	srv := httptest.NewServer(gw)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/entities/1", nil)
	req.Header.Set("Authorization", "Bearer "+f.keyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := response{status: resp.StatusCode, header: resp.Header, body: body}
	if r.status != 500 || errorCode(t, r) != "internal_error" {
		t.Fatalf("status %d: %s", r.status, body)
	}
	for _, leak := range []string{"missing-", "ResourceNotFound", "DynamoDB", "operation error"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("body leaks %q: %s", leak, body)
		}
	}
}

func TestListEntities(t *testing.T) {
	f := newFixture(t)
	newest := f.a[6].Entity.ID

	r := f.get(t, "/api/v1/entities", f.keyA)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	m := r.json(t)
	meta := m["meta"].(map[string]any)
	if meta["page"] != 1.0 || meta["per_page"] != 50.0 || meta["total_count"] != 7.0 || meta["total_pages"] != 1.0 {
		t.Errorf("meta = %v", meta)
	}
	if r.header.Get("X-Total-Count") != "7" {
		t.Errorf("X-Total-Count = %q", r.header.Get("X-Total-Count"))
	}
	if r.header.Get("Link") != "" {
		t.Errorf("single page has Link %q", r.header.Get("Link"))
	}
	ents := m["entities"].([]any)
	if len(ents) != 7 || ents[0].(map[string]any)["id"] != float64(newest) {
		t.Fatalf("entities not newest first: %v", ents)
	}
	for _, e := range ents {
		em := e.(map[string]any)
		if len(em["checks"].([]any)) != 0 || len(em["reviews"].([]any)) != 0 {
			t.Errorf("list shows checks or reviews: %v", em)
		}
	}

	tests := []struct {
		query      string
		status     int
		wantIDs    []int64
		total      string
		links      map[string]string // rel -> page
		perPage    float64
		errorField string
	}{
		{query: "per_page=2", status: 200, wantIDs: []int64{newest, newest - 1}, total: "7", perPage: 2, links: map[string]string{"next": "2", "last": "4"}},
		{query: "per_page=2&page=2", status: 200, wantIDs: []int64{newest - 2, newest - 3}, total: "7", perPage: 2, links: map[string]string{"first": "1", "prev": "1", "next": "3", "last": "4"}},
		{query: "per_page=2&page=4", status: 200, wantIDs: []int64{newest - 6}, total: "7", perPage: 2, links: map[string]string{"first": "1", "prev": "3"}},
		{query: "per_page=2&page=50", status: 200, wantIDs: []int64{}, total: "7", perPage: 2, links: map[string]string{"first": "1", "prev": "4"}},
		{query: "per_page=1000", status: 200, total: "7", perPage: 200},
		{query: "per_page=banana", status: 200, total: "7", perPage: 50},
		{query: "page=zero", status: 200, total: "7", perPage: 50},
		{query: "country_code=ae", status: 200, wantIDs: []int64{f.a[5].Entity.ID, f.a[2].Entity.ID}, total: "2", perPage: 50},
		{query: "country_code=AE&per_page=1", status: 200, wantIDs: []int64{f.a[5].Entity.ID}, total: "2", perPage: 1, links: map[string]string{"next": "2", "last": "2"}},
		{query: "country_code=GB", status: 200, wantIDs: []int64{}, total: "0", perPage: 50},
		{query: "registration_number=7000000003", status: 200, wantIDs: []int64{f.a[3].Entity.ID}, total: "1", perPage: 50},
		{query: "registration_number=7999999999", status: 200, wantIDs: []int64{}, total: "0", perPage: 50},
		{query: "updated_since=2026-10-01T12:00:00Z", status: 200, wantIDs: []int64{newest, newest - 1, newest - 2}, total: "3", perPage: 50},
		{query: "updated_since=2026-10-01T15:00:00%2B03:00", status: 200, wantIDs: []int64{newest, newest - 1, newest - 2}, total: "3", perPage: 50},
		{query: "updated_since=2026-10-01T12:00:00Z&country_code=sa", status: 200, wantIDs: []int64{newest, newest - 2}, total: "2", perPage: 50},
		{query: "updated_since=2026-10-01T12:00:00Z&per_page=2&page=2", status: 200, wantIDs: []int64{newest - 2}, total: "3", perPage: 2, links: map[string]string{"first": "1", "prev": "1"}},
		{query: "updated_since=last+tuesday", status: 422, errorField: "updated_since"},
		{query: "updated_since=", status: 200, total: "7", perPage: 50},
		{query: "country_code=ZZ", status: 422, errorField: "country_code"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := f.get(t, "/api/v1/entities?"+tt.query, f.keyA)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			m := r.json(t)
			if tt.errorField != "" {
				errs, _ := m["errors"].(map[string]any)
				if msgs, _ := errs[tt.errorField].([]any); len(msgs) != 1 || len(m) != 1 {
					t.Errorf("body = %s, want errors.%s", r.body, tt.errorField)
				}
				return
			}
			if r.header.Get("X-Total-Count") != tt.total {
				t.Errorf("X-Total-Count = %q, want %s", r.header.Get("X-Total-Count"), tt.total)
			}
			meta := m["meta"].(map[string]any)
			if meta["per_page"] != tt.perPage || strconv.Itoa(int(meta["total_count"].(float64))) != tt.total {
				t.Errorf("meta = %v", meta)
			}
			if tt.wantIDs != nil {
				var got []int64
				for _, e := range m["entities"].([]any) {
					got = append(got, int64(e.(map[string]any)["id"].(float64)))
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.wantIDs) && !(len(got) == 0 && len(tt.wantIDs) == 0) {
					t.Errorf("ids = %v, want %v", got, tt.wantIDs)
				}
				if arr, ok := m["entities"].([]any); !ok || arr == nil {
					t.Errorf("entities is not an array: %s", r.body)
				}
			}
			checkLinks(t, r.header.Get("Link"), tt.links, f.srv.URL, tt.query)
		})
	}
}

var linkRE = regexp.MustCompile(`<([^>]+)>; rel="(first|prev|next|last)"`)

func checkLinks(t *testing.T, header string, want map[string]string, srvURL, query string) {
	t.Helper()
	got := map[string]string{}
	for _, m := range linkRE.FindAllStringSubmatch(header, -1) {
		u := m[1]
		if !strings.HasPrefix(u, srvURL+"/api/v1/entities?") {
			t.Errorf("link %q is not an absolute URL of the list", u)
		}
		req, _ := http.NewRequest("GET", u, nil)
		q := req.URL.Query()
		if q.Get("per_page") == "" {
			t.Errorf("link %q has no per_page", u)
		}
		for _, filter := range []string{"country_code", "registration_number", "updated_since"} {
			if strings.Contains(query, filter+"=") && q.Get(filter) == "" {
				t.Errorf("link %q lost the %s filter", u, filter)
			}
		}
		got[m[2]] = q.Get("page")
	}
	if len(got) != len(want) {
		t.Errorf("links %v, want %v (%q)", got, want, header)
		return
	}
	for rel, page := range want {
		if got[rel] != page {
			t.Errorf("rel=%s page %s, want %s", rel, got[rel], page)
		}
	}
}

// TestWalkingTheAccount follows rel=next to the end and finds every entity once.
func TestWalkingTheAccount(t *testing.T) {
	f := newFixture(t)
	seen := map[float64]bool{}
	url := f.srv.URL + "/api/v1/entities?per_page=3"
	for pages := 0; url != ""; pages++ {
		if pages > 10 {
			t.Fatal("rel=next never ends")
		}
		r := f.get(t, strings.TrimPrefix(url, f.srv.URL), f.keyA)
		for _, e := range r.json(t)["entities"].([]any) {
			seen[e.(map[string]any)["id"].(float64)] = true
		}
		url = ""
		for _, m := range linkRE.FindAllStringSubmatch(r.header.Get("Link"), -1) {
			if m[2] == "next" {
				url = m[1]
			}
		}
	}
	if len(seen) != len(f.a) {
		t.Errorf("walked %d entities, want %d", len(seen), len(f.a))
	}
}

func TestGetEntity(t *testing.T) {
	f := newFixture(t)
	rich := f.a[4]
	r := f.get(t, "/api/v1/entities/"+id(rich), f.keyA)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	m := r.json(t)
	want := map[string]any{
		"id": float64(rich.Entity.ID), "registration_number": "7000000004", "legal_name": "Al Noor | Trading *Co*", "country_id": 682.0,
		"status": "ready_for_review", "registration_status": "valid_status", "sanctions_status": "clear",
		"current_score": 70.0, "risk_level": "medium", "risk_level_updated_at": "2026-10-01T13:00:00.000Z",
		"website_url": nil, "social_url": nil, "business_activity_summary": nil, "updated_at": "2026-10-01T12:00:00.000Z",
		"current_relationships_count": 2.0, "reviews_count": 2.0, "documents_count": 3.0, "checks_count": 3.0,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := m["risk_level_assessed"]; ok {
		t.Error("assessed entity shows risk_level_assessed")
	}
	checks := m["checks"].([]any)
	if len(checks) != 3 {
		t.Fatalf("checks = %v", checks)
	}
	var checkTimes []string
	for _, c := range checks {
		checkTimes = append(checkTimes, c.(map[string]any)["created_at"].(string))
	}
	for i := 1; i < len(checkTimes); i++ {
		if checkTimes[i-1] < checkTimes[i] {
			t.Errorf("checks not newest first: %v", checkTimes)
		}
	}
	pending := checks[0].(map[string]any)
	if pending["status"] != "pending" || pending["checked_at"] != nil || pending["subject_type"] != nil {
		t.Errorf("pending check = %v", pending)
	}
	if _, ok := pending["result"].(map[string]any)["matches_count"]; ok {
		t.Error("a provider that has not answered shows a matches_count")
	}
	screening := checks[1].(map[string]any)["result"].(map[string]any)
	if screening["matches_count"] != 0.0 || screening["matched"] != false || screening["status"] != "clear" {
		t.Errorf("screening result = %v", screening)
	}
	reviews := m["reviews"].([]any)
	if len(reviews) != 2 || reviews[0].(map[string]any)["status"] != "in_progress" || reviews[1].(map[string]any)["status"] != "completed" {
		t.Fatalf("reviews not active first: %v", reviews)
	}
	first := reviews[0].(map[string]any)
	if first["assigned_user_name"] != "Sara Operator" || first["outcome"] != nil || first["completed_at"] != nil ||
		first["api_path"] != "/api/v1/entity_reviews/"+strconv.FormatInt(rich.Reviews[0].ID, 10) && first["api_path"] != "/api/v1/entity_reviews/"+strconv.FormatInt(rich.Reviews[1].ID, 10) {
		t.Errorf("active review = %v", first)
	}
	if done := reviews[1].(map[string]any); done["outcome"] != "approved" || done["outcome_reason"] != "documents_verified" {
		t.Errorf("completed review = %v", done)
	}

	// An unassessed, unscored entity.
	plain := f.get(t, "/api/v1/entities/"+id(f.a[0]), f.keyA).json(t)
	if v, ok := plain["risk_level"]; !ok || v != nil || plain["risk_level_assessed"] != false {
		t.Errorf("unassessed: risk_level %v (%v), risk_level_assessed %v", v, ok, plain["risk_level_assessed"])
	}
	for _, k := range []string{"risk_level_updated_at", "current_score"} {
		if _, ok := plain[k]; ok {
			t.Errorf("unassessed, unscored entity shows %s", k)
		}
	}
}

func TestGetReview(t *testing.T) {
	f := newFixture(t)
	rich := f.a[4]
	var initial domain.Review
	for _, r := range rich.Reviews {
		if r.Purpose == domain.ReviewInitial {
			initial = r
		}
	}
	r := f.get(t, "/api/v1/entity_reviews/"+strconv.FormatInt(initial.ID, 10), f.keyA)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	m := r.json(t)
	er := m["entity_review"].(map[string]any)
	want := map[string]any{
		"id": float64(initial.ID), "entity_id": float64(rich.Entity.ID), "purpose": "initial", "status": "completed",
		"outcome": "approved", "outcome_reason": "documents_verified", "assigned_user_id": nil,
		"started_at": "2026-10-01T12:00:00.000Z", "completed_at": "2026-10-01T14:00:00.000Z", "updated_at": "2026-10-01T14:00:00.000Z",
		"notes_count": 2.0, "checks_count": 3.0,
	}
	for k, v := range want {
		if got, ok := er[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	ent := er["entity"].(map[string]any)
	if ent["id"] != float64(rich.Entity.ID) || ent["risk_level"] != "medium" || ent["current_score"] != 70.0 || ent["sanctions_status"] != "clear" || ent["country_id"] != 682.0 {
		t.Errorf("entity summary = %v", ent)
	}
}

func TestMarkdown(t *testing.T) {
	f := newFixture(t)
	rich := f.a[4]
	plain := f.a[0]
	var reviewPath string
	for _, r := range rich.Reviews {
		if r.Purpose == domain.ReviewInitial {
			reviewPath = "/api/v1/entity_reviews/" + strconv.FormatInt(r.ID, 10)
		}
	}
	tests := []struct {
		name, path string
		headers    []string
		markdown   bool
		contains   []string
	}{
		{"suffix", "/api/v1/entities/" + id(plain) + ".md", nil, true, []string{"- Risk level: Not assessed", "- Score: Not scored", "## Checks (0)"}},
		{"accept header", "/api/v1/entities/" + id(rich), []string{"Accept", "text/markdown"}, true,
			[]string{`# Al Noor \| Trading \*Co\*`, "- Risk level: medium", "## Score breakdown", "| Registry record | 40 | 40 |", "## Checks (3)", "## Reviews (2)", "Sara Operator"}},
		{"json by default", "/api/v1/entities/" + id(rich), nil, false, nil},
		{"json when asked", "/api/v1/entities/" + id(rich), []string{"Accept", "application/json"}, false, nil},
		{"review suffix", reviewPath + ".md", nil, true, []string{"# Review", "- Outcome: approved", "## Score breakdown"}},
		{"review accept header", reviewPath, []string{"Accept", "text/markdown"}, true, []string{"- Risk level: medium"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.get(t, tt.path, f.keyA, tt.headers...)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			ct := r.header.Get("Content-Type")
			if tt.markdown != strings.HasPrefix(ct, "text/markdown") {
				t.Fatalf("Content-Type %q", ct)
			}
			if !tt.markdown {
				r.json(t)
			}
			for _, s := range tt.contains {
				if !strings.Contains(string(r.body), s) {
					t.Errorf("lacks %q:\n%s", s, r.body)
				}
			}
		})
	}
}

func TestSecondAccountSeesNothingOfTheFirst(t *testing.T) {
	f := newFixture(t)
	r := f.get(t, "/api/v1/entities?per_page=200", f.keyB)
	m := r.json(t)
	ents := m["entities"].([]any)
	if len(ents) != 1 || ents[0].(map[string]any)["id"] != float64(f.b[0].Entity.ID) || r.header.Get("X-Total-Count") != "1" {
		t.Fatalf("account B lists %s", r.body)
	}
	for _, d := range f.a {
		if r := f.get(t, "/api/v1/entities/"+id(d), f.keyB); r.status != 404 {
			t.Errorf("account B reads A's entity %d: %d", d.Entity.ID, r.status)
		}
		for _, rev := range d.Reviews {
			if r := f.get(t, "/api/v1/entity_reviews/"+strconv.FormatInt(rev.ID, 10), f.keyB); r.status != 404 {
				t.Errorf("account B reads A's review %d: %d", rev.ID, r.status)
			}
		}
	}
	for _, q := range []string{"registration_number=7000000004", "country_code=AE", "updated_since=2000-01-01"} {
		if r := f.get(t, "/api/v1/entities?"+q, f.keyB); r.header.Get("X-Total-Count") != "0" && !(q == "updated_since=2000-01-01" && r.header.Get("X-Total-Count") == "1") {
			t.Errorf("account B, %s: total %s", q, r.header.Get("X-Total-Count"))
		}
	}
}
