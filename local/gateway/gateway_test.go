package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

func TestWildcardMatch(t *testing.T) {
	arn := "arn:aws:execute-api:us-east-1:000000000000:local/local/GET/api/v1/entities"
	tests := []struct {
		pattern string
		want    bool
	}{
		{"arn:aws:execute-api:us-east-1:000000000000:local/local/*", true},
		{"arn:aws:execute-api:us-east-1:000000000000:local/local/GET/*", true},
		{"arn:aws:execute-api:us-east-1:000000000000:local/local/POST/*", false},
		{"arn:aws:execute-api:us-east-1:000000000000:local/other/*", false},
		{"*", true},
		{"arn:aws:execute-api:us-east-1:000000000000:local/local/GET/api/v1/entitie?", true},
	}
	for _, tt := range tests {
		if got := wildcardMatch(tt.pattern, arn); got != tt.want {
			t.Errorf("wildcardMatch(%q) = %v", tt.pattern, got)
		}
	}
}

// TestAuthorizerCalls checks the gateway's side of authorization: no header
// is refused without an invocation, an accepted key is cached, a refused one
// is not, and a Deny policy is a 403.
func TestAuthorizerCalls(t *testing.T) {
	calls := 0
	g := &Gateway{
		Log:                slog.New(slog.NewJSONHandler(io.Discard, nil)),
		AuthorizerCacheTTL: time.Minute,
		Authorizer: func(_ context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			calls++
			effect := "Allow"
			switch req.Headers["Authorization"] {
			case "Bearer bad":
				return events.APIGatewayCustomAuthorizerResponse{}, errors.New("Unauthorized")
			case "Bearer broken":
				return events.APIGatewayCustomAuthorizerResponse{}, errors.New("table not found")
			case "Bearer deny":
				effect = "Deny"
			}
			return events.APIGatewayCustomAuthorizerResponse{
				PrincipalID:    "p",
				PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Statement: []events.IAMPolicyStatement{{Effect: effect, Action: []string{"execute-api:Invoke"}, Resource: []string{"*"}}}},
				Context:        map[string]any{"account_id": "1"},
			}, nil
		},
		Functions: map[string]ProxyFunc{"list-entities": func(_ context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			if ev.RequestContext.Authorizer["account_id"] != "1" || ev.RequestContext.Authorizer["principalId"] != "p" {
				return events.APIGatewayProxyResponse{StatusCode: 500}, nil
			}
			return events.APIGatewayProxyResponse{StatusCode: 200, Body: "ok"}, nil
		}},
	}
	tests := []struct {
		auth      string
		status    int
		callsMade int
	}{
		{"", 401, 0},
		{"Bearer good", 200, 1},
		{"Bearer good", 200, 0}, // cached
		{"Bearer bad", 401, 1},
		{"Bearer bad", 401, 1}, // refusals are not cached
		{"Bearer deny", 403, 1},
		{"Bearer broken", 500, 1},
	}
	for _, tt := range tests {
		before := calls
		req := httptest.NewRequest("GET", "/api/v1/entities", nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != tt.status || calls-before != tt.callsMade {
			t.Errorf("%q: status %d after %d authorizer calls; want %d after %d", tt.auth, rec.Code, calls-before, tt.status, tt.callsMade)
		}
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest("GET", "/nowhere", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown path: %d", rec.Code)
	}
}
