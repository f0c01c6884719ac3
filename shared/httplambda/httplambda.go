// Package httplambda runs an http.Handler as a Lambda function behind API
// Gateway's REST API (proxy integration, payload 1.0), through
// aws-lambda-go-api-proxy. The local gateway calls the very same handler.
package httplambda

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Handler is a Lambda handler for API Gateway proxy events.
type Handler func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// New returns the Lambda handler serving h. Before h runs, each request gets
// a logger carrying the API Gateway and Lambda request ids, the principal the
// authorizer established (if any), and X-Forwarded-Prefix set to the part of
// the public path API Gateway strips (the stage), so links point back to it.
//
// API Gateway hands over the path percent-decoded: "/api/v1/entities/1%0A"
// arrives as "/api/v1/entities/1\n". The adapter pastes that path into a URL
// and parses it, which fails on a control byte or a stray '%' (a Lambda
// error, so a 502) and cuts the path at '?' or '#' (so another route
// answers). The path is therefore escaped first: h sees r.URL.Path exactly
// as API Gateway sent it, and its own route and id checks answer 404 JSON.
func New(h http.Handler, log *slog.Logger) Handler {
	adapter := httpadapter.New(prepare(h, log))
	return func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		ev.Path = EscapePath(ev.Path)
		resp, err := adapter.ProxyWithContext(ctx, ev)
		if err != nil {
			// What is left is an event no client could have caused (a bad
			// method, host or base64 body): still a JSON answer, never a
			// function error.
			log.Error("unreadable API Gateway event", "error", err.Error(), "method", ev.HTTPMethod)
			return badEvent(), nil
		}
		return resp, nil
	}
}

// EscapePath percent-encodes a decoded request path so that parsing it as a
// URL gives back the very same bytes as its path: every byte that is not
// allowed as such in a path (control bytes, '%', '?', '#', space, non-ASCII
// and invalid UTF-8) is escaped; '/' separates segments as before.
func EscapePath(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}

// badEvent is the answer to an event that cannot be turned into a request.
func badEvent() events.APIGatewayProxyResponse {
	body, _ := json.Marshal(map[string]map[string]string{"error": {"code": domain.ECodeBadRequest, "message": "The request could not be read."}})
	return events.APIGatewayProxyResponse{
		StatusCode:        http.StatusBadRequest,
		MultiValueHeaders: map[string][]string{"Content-Type": {"application/json; charset=utf-8"}},
		Body:              string(body) + "\n",
	}
}

func prepare(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		l := log
		// A logger the invoker handed over wins: in Lambda there is none;
		// the local gateway hands one that notes the request's warnings,
		// so that its access line does not repeat them.
		if given, ok := logging.Lookup(ctx); ok {
			l = given
		}
		gw, hasGW := core.GetAPIGatewayContextFromContext(ctx)
		if hasGW {
			l = l.With("request_id", gw.RequestID)
		}
		if lc, ok := lambdacontext.FromContext(ctx); ok {
			l = l.With("aws_request_id", lc.AwsRequestID)
		}
		r.Header.Del("X-Forwarded-Prefix")
		if hasGW {
			if prefix, ok := strings.CutSuffix(gw.Path, r.URL.Path); ok && prefix != "" {
				r.Header.Set("X-Forwarded-Prefix", prefix)
			}
			if len(gw.Authorizer) > 0 {
				p, err := auth.PrincipalFromAuthorizer(gw.Authorizer)
				if err != nil {
					l.Error("unreadable authorizer context", "error", err)
				} else {
					ctx = auth.NewContext(ctx, p)
				}
			}
		}
		ctx = logging.WithLogger(ctx, l)
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
