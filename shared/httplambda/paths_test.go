package httplambda_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/httplambda"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// TestEscapePathRoundTrips: whatever bytes a decoded path holds, the URL
// the adapter builds from the escaped path has exactly that path, and no
// query or fragment cut out of it.
func TestEscapePathRoundTrips(t *testing.T) {
	paths := []string{"/api/v1/entities/150", "/api/v1/entities/150.md", "/a b/c%d/e?f#g", "/\xff\xfe/\xc0\xaf", "//x//", "/é/日本"}
	for b := 0; b < 256; b++ {
		paths = append(paths, "/api/v1/entities/1"+string([]byte{byte(b)}))
	}
	for _, p := range paths {
		u, err := url.Parse("https://api.example.com" + httplambda.EscapePath(p))
		if err != nil {
			t.Errorf("%q escaped as %q: %v", p, httplambda.EscapePath(p), err)
			continue
		}
		if u.Path != p || u.RawQuery != "" || u.Fragment != "" {
			t.Errorf("%q escaped as %q reads back as path %q, query %q, fragment %q", p, httplambda.EscapePath(p), u.Path, u.RawQuery, u.Fragment)
		}
	}
	if got := httplambda.EscapePath("/api/v1/entities/150.md"); got != "/api/v1/entities/150.md" {
		t.Errorf("an ordinary path escaped as %q", got)
	}
}

// hostileBytes are what a path may carry once API Gateway has decoded it:
// every control byte, invalid UTF-8, and the characters a URL gives a
// meaning of its own.
func hostileBytes() map[string]string {
	out := map[string]string{}
	for b := 0; b < 0x20; b++ {
		out[fmt.Sprintf("control 0x%02X", b)] = string([]byte{byte(b)})
	}
	out["control 0x7F"] = "\x7f"
	for name, s := range map[string]string{
		"invalid UTF-8 0xFF":         "\xff",
		"invalid UTF-8 continuation": "\x80",
		"overlong slash":             "\xc0\xaf",
		"UTF-16 surrogate":           "\xed\xa0\x80",
		"truncated euro sign":        "\xe2\x82",
		"percent":                    "%",
		"question mark":              "?",
		"hash":                       "#",
		"space":                      " ",
		"encoded newline, undecoded": "%0A",
	} {
		out[name] = s
	}
	return out
}

// stores are fakes that count what reaches them.
type stores struct{ calls int }

func (s *stores) ListEntities(context.Context, int64, domain.EntityFilter, int, int) (domain.EntityPage, error) {
	s.calls++
	return domain.EntityPage{Entities: []domain.Entity{}}, nil
}

func (s *stores) EntityDetail(_ context.Context, _, id int64) (domain.EntityDetail, error) {
	s.calls++
	if id != 7 {
		return domain.EntityDetail{}, domain.Errorf(domain.ECodeNotFound, "Entity not found.")
	}
	return domain.EntityDetail{Entity: domain.Entity{ID: 7, UpdatedAt: time.Unix(0, 0)}}, nil
}

func (s *stores) Review(_ context.Context, _, id int64) (domain.Review, error) {
	s.calls++
	if id != 7 {
		return domain.Review{}, domain.Errorf(domain.ECodeNotFound, "Review not found.")
	}
	return domain.Review{ID: 7, EntityID: 7, UpdatedAt: time.Unix(0, 0)}, nil
}

func (s *stores) Entity(_ context.Context, _, id int64) (domain.Entity, error) {
	s.calls++
	if id != 7 {
		return domain.Entity{}, domain.Errorf(domain.ECodeNotFound, "Entity not found.")
	}
	return domain.Entity{ID: 7, UpdatedAt: time.Unix(0, 0), DossierRev: 1}, nil
}

func (s *stores) Dossier(_ context.Context, e domain.Entity) (domain.EntityDetail, error) {
	s.calls++
	return domain.EntityDetail{Entity: e}, nil
}

func (s *stores) Check(context.Context, int64, int64) (domain.Check, error) {
	s.calls++
	return domain.Check{}, domain.Errorf(domain.ECodeNotFound, "Check not found.")
}

func (s *stores) EntityChecks(context.Context, int64, int64, int) ([]domain.Check, error) {
	s.calls++
	return nil, nil
}

func (s *stores) EntityReviews(context.Context, int64, int64, int) ([]domain.Review, error) {
	s.calls++
	return nil, nil
}

func (s *stores) WebhookSeen(context.Context, string, string, time.Time) (bool, error) {
	s.calls++
	return false, nil
}

func (s *stores) ReserveCheckIDs(context.Context, int64, int) ([]int64, error) {
	s.calls++
	return nil, errors.New("no check is reserved here")
}

func (s *stores) ApplyScreening(context.Context, domain.ScreeningUpdate) (bool, error) {
	s.calls++
	return false, nil
}

// creator refuses nothing and counts calls; a hostile path never gets here.
type creator struct {
	api.EntityCreator
	s *stores
}

func (c creator) CountryConfig(context.Context, int64, string) (domain.CountryConfig, error) {
	c.s.calls++
	return domain.CountryConfig{}, domain.Errorf(domain.ECodeNotFound, "not configured")
}

type noIntake struct{}

func (noIntake) Intake(context.Context, checks.IntakeInput) domain.EntityDetail {
	panic("intake ran")
}

// lambdaHandlers builds each API function's Lambda handler as its main.go
// does, over the fakes.
func lambdaHandlers(s *stores) map[string]httplambda.Handler {
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	countries := country.ISO()
	secrets, _ := webhooks.ParseSecrets("whsec_c2VjcmV0")
	return map[string]httplambda.Handler{
		"list-entities": httplambda.New(api.NewListEntities(s, countries), log),
		"create-entity": httplambda.New(api.NewCreateEntity(api.CreateEntity{Store: creator{s: s}, Intake: noIntake{}, Countries: countries, Clock: domain.SystemClock}), log),
		"get-entity":    httplambda.New(api.NewGetEntity(s, countries), log),
		"get-review":    httplambda.New(api.NewGetReview(s, countries), log),
		"provider-webhook": httplambda.New(api.NewProviderWebhook(api.ProviderWebhook{
			Secrets: map[string][]webhooks.Secret{checks.ProviderOpenSanctions: secrets},
			Screening: &screening.Service{
				Store:   s,
				Readers: map[string]screening.Reader{checks.ProviderOpenSanctions: &checks.Yente{}},
				Clock:   domain.SystemClock,
			},
			Clock: domain.SystemClock,
		}), log),
		"api-description": httplambda.New(api.NewDescription(), log),
	}
}

// proxyEvent is what API Gateway sends a function for a request on route
// at path (decoded), after the authorizer allowed account 1.
func proxyEvent(route deploy.Route, path string, params map[string]string, body string) events.APIGatewayProxyRequest {
	ev := events.APIGatewayProxyRequest{
		Resource: route.Path, Path: path, HTTPMethod: route.Method, PathParameters: params, Body: body,
		MultiValueHeaders: map[string][]string{"Host": {"abc123.execute-api.eu-west-1.amazonaws.com"}, "X-Forwarded-Proto": {"https"}, "Content-Type": {"application/json"}},
		RequestContext: events.APIGatewayProxyRequestContext{
			RequestID: "req-hostile", Stage: "dev", Path: "/dev" + path, ResourcePath: route.Path, HTTPMethod: route.Method,
			DomainName: "abc123.execute-api.eu-west-1.amazonaws.com",
		},
	}
	if !route.Public {
		ev.RequestContext.Authorizer = auth.Principal{AccountID: 1, KeyPrefix: "evs_abcdef",
			Permissions: []string{domain.PermEntityView, domain.PermEntityCreate, domain.PermReviewView}}.AuthorizerContext()
	}
	return ev
}

// pathWith puts s into route's path: as (part of) its parameter, or after
// the path of a route without one.
func pathWith(route deploy.Route, s string) []struct {
	path   string
	params map[string]string
} {
	type p = struct {
		path   string
		params map[string]string
	}
	name, hasParam := strings.CutPrefix(route.Path[strings.LastIndex(route.Path, "/")+1:], "{")
	if !hasParam {
		return []p{{route.Path + s, nil}, {route.Path + "/" + s, nil}}
	}
	name = strings.TrimSuffix(name, "}")
	prefix := route.Path[:strings.LastIndex(route.Path, "/")+1]
	var out []p
	for _, v := range []string{s, "7" + s, s + "7", "7.md" + s, "opensanctions" + s} {
		out = append(out, p{prefix + v, map[string]string{name: v}})
	}
	return out
}

// TestHostilePathsAre404JSON sends every function's Lambda handler proxy
// events whose path holds each control byte, invalid UTF-8 and URL
// punctuation: each answer is the handler's own 404 not_found JSON — the
// answer to an unknown id — never a Lambda error (API Gateway's 502), and
// nothing reaches the store.
func TestHostilePathsAre404JSON(t *testing.T) {
	s := &stores{}
	handlers := lambdaHandlers(s)
	for _, route := range deploy.Routes() {
		if route.Browser {
			continue // web pages answer HTML: shared/settings' TestHostilePaths
		}
		h := handlers[route.Function]
		for name, b := range hostileBytes() {
			for _, c := range pathWith(route, b) {
				t.Run(fmt.Sprintf("%s/%s/%q", route.Function, name, c.path), func(t *testing.T) {
					before := s.calls
					resp, err := h(context.Background(), proxyEvent(route, c.path, c.params, "{}"))
					if err != nil {
						t.Fatalf("Lambda error (API Gateway answers 502): %v", err)
					}
					var body api.ErrorBody
					if resp.StatusCode != http.StatusNotFound || json.Unmarshal([]byte(resp.Body), &body) != nil ||
						body.Error.Code != domain.ECodeNotFound || body.Error.Message == "" {
						t.Fatalf("%d %s, want 404 not_found JSON", resp.StatusCode, resp.Body)
					}
					if ct := http.Header(resp.MultiValueHeaders).Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
						t.Errorf("Content-Type %q", ct)
					}
					if s.calls != before {
						t.Errorf("the store was called %d times", s.calls-before)
					}
				})
			}
		}
	}
}

// TestOrdinaryPathsStillServed: escaping changes nothing for the paths API
// Gateway really routes; each handler serves its route.
func TestOrdinaryPathsStillServed(t *testing.T) {
	handlers := lambdaHandlers(&stores{})
	routes := map[string]deploy.Route{}
	for _, r := range deploy.Routes() {
		routes[r.Function] = r
	}
	tests := []struct {
		function, path string
		params         map[string]string
		status         int
		contentType    string
	}{
		{"list-entities", "/api/v1/entities", nil, http.StatusOK, "application/json"},
		{"get-entity", "/api/v1/entities/7", map[string]string{"id": "7"}, http.StatusOK, "application/json"},
		{"get-entity", "/api/v1/entities/7.md", map[string]string{"id": "7.md"}, http.StatusOK, "text/markdown"},
		{"get-entity", "/api/v1/entities/8", map[string]string{"id": "8"}, http.StatusNotFound, "application/json"},
		{"get-review", "/api/v1/entity_reviews/7", map[string]string{"id": "7"}, http.StatusOK, "application/json"},
		// Reaches the handler: the body names no entity.
		{"create-entity", "/api/v1/entities", nil, http.StatusUnprocessableEntity, "application/json"},
		// Reaches the handler: a known provider, no signature.
		{"provider-webhook", "/webhooks/opensanctions", map[string]string{"provider": "opensanctions"}, http.StatusUnauthorized, "application/json"},
		{"api-description", "/openapi.yaml", nil, http.StatusOK, "application/yaml"},
	}
	for _, tt := range tests {
		resp, err := handlers[tt.function](context.Background(), proxyEvent(routes[tt.function], tt.path, tt.params, "{}"))
		if err != nil || resp.StatusCode != tt.status {
			t.Errorf("%s %s: %d %v %.200s, want %d", tt.function, tt.path, resp.StatusCode, err, resp.Body, tt.status)
		}
		if ct := http.Header(resp.MultiValueHeaders).Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
			t.Errorf("%s %s: Content-Type %q, want %s", tt.function, tt.path, ct, tt.contentType)
		}
	}
}

// TestUnreadableEventIsJSON: an event the adapter cannot turn into a
// request at all (here a body that claims base64 and is not) is a 400 JSON
// answer, not a Lambda error.
func TestUnreadableEventIsJSON(t *testing.T) {
	route, _ := deploy.RouteFor("create-entity")
	ev := proxyEvent(route, "/api/v1/entities", nil, "not base64!")
	ev.IsBase64Encoded = true
	resp, err := lambdaHandlers(&stores{})["create-entity"](context.Background(), ev)
	var body api.ErrorBody
	if err != nil || resp.StatusCode != http.StatusBadRequest || json.Unmarshal([]byte(resp.Body), &body) != nil || body.Error.Code != domain.ECodeBadRequest {
		t.Errorf("%d %v %s, want 400 bad_request JSON", resp.StatusCode, err, resp.Body)
	}
}
