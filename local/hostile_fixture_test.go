package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// hostileFixture is an account (Saudi Arabia and the UAE enabled) with a
// key of every permission and one entity with checks and reviews; the
// provider simulator, counting calls; the gateway behind its own server.
type hostileFixture struct {
	db       *dynamo.DB
	names    schema.Names
	st       *store.Store
	sim      *sim.Simulator
	gw       *gateway.Gateway
	url      string
	key      string
	account  int64
	entity   domain.EntityDetail
	secret   webhooks.Secret
	authzCtx map[string]any
}

func newHostileFixture(t *testing.T) *hostileFixture {
	t.Helper()
	f := &hostileFixture{db: devstack.DB()}
	f.names = devstacktest.Tables(t, f.db)
	f.st = store.New(f.db, f.names)
	e := &env{store: f.st, names: f.names, log: quietLogger()}
	f.account = mustAccount(t, e, "Hostile", "SA", "AE")
	perms := []string{domain.PermEntityView, domain.PermEntityCreate, domain.PermReviewView}
	f.key = mustKey(t, e, f.account, perms...)
	var err error
	if f.entity, err = f.st.CreateEntity(context.Background(), withAccount(richDetail("7000000010"), f.account)); err != nil {
		t.Fatal(err)
	}
	f.sim = &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()}
	simSrv := httptest.NewServer(f.sim)
	t.Cleanup(simSrv.Close)
	f.gw = newGateway(f.st, quietLogger(), simulatorProviders(simSrv.URL))
	srv := httptest.NewUnstartedServer(f.gw)
	srv.Config = f.gw.Server()
	srv.Start()
	t.Cleanup(srv.Close)
	f.url = srv.URL
	if f.secret, err = webhooks.ParseSecret(localWebhookSecret()); err != nil {
		t.Fatal(err)
	}
	// What the authorizer answers for f.key, as the direct events carry it.
	f.authzCtx = auth.Principal{AccountID: f.account, KeyPrefix: f.key[:10], Permissions: perms}.AuthorizerContext()
	return f
}

// itemCounts counts the items of every table of the fixture.
func (f *hostileFixture) itemCounts(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for id, name := range f.names {
		n, err := f.db.Table(name).Scan().Consistent(true).Count(context.Background())
		if err != nil {
			t.Fatalf("count %s: %v", name, err)
		}
		out[id] = n
	}
	return out
}

func (f *hostileFixture) providerCalls() int {
	return f.sim.Calls("wathq") + f.sim.Calls("opensanctions")
}

// answer is what came back, from the gateway or a Lambda handler.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (f *hostileFixture) viaGateway(t *testing.T, c hostileCase) answer {
	t.Helper()
	target := f.url + c.path
	if c.query != "" {
		target += "?" + c.query
	}
	req, err := http.NewRequest(c.method, target, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.body == nil {
		req.Body, req.ContentLength = nil, 0
	}
	if !c.noKey {
		req.Header.Set("Authorization", "Bearer "+f.key)
	}
	for k, v := range c.header {
		req.Header[http.CanonicalHeaderKey(k)] = []string{v} // as given: the client checks only what HTTP forbids
	}
	// Bad on purpose: only the answer is held to the description.
	resp, err := checkedClient(t).Do(apitest.Hostile(req))
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", c.name, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}

// lambdaEvent is the proxy event API Gateway would hand the function of
// c's route (chosen as API Gateway's ANY method does), after the
// authorizer accepted f.key; false when no route has c's path.
func (f *hostileFixture) lambdaEvent(t *testing.T, c hostileCase) (events.APIGatewayProxyRequest, deploy.Route, bool) {
	t.Helper()
	u, err := url.Parse("http://x" + c.path + "?" + c.query)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	var route deploy.Route
	found := false
	for _, r := range deploy.Routes() {
		if _, ok := deploy.MatchPath(r.Path, u.Path); ok && (!found || r.Method == c.method) {
			route, found = r, true
		}
	}
	if !found {
		return events.APIGatewayProxyRequest{}, deploy.Route{}, false
	}
	params, _ := deploy.MatchPath(route.Path, u.Path)
	host := "abc123.execute-api.me-south-1.amazonaws.com"
	ev := events.APIGatewayProxyRequest{
		Resource: route.Path, Path: u.Path, HTTPMethod: c.method, PathParameters: params,
		MultiValueHeaders: map[string][]string{"Host": {host}, "X-Forwarded-Proto": {"https"}},
		RequestContext: events.APIGatewayProxyRequestContext{
			RequestID: "hostile", Stage: "dev", Path: "/dev" + u.Path, ResourcePath: route.Path, HTTPMethod: c.method, DomainName: host,
		},
	}
	if q := u.Query(); len(q) > 0 {
		ev.MultiValueQueryStringParameters = q
	}
	for k, v := range c.header {
		ev.MultiValueHeaders[k] = []string{v}
	}
	if !route.Public {
		ev.RequestContext.Authorizer = f.authzCtx
	}
	if utf8.Valid(c.body) {
		ev.Body = string(c.body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(c.body), true
	}
	return ev, route, true
}

func (f *hostileFixture) viaLambda(t *testing.T, c hostileCase) (answer, bool) {
	t.Helper()
	ev, route, ok := f.lambdaEvent(t, c)
	if !ok {
		return answer{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 29*time.Second)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "hostile"})
	resp, err := f.gw.Functions[route.Function](ctx, ev)
	if err != nil {
		t.Fatalf("%s: Lambda error (API Gateway answers 502): %v", c.name, err)
	}
	header := http.Header{}
	for k, v := range resp.Headers {
		header.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		header[http.CanonicalHeaderKey(k)] = vs
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if body, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			t.Fatalf("%s: base64 body: %v", c.name, err)
		}
	}
	return answer{status: resp.StatusCode, header: header, body: body}, true
}
