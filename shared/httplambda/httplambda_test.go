package httplambda_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/httplambda"
)

type emptyLister struct{ total int }

func (l emptyLister) ListEntities(context.Context, int64, domain.EntityFilter, int, int) (domain.EntityPage, error) {
	return domain.EntityPage{Entities: []domain.Entity{}, Total: l.total}, nil
}

// TestProxyEvent runs the list handler from an event shaped as API Gateway
// sends it for the execute-api URL of stage "prod": the principal comes from
// the authorizer context and links keep the stage in their path.
func TestProxyEvent(t *testing.T) {
	h := httplambda.New(api.NewListEntities(emptyLister{total: 120}, country.ISO()), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	ev := events.APIGatewayProxyRequest{
		Resource: "/api/v1/entities", Path: "/api/v1/entities", HTTPMethod: "GET",
		MultiValueHeaders:               map[string][]string{"Host": {"abc123.execute-api.eu-west-1.amazonaws.com"}, "X-Forwarded-Proto": {"https"}, "X-Forwarded-Prefix": {"/evil"}},
		MultiValueQueryStringParameters: map[string][]string{"per_page": {"50"}},
		RequestContext: events.APIGatewayProxyRequestContext{
			RequestID: "req-1", Stage: "prod", Path: "/prod/api/v1/entities", DomainName: "abc123.execute-api.eu-west-1.amazonaws.com",
			Authorizer: map[string]any{"principalId": "evs_abcdef", "account_id": "7", "permissions": "entity.view", "key_prefix": "evs_abcdef"},
		},
	}
	resp, err := h(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, resp.Body)
	}
	link := http.Header(resp.MultiValueHeaders).Get("Link")
	want := "<https://abc123.execute-api.eu-west-1.amazonaws.com/prod/api/v1/entities?page=2&per_page=50>; rel=\"next\""
	if len(link) < len(want) || link[:len(want)] != want {
		t.Errorf("Link = %q, want it to start with %q", link, want)
	}

	// Without an authorizer context (never behind API Gateway) the answer is 401.
	ev.RequestContext.Authorizer = nil
	resp, _ = h(context.Background(), ev)
	var body api.ErrorBody
	if resp.StatusCode != 401 || json.Unmarshal([]byte(resp.Body), &body) != nil || body.Error.Code != "unauthorized" {
		t.Errorf("no principal: %d %s", resp.StatusCode, resp.Body)
	}
}
