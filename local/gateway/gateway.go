// Package gateway plays API Gateway's REST API on one machine: for each HTTP
// request it finds the route, runs the REQUEST authorizer's Lambda handler,
// builds the proxy event (payload 1.0) with the authorizer's context, runs the
// function's Lambda handler and writes back its proxy response. The handlers
// are the very ones the functions run in Lambda.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/logging"
)

// AuthorizerFunc is the authorizer's Lambda handler.
type AuthorizerFunc func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)

// ProxyFunc is a function's Lambda handler.
type ProxyFunc func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// Gateway is an http.Handler standing in for API Gateway.
type Gateway struct {
	Authorizer AuthorizerFunc
	// Functions by name (the directory under functions/).
	Functions map[string]ProxyFunc
	Log       *slog.Logger
	// Timeout is API Gateway's integration timeout (29 s by default).
	Timeout time.Duration
	// AuthorizerCacheTTL keeps an accepted key's policy, as API Gateway's
	// authorizer result cache does (keyed by the Authorization header); zero
	// turns the cache off.
	AuthorizerCacheTTL time.Duration

	mu    sync.Mutex
	cache map[string]cachedPolicy
}

type cachedPolicy struct {
	resp    events.APIGatewayCustomAuthorizerResponse
	expires time.Time
}

const (
	stage     = "local"
	apiID     = "local"
	accountID = "000000000000"
	// maxBody is API Gateway's payload limit.
	maxBody = 10 << 20
)

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	reqID := newRequestID()
	status := g.serve(w, r, reqID)
	g.Log.Info("gateway", "request_id", reqID, "method", r.Method, "path", r.URL.Path, "status", status, "ms", time.Since(start).Milliseconds())
}

func (g *Gateway) serve(w http.ResponseWriter, r *http.Request, reqID string) int {
	route, ok := g.route(r)
	if !ok {
		return g.gatewayResponse(w, "MISSING_AUTHENTICATION_TOKEN", 0)
	}
	fn, ok := g.Functions[route.Function]
	if !ok {
		return g.gatewayResponse(w, "MISSING_AUTHENTICATION_TOKEN", 0)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return g.gatewayResponse(w, "DEFAULT_4XX", http.StatusRequestEntityTooLarge)
	}
	params, _ := api.MatchPath(route.Path, r.URL.Path)
	ev := g.proxyEvent(r, route, params, body, reqID)

	ctx, cancel := context.WithTimeout(r.Context(), g.timeout())
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: newRequestID()})
	// In Lambda the functions log through the default logger their init sets.
	ctx = logging.WithLogger(ctx, g.Log)

	if route.Public {
		// No authorizer: the function authenticates the request itself.
		return g.invoke(ctx, w, fn, route, ev, reqID)
	}
	// API Gateway checks the identity source before calling the authorizer:
	// no Authorization header is a 401 without an invocation.
	if r.Header.Get("Authorization") == "" {
		return g.gatewayResponse(w, "UNAUTHORIZED", 0)
	}
	authz, err := g.authorize(ctx, authorizerEvent(ev))
	switch {
	case errors.Is(err, auth.ErrUnauthorized) || (err != nil && err.Error() == "Unauthorized"):
		return g.gatewayResponse(w, "UNAUTHORIZED", 0)
	case err != nil:
		g.Log.Error("gateway: authorizer failed", "request_id", reqID, "error", err.Error())
		return g.gatewayResponse(w, "DEFAULT_5XX", http.StatusInternalServerError)
	case !allows(authz.PolicyDocument, ev):
		return g.gatewayResponse(w, "ACCESS_DENIED", 0)
	}
	ev.RequestContext.Authorizer = map[string]any{"principalId": authz.PrincipalID}
	for k, v := range authz.Context {
		ev.RequestContext.Authorizer[k] = v
	}

	return g.invoke(ctx, w, fn, route, ev, reqID)
}

func (g *Gateway) invoke(ctx context.Context, w http.ResponseWriter, fn ProxyFunc, route api.Route, ev events.APIGatewayProxyRequest, reqID string) int {
	resp, err := fn(ctx, ev)
	if err != nil {
		// A function error is a 502 from API Gateway.
		g.Log.Error("gateway: function failed", "request_id", reqID, "function", route.Function, "error", err.Error())
		return g.gatewayResponse(w, "DEFAULT_5XX", http.StatusBadGateway)
	}
	return writeProxyResponse(w, resp)
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

func (g *Gateway) timeout() time.Duration {
	if g.Timeout > 0 {
		return g.Timeout
	}
	return 29 * time.Second
}

// route picks the route for a request: the route with the request's method,
// else the first route on the path (API Gateway's ANY method, whose function
// answers 405).
func (g *Gateway) route(r *http.Request) (api.Route, bool) {
	var onPath []api.Route
	for _, rt := range api.Routes() {
		if _, ok := api.MatchPath(rt.Path, r.URL.Path); ok {
			if rt.Method == r.Method {
				return rt, true
			}
			onPath = append(onPath, rt)
		}
	}
	if len(onPath) > 0 {
		return onPath[0], true
	}
	return api.Route{}, false
}

func (g *Gateway) gatewayResponse(w http.ResponseWriter, typ string, status int) int {
	gr := api.GatewayResponseOf(typ)
	if gr.Status != 0 {
		status = gr.Status
	}
	body := []byte(gr.Body())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", typ)
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
	return status
}

func (g *Gateway) proxyEvent(r *http.Request, route api.Route, params map[string]string, body []byte, reqID string) events.APIGatewayProxyRequest {
	headers := map[string]string{}
	mvHeaders := map[string][]string{}
	for k, vs := range r.Header {
		headers[k] = vs[len(vs)-1]
		mvHeaders[k] = vs
	}
	sourceIP, _, _ := net.SplitHostPort(r.RemoteAddr)
	fwd := map[string]string{"X-Forwarded-Proto": "http", "X-Forwarded-For": sourceIP, "Host": r.Host}
	for k, v := range fwd {
		headers[k] = v
		mvHeaders[k] = []string{v}
	}
	var query map[string]string
	var mvQuery map[string][]string
	if q := r.URL.Query(); len(q) > 0 {
		query, mvQuery = map[string]string{}, map[string][]string{}
		for k, vs := range q {
			query[k] = vs[len(vs)-1]
			mvQuery[k] = vs
		}
	}
	ev := events.APIGatewayProxyRequest{
		Resource:                        route.Path,
		Path:                            r.URL.Path,
		HTTPMethod:                      r.Method,
		Headers:                         headers,
		MultiValueHeaders:               mvHeaders,
		QueryStringParameters:           query,
		MultiValueQueryStringParameters: mvQuery,
		PathParameters:                  params,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:    accountID,
			ResourceID:   route.Function,
			Stage:        stage,
			RequestID:    reqID,
			Identity:     events.APIGatewayRequestIdentity{SourceIP: sourceIP, UserAgent: r.UserAgent()},
			ResourcePath: route.Path,
			Path:         r.URL.Path,
			HTTPMethod:   r.Method,
			APIID:        apiID,
			DomainName:   r.Host,
			Protocol:     r.Proto,
		},
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return ev
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

func writeProxyResponse(w http.ResponseWriter, resp events.APIGatewayProxyResponse) int {
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		w.Header().Del(k)
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if b, err := base64.StdEncoding.DecodeString(resp.Body); err == nil {
			body = b
		}
	}
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusBadGateway
	}
	w.WriteHeader(status)
	w.Write(body)
	return status
}

func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
