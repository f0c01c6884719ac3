package gateway

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

type cachedPolicy struct {
	resp    events.APIGatewayCustomAuthorizerResponse
	expires time.Time
}

// authorize runs the authorizer unless the cache holds an answer for the
// same Authorization header. Only accepted keys are cached.
func (g *Gateway) authorize(ctx context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	header := ev.Headers["Authorization"]
	for k, v := range ev.Headers {
		if strings.EqualFold(k, "Authorization") {
			header = v
		}
	}
	now := time.Now()
	if g.AuthorizerCacheTTL > 0 {
		g.mu.Lock()
		c, ok := g.cache[header]
		g.mu.Unlock()
		if ok && now.Before(c.expires) {
			return c.resp, nil
		}
	}
	resp, err := g.Authorizer(ctx, ev)
	if err == nil && g.AuthorizerCacheTTL > 0 {
		g.mu.Lock()
		if g.cache == nil {
			g.cache = map[string]cachedPolicy{}
		}
		g.cache[header] = cachedPolicy{resp: resp, expires: now.Add(g.AuthorizerCacheTTL)}
		g.mu.Unlock()
	}
	return resp, err
}

func authorizerEvent(ev events.APIGatewayProxyRequest) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	return events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:                            "REQUEST",
		MethodArn:                       methodARN(ev.HTTPMethod, ev.Path),
		Resource:                        ev.Resource,
		Path:                            ev.Path,
		HTTPMethod:                      ev.HTTPMethod,
		Headers:                         ev.Headers,
		MultiValueHeaders:               ev.MultiValueHeaders,
		QueryStringParameters:           ev.QueryStringParameters,
		MultiValueQueryStringParameters: ev.MultiValueQueryStringParameters,
		PathParameters:                  ev.PathParameters,
		RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
			Path: ev.Path, AccountID: accountID, ResourceID: ev.RequestContext.ResourceID, Stage: stage,
			RequestID: ev.RequestContext.RequestID, ResourcePath: ev.Resource, HTTPMethod: ev.HTTPMethod, APIID: apiID,
			Identity: events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{SourceIP: ev.RequestContext.Identity.SourceIP},
		},
	}
}

func methodARN(method, path string) string {
	return fmt.Sprintf("arn:aws:execute-api:us-east-1:%s:%s/%s/%s%s", accountID, apiID, stage, method, path)
}

// allows evaluates the authorizer's policy for the request's method ARN, with
// the '*' and '?' wildcards of IAM resource patterns.
func allows(p events.APIGatewayCustomAuthorizerPolicy, ev events.APIGatewayProxyRequest) bool {
	arn := methodARN(ev.HTTPMethod, ev.Path)
	allowed := false
	for _, st := range p.Statement {
		for _, res := range st.Resource {
			if wildcardMatch(res, arn) {
				if strings.EqualFold(st.Effect, "Deny") {
					return false
				}
				allowed = allowed || strings.EqualFold(st.Effect, "Allow")
			}
		}
	}
	return allowed
}

func wildcardMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if wildcardMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && wildcardMatch(pattern[1:], s[1:])
	default:
		return s != "" && s[0] == pattern[0] && wildcardMatch(pattern[1:], s[1:])
	}
}
