package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Route is one method on one API Gateway resource, served by one function.
type Route struct {
	Method string
	// Path is the API Gateway resource path; {name} matches one segment,
	// including a ".md" suffix.
	Path string
	// Function is the directory under functions/ that serves it.
	Function   string
	Permission string
	// Public routes have no API key and no authorizer: they authenticate
	// each request themselves (the provider webhook, by its signature), or
	// serve what anyone may read (the API's description).
	Public bool
	// Browser routes are web pages for people (the settings area and the
	// operator console, which authenticate by their session cookie), not
	// the JSON API: the API's description (shared/api/openapi.yaml) leaves
	// them out.
	Browser bool
	// Budget bounds the request: every AWS call it makes carries this
	// deadline, kept below the function's timeout and API Gateway's 29 s,
	// so a stalled dependency is answered 503, never left to hang.
	Budget time.Duration
}

// SettingsPath is the settings area's root resource.
const SettingsPath = "/settings"

// ConsolePath is the operator console's root resource, served by the
// web function beside the settings area: one origin for both, so
// operators' passkeys and sessions are the same on either.
const ConsolePath = "/console"

// ProviderWebhookPath is the inbound provider webhook's resource.
const ProviderWebhookPath = "/webhooks/{provider}"

// OpenAPIPath is the resource of the API's OpenAPI description, at the
// stage's root beside /api/v1.
const OpenAPIPath = "/openapi.yaml"

// Request budgets: reads, and the create (which waits for providers).
const (
	ReadBudget = 8 * time.Second
	// CreateBudget leaves room for a lost commit's read-back or a failed
	// create's clean-up (2 s) under API Gateway's 29 s.
	CreateBudget = 24 * time.Second
)

// BasePath prefixes every API route.
const BasePath = "/api/v1"

// AuthorizerCacheTTL is how long API Gateway (and the local gateway) keeps
// the authorizer's answer for an Authorization header. A revoked key stops
// working within this time.
const AuthorizerCacheTTL = 60 * time.Second

// Routes is the whole API surface.
func Routes() []Route {
	return []Route{
		{Method: "GET", Path: BasePath + "/entities", Function: "list-entities", Permission: domain.PermEntityView, Budget: ReadBudget},
		{Method: "POST", Path: BasePath + "/entities", Function: "create-entity", Permission: domain.PermEntityCreate, Budget: CreateBudget},
		{Method: "GET", Path: BasePath + "/entities/{id}", Function: "get-entity", Permission: domain.PermEntityView, Budget: ReadBudget},
		{Method: "GET", Path: BasePath + "/entity_reviews/{id}", Function: "get-review", Permission: domain.PermReviewView, Budget: ReadBudget},
		{Method: "POST", Path: ProviderWebhookPath, Function: "provider-webhook", Public: true, Budget: ReadBudget},
		// No budget: it serves bytes built into the function, calling nothing.
		{Method: "GET", Path: OpenAPIPath, Function: "api-description", Public: true},
		// The settings area: its root, and its pages and forms under one
		// greedy resource.
		{Method: "GET", Path: SettingsPath, Function: "web", Public: true, Browser: true, Budget: ReadBudget},
		{Method: "GET", Path: SettingsPath + "/{proxy+}", Function: "web", Public: true, Browser: true, Budget: ReadBudget},
		{Method: "POST", Path: SettingsPath + "/{proxy+}", Function: "web", Public: true, Browser: true, Budget: ReadBudget},
		// The operator console, the same way: its root, and its pages,
		// forms and passkey ceremonies under one greedy resource.
		{Method: "GET", Path: ConsolePath, Function: "web", Public: true, Browser: true, Budget: ReadBudget},
		{Method: "GET", Path: ConsolePath + "/{proxy+}", Function: "web", Public: true, Browser: true, Budget: ReadBudget},
		{Method: "POST", Path: ConsolePath + "/{proxy+}", Function: "web", Public: true, Browser: true, Budget: ReadBudget},
	}
}

// RouteFor returns the route a function serves.
func RouteFor(function string) (Route, bool) {
	for _, r := range Routes() {
		if r.Function == function {
			return r, true
		}
	}
	return Route{}, false
}

// MustRoute returns the route a function serves, for building its handler
// at init: a function without a route is a wiring mistake, so it panics,
// naming the function, before any request can reach a zero route.
func MustRoute(function string) Route {
	r, ok := RouteFor(function)
	if !ok {
		panic(fmt.Sprintf("deploy: function %q serves no route", function))
	}
	return r
}

// MatchPath reports whether a request path matches a resource path, and the
// values of its {params}. A last segment {name+} is API Gateway's greedy
// parameter: it takes the rest of the path, one segment or more, slashes
// included.
func MatchPath(resource, path string) (map[string]string, bool) {
	rs := strings.Split(strings.Trim(resource, "/"), "/")
	ps := strings.Split(strings.Trim(path, "/"), "/")
	if path == "" || path[0] != '/' {
		return nil, false
	}
	if last := rs[len(rs)-1]; strings.HasPrefix(last, "{") && strings.HasSuffix(last, "+}") {
		// Fold the rest of the path into one value for {name}.
		n := len(rs) - 1
		if len(ps) <= n {
			return nil, false
		}
		ps = append(ps[:n:n], strings.Join(ps[n:], "/"))
		rs = append(rs[:n:n], "{"+last[1:len(last)-2]+"}")
	}
	if len(rs) != len(ps) {
		return nil, false
	}
	params := map[string]string{}
	for i, seg := range rs {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if ps[i] == "" {
				return nil, false
			}
			params[seg[1:len(seg)-1]] = ps[i]
			continue
		}
		if seg != ps[i] {
			return nil, false
		}
	}
	return params, true
}

// AllowedMethods lists the methods the API serves on a request path, for a
// 405's Allow header; empty when no route has the path.
func AllowedMethods(path string) []string {
	var out []string
	for _, r := range Routes() {
		if _, ok := MatchPath(r.Path, path); ok {
			out = append(out, r.Method)
		}
	}
	return out
}

// GatewayResponse is an answer API Gateway gives itself, before or instead of
// a function. Its body has the same shape as the functions' errors.
type GatewayResponse struct {
	// Type is the API Gateway gateway response type.
	Type    string
	Status  int
	Code    string
	Message string
}

// GatewayResponses are configured on the REST API by the CDK stack and played
// by the local gateway.
func GatewayResponses() []GatewayResponse {
	return []GatewayResponse{
		{Type: "UNAUTHORIZED", Status: 401, Code: domain.ECodeUnauthorized, Message: "A valid API key is required: send Authorization: Bearer <key>."},
		{Type: "ACCESS_DENIED", Status: 403, Code: domain.ECodeForbidden, Message: "This API key may not do this."},
		// API Gateway answers an unknown path with MISSING_AUTHENTICATION_TOKEN.
		{Type: "MISSING_AUTHENTICATION_TOKEN", Status: 404, Code: domain.ECodeNotFound, Message: "No such resource."},
		{Type: "THROTTLED", Status: 429, Code: "rate_limited", Message: "Too many requests; retry later."},
		// A body over API Gateway's 10 MB payload limit, refused before any function runs.
		{Type: "REQUEST_TOO_LARGE", Status: 413, Code: domain.ECodeTooLarge, Message: "The request body is larger than the 10 MB the API accepts."},
		// The function did not answer within the 29 s integration timeout.
		{Type: "INTEGRATION_TIMEOUT", Status: 504, Code: domain.ECodeGatewayTimeout, Message: "The service did not answer in time; retry shortly."},
		{Type: "DEFAULT_4XX", Status: 0, Code: "bad_request", Message: "The request was refused."},
		{Type: "DEFAULT_5XX", Status: 0, Code: domain.ECodeInternal, Message: "An internal error occurred."},
	}
}

// GatewayResponseOf returns the gateway response of a type.
func GatewayResponseOf(typ string) GatewayResponse {
	for _, g := range GatewayResponses() {
		if g.Type == typ {
			return g
		}
	}
	return GatewayResponse{Type: typ, Status: 500, Code: domain.ECodeInternal, Message: "An internal error occurred."}
}

// Body is the exact JSON body of the gateway response,
// {"error":{"code":"…","message":"…"}}, without HTML escaping: the CDK stack
// and the local gateway send these very bytes (template.yaml spells them out).
func (g GatewayResponse) Body() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// The shape of api.ErrorBody; api's tests hold the two together.
	type detail struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	enc.Encode(struct {
		Error detail `json:"error"`
	}{detail{g.Code, g.Message}})
	return strings.TrimSuffix(b.String(), "\n")
}
