package deploy

import (
	"fmt"
	"strings"
	"testing"
)

// TestMustRoute: a routed function gets its route; any other name panics,
// naming it, so a wiring mistake stops the handler's build.
func TestMustRoute(t *testing.T) {
	tests := []struct {
		function, wantPath, wantPanic string
	}{
		{function: "get-entity", wantPath: BasePath + "/entities/{id}"},
		{function: "provider-webhook", wantPath: ProviderWebhookPath},
		{function: "decision", wantPanic: `"decision"`},
		{function: "", wantPanic: `""`},
	}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			var got Route
			panicked := func() (msg string) {
				defer func() {
					if v := recover(); v != nil {
						msg = fmt.Sprint(v)
					}
				}()
				got = MustRoute(tt.function)
				return ""
			}()
			if tt.wantPanic != "" {
				if !strings.Contains(panicked, tt.wantPanic) {
					t.Fatalf("panic = %q, want one naming %s", panicked, tt.wantPanic)
				}
				return
			}
			if panicked != "" || got.Path != tt.wantPath || got.Function != tt.function {
				t.Errorf("MustRoute(%q) = %+v, panic %q; want path %s", tt.function, got, panicked, tt.wantPath)
			}
		})
	}
}

func TestMatchPath(t *testing.T) {
	cases := []struct {
		resource, path string
		want           map[string]string // nil: no match
	}{
		{"/api/v1/entities/{id}", "/api/v1/entities/12", map[string]string{"id": "12"}},
		{"/api/v1/entities/{id}", "/api/v1/entities/12/x", nil},
		{"/api/v1/entities/{id}", "/api/v1/entities/", nil},
		{"/api/v1/entities", "/api/v1/entities/", map[string]string{}},
		{"/settings/{proxy+}", "/settings/endpoints", map[string]string{"proxy": "endpoints"}},
		{"/settings/{proxy+}", "/settings/endpoints/3/edit", map[string]string{"proxy": "endpoints/3/edit"}},
		{"/settings/{proxy+}", "/settings/", nil},
		{"/settings/{proxy+}", "/settings", nil},
		{"/settings/{proxy+}", "/other/endpoints", nil},
		{"/settings", "/settings/", map[string]string{}},
		{"/settings", "web", nil},
		{"/console/{proxy+}", "/console/reviews/12", map[string]string{"proxy": "reviews/12"}},
		{"/console/{proxy+}", "/console", nil},
		{"/console", "/console/", map[string]string{}},
	}
	for _, c := range cases {
		got, ok := MatchPath(c.resource, c.path)
		if ok != (c.want != nil) || (ok && fmt.Sprint(got) != fmt.Sprint(c.want)) {
			t.Errorf("MatchPath(%q, %q) = %v, %v; want %v", c.resource, c.path, got, ok, c.want)
		}
	}
}

// TestWebRoutes: the settings area and the operator console are each a
// root and one greedy resource (pages, and forms posted) of the one web
// function: public, as each authenticates by its session cookie; for
// browsers, so the API's description leaves them out; bounded by
// ReadBudget.
func TestWebRoutes(t *testing.T) {
	for _, root := range []string{SettingsPath, ConsolePath} {
		want := []string{"GET " + root, "GET " + root + "/{proxy+}", "POST " + root + "/{proxy+}"}
		var got []string
		for _, r := range Routes() {
			if r.Path != root && !strings.HasPrefix(r.Path, root+"/") {
				continue
			}
			got = append(got, r.Method+" "+r.Path)
			if r.Function != "web" || !r.Public || !r.Browser || r.Budget != ReadBudget {
				t.Errorf("%s %s: function %s, public %v, browser %v, budget %v; want settings, public, browser, %v",
					r.Method, r.Path, r.Function, r.Public, r.Browser, r.Budget, ReadBudget)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("routes under %s: %v, want %v", root, got, want)
		}
	}
}
