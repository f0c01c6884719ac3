package main

// Hostile requests, sent both through the local gateway (over HTTP, behind
// the server make local runs) and straight to each function's Lambda
// handler as the API Gateway proxy event it would get: control bytes and
// invalid UTF-8 in path ids, filters from 1 byte to 64 KB, wrong types for
// every parameter and create field, deep nesting, bodies at and just over
// 1 MiB, duplicate keys, odd header bytes, every method on every path.
// Every answer is the documented one — the expected status and the
// documented JSON shape (or the right success) — never a 5xx; the refused
// requests write nothing to any table and call no provider.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestHostileRequests sends every hostile case through the gateway and to
// the functions' Lambda handlers, then checks that nothing was written and
// no provider was called.
func TestHostileRequests(t *testing.T) {
	f := newHostileFixture(t)
	before := f.itemCounts(t)
	calls := f.providerCalls()

	var cases []hostileCase
	cases = append(cases, f.pathIDCases()...)
	cases = append(cases, f.filterCases()...)
	cases = append(cases, f.createCases()...)
	cases = append(cases, f.webhookCases(time.Now())...)
	cases = append(cases, f.headerCases()...)
	cases = append(cases, f.methodCases()...)

	sentGateway, sentLambda := 0, 0
	for _, c := range cases {
		providersBefore := f.providerCalls()
		checkAnswer(t, c, c.status, f.viaGateway(t, c))
		sentGateway++
		if !c.skipLambda {
			want := c.status
			if c.lambda != 0 {
				want = c.lambda
			}
			if a, ok := f.viaLambda(t, c); ok {
				checkAnswer(t, c, want, a)
				sentLambda++
			}
		}
		if n := f.providerCalls() - providersBefore; n != 0 {
			t.Errorf("%s: %d provider calls", c.name, n)
		}
	}
	t.Logf("%d requests through the gateway, %d to the Lambda handlers", sentGateway, sentLambda)
	if sentGateway+sentLambda < 300 {
		t.Errorf("only %d hostile requests", sentGateway+sentLambda)
	}

	after := f.itemCounts(t)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("table %s: %d items before, %d after the hostile requests", table, n, after[table])
		}
	}
	if n := f.providerCalls() - calls; n != 0 {
		t.Errorf("%d provider calls in all", n)
	}
}

// TestHostileAuthorizerEvents sends the authorizer's Lambda handler odd
// Authorization headers, as API Gateway would pass them: each is refused
// with exactly "Unauthorized" (API Gateway's 401), never another error;
// the key itself is allowed.
func TestHostileAuthorizerEvents(t *testing.T) {
	f := newHostileFixture(t)
	authorize, err := boot.As[boot.AuthorizerHandler]("authorizer", providers{}.deps(f.st, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{
		"empty": "", "invalid UTF-8": "Bearer \xff\xfe", "NUL": "Bearer \x00", "newline": "Bearer " + f.key + "\n" + f.key,
		"64 KB": "Bearer " + strings.Repeat("k", 64<<10), "Basic": "Basic dXNlcjpwYXNz", "prefix only": "Bearer evs_",
		"unknown key": "Bearer evs_" + strings.Repeat("A", 43), "key with a control byte": "Bearer " + f.key[:20] + "\x01" + f.key[21:],
	}
	for b := 0; b < 0x20; b++ {
		headers[fmt.Sprintf("control 0x%02X", b)] = "Bearer " + string([]byte{byte(b)})
	}
	for name, h := range headers {
		ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Type: "REQUEST", MethodArn: "arn:aws:execute-api:me-south-1:123456789012:abc/dev/GET/api/v1/entities",
			Headers: map[string]string{"Authorization": h},
		}
		if _, err := authorize(context.Background(), ev); !errors.Is(err, auth.ErrUnauthorized) || err.Error() != "Unauthorized" {
			t.Errorf("%s: %v, want Unauthorized", name, err)
		}
	}
	resp, err := authorize(context.Background(), events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type: "REQUEST", MethodArn: "arn:aws:execute-api:me-south-1:123456789012:abc/dev/GET/api/v1/entities",
		Headers: map[string]string{"authorization": " Bearer " + f.key + " "},
	})
	if err != nil || len(resp.PolicyDocument.Statement) != 1 || resp.PolicyDocument.Statement[0].Effect != "Allow" {
		t.Errorf("the key: %+v, %v", resp, err)
	}
}

// TestHostileIntegrationTimeout: the deliberate 5xx. A function that sleeps
// past the gateway's integration timeout is answered 504 in the error shape
// (INTEGRATION_TIMEOUT), at the timeout.
func TestHostileIntegrationTimeout(t *testing.T) {
	f := newHostileFixture(t)
	f.gw.Timeout = 200 * time.Millisecond
	list := f.gw.Functions["list-entities"]
	f.gw.Functions["list-entities"] = func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		time.Sleep(time.Second)
		return list(ctx, ev)
	}
	start := time.Now()
	a := f.viaGateway(t, hostileCase{name: "slow list", method: "GET", path: "/api/v1/entities"})
	took := time.Since(start)
	var body api.ErrorBody
	if a.status != http.StatusGatewayTimeout || json.Unmarshal(a.body, &body) != nil || body.Error.Code != domain.ECodeGatewayTimeout ||
		string(bytes.TrimSpace(a.body)) != deploy.GatewayResponseOf("INTEGRATION_TIMEOUT").Body() {
		t.Errorf("%d %s, want 504 %s", a.status, a.body, deploy.GatewayResponseOf("INTEGRATION_TIMEOUT").Body())
	}
	if took >= time.Second {
		t.Errorf("answered after %v: the gateway waited for the function", took)
	}
}

// TestHostileShortBody: a create whose body is shorter than its
// Content-Length gets 400 JSON within the gateway's read timeout (it used
// to hang for ever), runs no function and writes nothing.
func TestHostileShortBody(t *testing.T) {
	f := newHostileFixture(t)
	f.gw.ReadTimeout = 300 * time.Millisecond
	before := f.itemCounts(t)
	body := `{"entity": {"registration_number": "7001234560", "country_code": "SA"}}`
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(body[:20])) // and then nothing more
	}()
	req, _ := http.NewRequest("POST", f.url+"/api/v1/entities", pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set("Content-Type", "application/json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	resp, err := checkedClient(t).Do(apitest.Hostile(req.WithContext(ctx)))
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	defer resp.Body.Close()
	defer pw.Close()
	got, _ := io.ReadAll(resp.Body)
	checkAnswer(t, hostileCase{name: "short body", method: "POST", code: domain.ECodeBadRequest}, http.StatusBadRequest, answer{resp.StatusCode, resp.Header, got})
	if took := time.Since(start); took > f.gw.ReadTimeout+2*time.Second {
		t.Errorf("answered after %v; the read timeout is %v", took, f.gw.ReadTimeout)
	}
	after := f.itemCounts(t)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("table %s: %d items, then %d", table, n, after[table])
		}
	}
	if f.providerCalls() != 0 {
		t.Errorf("%d provider calls", f.providerCalls())
	}
}

// TestHostileRegistrationNormalisation: one normalisation for create,
// filter and lookup. A number created with spaces around it, or in lower
// case, is listed by the filter however it is spelled, and is taken.
func TestHostileRegistrationNormalisation(t *testing.T) {
	f := newHostileFixture(t)
	create := func(number, country string) answer {
		body, _ := json.Marshal(map[string]any{"entity": map[string]string{"registration_number": number, "country_code": country}})
		return f.viaGateway(t, hostileCase{name: "create " + number, method: "POST", path: "/api/v1/entities", body: body,
			header: map[string]string{"Content-Type": "application/json"}})
	}
	count := func(query string) int {
		a := f.viaGateway(t, hostileCase{name: "list " + query, method: "GET", path: "/api/v1/entities", query: query})
		var v struct {
			Entities []struct {
				RegistrationNumber string `json:"registration_number"`
			} `json:"entities"`
		}
		if a.status != 200 || json.Unmarshal(a.body, &v) != nil {
			t.Fatalf("list %s: %d %s", query, a.status, a.body)
		}
		return len(v.Entities)
	}
	for _, tt := range []struct{ created, country, stored string }{
		{" 7001234560 ", "SA", "7001234560"},
		{"cn-0042", "AE", "CN-0042"},
	} {
		if a := create(tt.created, tt.country); a.status != http.StatusCreated || !strings.Contains(string(a.body), `"registration_number":"`+tt.stored+`"`) {
			t.Fatalf("create %q: %d %.300s, want 201 stored as %s", tt.created, a.status, a.body, tt.stored)
		}
		for _, spelled := range []string{tt.stored, url.QueryEscape(tt.created), url.QueryEscape(strings.ToLower(tt.stored)), "%09" + tt.stored + "%0A"} {
			if n := count("registration_number=" + spelled); n != 1 {
				t.Errorf("registration_number=%s lists %d entities, want the one created as %q", spelled, n, tt.created)
			}
		}
		if a := create(strings.ToLower(tt.stored)+" ", tt.country); a.status != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), domain.MsgRegistrationTaken) {
			t.Errorf("the same number again: %d %s, want 422 %s", a.status, a.body, domain.MsgRegistrationTaken)
		}
	}
}
