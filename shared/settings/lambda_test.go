package settings_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/httplambda"
	"github.com/evs-kyb/evs/shared/webpage"
)

// TestBehindAPIGateway runs the handler as the Lambda function behind the
// route /settings/{proxy+} of stage "prod": links, redirects and the
// cookie's path keep the stage; the request id in the audit is API
// Gateway's.
func TestBehindAPIGateway(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "")
	fn := httplambda.New(w.h, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	event := func(method, path, requestID string, headers map[string][]string, query map[string][]string, body string) events.APIGatewayProxyRequest {
		h := map[string][]string{"Host": {"abc123.execute-api.eu-west-1.amazonaws.com"}, "X-Forwarded-Proto": {"https"}}
		for k, v := range headers {
			h[k] = v
		}
		return events.APIGatewayProxyRequest{
			Resource: "/settings/{proxy+}", Path: path, HTTPMethod: method, MultiValueHeaders: h, MultiValueQueryStringParameters: query, Body: body,
			RequestContext: events.APIGatewayProxyRequestContext{RequestID: requestID, Stage: "prod", Path: "/prod" + path,
				DomainName: "abc123.execute-api.eu-west-1.amazonaws.com"},
		}
	}
	call := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
		t.Helper()
		res, err := fn(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	link := w.portal.link(w.session(roleAll), nil)
	res := call(event("GET", "/settings/portal", "gw-1", nil, map[string][]string{"token": {link}}, ""))
	hdr := http.Header(res.MultiValueHeaders)
	if res.StatusCode != http.StatusSeeOther || hdr.Get("Location") != "/prod/console/enrol?token="+link || hdr.Get("Set-Cookie") != "" {
		t.Fatalf("a link: %d %q %q; want 303 to the stage's console enrolment, no cookie", res.StatusCode, hdr.Get("Location"), hdr.Get("Set-Cookie"))
	}
	ck := &http.Cookie{Name: webpage.CookieName, Value: w.sessions[roleAll]}
	cookie := map[string][]string{"Cookie": {ck.String()}}

	res = call(event("GET", "/settings/endpoints", "gw-2", cookie, nil, ""))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("endpoints: %d", res.StatusCode)
	}
	for _, want := range []string{`href="/prod/settings/static/style.css?v=`, `action="/prod/settings/signout"`,
		fmt.Sprintf(`href="/prod/settings/endpoints/%d"`, ep.ID), `href="/prod/settings/countries"`} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("no %s", want)
		}
	}
	if http.Header(res.MultiValueHeaders).Get("Strict-Transport-Security") == "" {
		t.Error("no HSTS behind API Gateway")
	}

	form := url.Values{"csrf": {csrf(ck.Value)}, "action_id": {w.actionID()}}
	res = call(event("POST", fmt.Sprintf("/settings/endpoints/%d/test", ep.ID), "gw-3",
		map[string][]string{"Cookie": cookie["Cookie"], "Content-Type": {"application/x-www-form-urlencoded"},
			"Origin": {"https://abc123.execute-api.eu-west-1.amazonaws.com"}}, nil, form.Encode()))
	if loc := http.Header(res.MultiValueHeaders).Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/prod/settings/deliveries/dlv_") {
		t.Fatalf("test event: %d %q", res.StatusCode, loc)
	}
	if got := w.tester.last().Actor; got.RequestID != "gw-3" || got.ActionID != form.Get("action_id") {
		t.Errorf("tester got %+v", got)
	}
}

// TestHostilePaths: behind API Gateway, paths holding control bytes,
// invalid UTF-8 or URL punctuation get the settings area's own HTML answer
// (its 404, or its sign-in page), never a Lambda error (API Gateway's 502).
func TestHostilePaths(t *testing.T) {
	w := newWorld(t)
	fn := httplambda.New(w.h, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	hostile := []string{"\x00", "\x08", "\n", "\x7f", "\xff", "\xc0\xaf", "%", "?", "#", " ", "%0A", "<script>"}
	for _, b := range hostile {
		for _, path := range []string{"/settings/" + b, "/settings/endpoints/" + b, "/settings/deliveries/7" + b} {
			t.Run(fmt.Sprintf("%q", path), func(t *testing.T) {
				res, err := fn(context.Background(), events.APIGatewayProxyRequest{
					Resource: "/settings/{proxy+}", Path: path, HTTPMethod: "GET",
					MultiValueHeaders: map[string][]string{"Host": {"abc123.execute-api.eu-west-1.amazonaws.com"}, "X-Forwarded-Proto": {"https"}},
					RequestContext: events.APIGatewayProxyRequestContext{RequestID: "gw-hostile", Stage: "prod", Path: "/prod" + path,
						DomainName: "abc123.execute-api.eu-west-1.amazonaws.com"},
				})
				if err != nil {
					t.Fatalf("Lambda error: %v", err)
				}
				ct := http.Header(res.MultiValueHeaders).Get("Content-Type")
				if res.StatusCode < 400 || res.StatusCode >= 500 || !strings.HasPrefix(ct, "text/html") {
					t.Errorf("%d %q, want a 4xx HTML page", res.StatusCode, ct)
				}
				if strings.Contains(res.Body, "<script>") {
					t.Error("the path came back unescaped")
				}
			})
		}
	}
}
