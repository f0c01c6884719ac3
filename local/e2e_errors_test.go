package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

func TestErrors(t *testing.T) {
	f := newFixture(t)
	entity := "/api/v1/entities/" + id(f.a[0])
	review := "/api/v1/entity_reviews/" + strconv.FormatInt(f.a[4].Reviews[0].ID, 10)
	tests := []struct {
		name, method, path, key string
		status                  int
		code                    string
		bad                     bool // breaks the description on purpose
	}{
		{"no key", "GET", "/api/v1/entities", "", 401, "unauthorized", true},
		{"malformed key", "GET", "/api/v1/entities", "garbage", 401, "unauthorized", false},
		{"unknown key", "GET", entity, "evs_" + strings.Repeat("A", 43), 401, "unauthorized", false},
		{"revoked key", "GET", "/api/v1/entities", f.revokedKey, 401, "unauthorized", false},
		{"list without entity.view", "GET", "/api/v1/entities", f.keyANoView, 403, "forbidden", false},
		{"entity without entity.view", "GET", entity, f.keyANoView, 403, "forbidden", false},
		{"review without entity.review.view", "GET", review, f.keyAViewOnly, 403, "forbidden", false},
		{"unknown entity", "GET", "/api/v1/entities/99999999", f.keyA, 404, "not_found", false},
		{"non-numeric entity id", "GET", "/api/v1/entities/abc", f.keyA, 404, "not_found", true},
		{"another account's entity", "GET", "/api/v1/entities/" + id(f.b[0]), f.keyA, 404, "not_found", false},
		{"another account's entity as markdown", "GET", "/api/v1/entities/" + id(f.b[0]) + ".md", f.keyA, 404, "not_found", false},
		{"another account's review", "GET", review, f.keyB, 404, "not_found", false},
		{"unknown review", "GET", "/api/v1/entity_reviews/99999999", f.keyA, 404, "not_found", false},
		{"non-numeric review id", "GET", "/api/v1/entity_reviews/x1", f.keyA, 404, "not_found", true},
		{"unknown path", "GET", "/api/v1/nothing", f.keyA, 404, "not_found", false},
		{"unknown path without key", "GET", "/api/v2/entities", "", 404, "not_found", false},
		{"method not allowed", "DELETE", entity, f.keyA, 405, "method_not_allowed", false},
		{"method not allowed on review", "PUT", review, f.keyA, 405, "method_not_allowed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			do := f.do
			if tt.bad {
				do = f.doBad
			}
			r := do(t, tt.method, tt.path, tt.key)
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
	c := f.doBad(t, "GET", "/api/v1/entities/abc", f.keyA)
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
