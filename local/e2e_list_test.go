package main

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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
		bad        bool // breaks the description on purpose (paging never fails)
	}{
		{query: "per_page=2", status: 200, wantIDs: []int64{newest, newest - 1}, total: "7", perPage: 2, links: map[string]string{"next": "2", "last": "4"}},
		{query: "per_page=2&page=2", status: 200, wantIDs: []int64{newest - 2, newest - 3}, total: "7", perPage: 2, links: map[string]string{"first": "1", "prev": "1", "next": "3", "last": "4"}},
		{query: "per_page=2&page=4", status: 200, wantIDs: []int64{newest - 6}, total: "7", perPage: 2, links: map[string]string{"first": "1", "prev": "3"}},
		{query: "per_page=2&page=50", status: 200, wantIDs: []int64{}, total: "7", perPage: 2, links: map[string]string{"first": "1", "prev": "4"}},
		{query: "per_page=1000", status: 200, total: "7", perPage: 200, bad: true},
		{query: "per_page=banana", status: 200, total: "7", perPage: 50, bad: true},
		{query: "page=zero", status: 200, total: "7", perPage: 50, bad: true},
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
			get := f.get
			if tt.bad {
				get = func(t *testing.T, path, key string, headers ...string) response {
					return f.doBad(t, "GET", path, key, headers...)
				}
			}
			r := get(t, "/api/v1/entities?"+tt.query, f.keyA)
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

// TestWalkingTheAccount follows rel=next to the end and finds every entity
// once, with and without updated_since (whose next links carry the cursor
// that continues the walk where the page ended).
func TestWalkingTheAccount(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, query string
		cursor      bool
	}{
		{"by page number", "", false},
		{"updated_since, by cursor", "&updated_since=2000-01-01T00:00:00Z", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[float64]bool{}
			url := f.srv.URL + "/api/v1/entities?per_page=3" + tc.query
			for pages := 0; url != ""; pages++ {
				if pages > 10 {
					t.Fatal("rel=next never ends")
				}
				r := f.get(t, strings.TrimPrefix(url, f.srv.URL), f.keyA)
				for _, e := range r.json(t)["entities"].([]any) {
					id := e.(map[string]any)["id"].(float64)
					if seen[id] {
						t.Errorf("entity %v listed twice", id)
					}
					seen[id] = true
				}
				if got := r.header.Get("X-Total-Count"); got != strconv.Itoa(len(f.a)) {
					t.Errorf("page %d: X-Total-Count %s, want %d", pages+1, got, len(f.a))
				}
				url = ""
				for _, m := range linkRE.FindAllStringSubmatch(r.header.Get("Link"), -1) {
					if m[2] == "next" {
						url = m[1]
					}
				}
				if url != "" && strings.Contains(url, "cursor=") != tc.cursor {
					t.Errorf("next link %s: cursor %v, want %v", url, !tc.cursor, tc.cursor)
				}
			}
			if len(seen) != len(f.a) {
				t.Errorf("walked %d entities, want %d", len(seen), len(f.a))
			}
		})
	}
}
