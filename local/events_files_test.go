package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// sampleEventsDir is events/ at the repository root.
func sampleEventsDir(t testing.TB) string {
	t.Helper()
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "events")
}

// sampleEventFiles lists events/*.json.
func sampleEventFiles(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(sampleEventsDir(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	sort.Strings(out)
	return out
}

func readSampleEvent(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleEventsDir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// functionOfEvent is the function an event file is for: its name starts
// with the function's directory name (the longest that fits, so
// get-entity-markdown.json is get-entity's).
func functionOfEvent(file string) (deploy.Function, bool) {
	var best deploy.Function
	for _, f := range deploy.Functions() {
		if strings.HasPrefix(file, f.Name) && len(f.Name) > len(best.Name) {
			best = f
		}
	}
	return best, best.Name != ""
}

// checkSampleEventShape holds an API event to what API Gateway sends for one
// of its function's routes on the "dev" stage, after the authorizer.
func checkSampleEventShape(t *testing.T, f deploy.Function, ev events.APIGatewayProxyRequest) {
	t.Helper()
	var route deploy.Route
	var routes []string
	for _, r := range deploy.Routes() {
		if r.Function != f.Name {
			continue
		}
		routes = append(routes, r.Method+" "+r.Path)
		if r.Method == ev.HTTPMethod && r.Path == ev.Resource {
			route = r
		}
	}
	if len(routes) == 0 {
		t.Fatalf("%s serves no route", f.Name)
	}
	if route.Path == "" {
		t.Fatalf("event is %s %s, none of %s's routes %v", ev.HTTPMethod, ev.Resource, f.Name, routes)
	}
	rc := ev.RequestContext
	if rc.ResourcePath != route.Path || rc.HTTPMethod != route.Method {
		t.Errorf("event is %s %s (%s %s), want the route %s %s", ev.HTTPMethod, ev.Resource, rc.HTTPMethod, rc.ResourcePath, route.Method, route.Path)
	}
	if params, ok := deploy.MatchPath(route.Path, ev.Path); !ok || !maps.Equal(params, ev.PathParameters) {
		t.Errorf("path %s and pathParameters %v do not match %s", ev.Path, ev.PathParameters, route.Path)
	}
	if rc.Stage != sampleStage || rc.Path != "/"+sampleStage+ev.Path {
		t.Errorf("stage %q and requestContext.path %q, want %q and /%s%s", rc.Stage, rc.Path, sampleStage, sampleStage, ev.Path)
	}
	if ev.Headers["Host"] == "" || ev.Headers["X-Forwarded-Proto"] != "https" || len(ev.MultiValueHeaders) != len(ev.Headers) {
		t.Errorf("headers %v / %v: want Host, X-Forwarded-Proto https and every header in multiValueHeaders", ev.Headers, ev.MultiValueHeaders)
	}
	switch {
	case route.Public && rc.Authorizer != nil:
		t.Errorf("a public route's event carries an authorizer context: %v", rc.Authorizer)
	case !route.Public:
		if rc.Authorizer["principalId"] != sampleKey[:10] {
			t.Errorf("authorizer principalId = %v", rc.Authorizer["principalId"])
		}
		for k, v := range sampleAuthorizerContext() {
			if rc.Authorizer[k] != v {
				t.Errorf("authorizer %s = %v, want %v (what the authorizer answers for the sample key)", k, rc.Authorizer[k], v)
			}
		}
	}
}

// webhookTime is the webhook-timestamp of a webhook event.
func webhookTime(t testing.TB, raw []byte) time.Time {
	t.Helper()
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	ts, err := strconv.ParseInt(ev.Headers[webhooks.HeaderTimestamp], 10, 64)
	if err != nil {
		t.Fatalf("webhook-timestamp %q: %v", ev.Headers[webhooks.HeaderTimestamp], err)
	}
	return time.Unix(ts, 0)
}
