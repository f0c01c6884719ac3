package main

// End-to-end tests: an HTTP client against the local gateway, which runs the
// authorizer's and the functions' Lambda handlers over DynamoDB Local.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

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
