// Package httplambda runs an http.Handler as a Lambda function behind API
// Gateway's REST API (proxy integration, payload 1.0), through
// aws-lambda-go-api-proxy. The local gateway calls the very same handler.
package httplambda

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/logging"
)

// Handler is a Lambda handler for API Gateway proxy events.
type Handler func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// New returns the Lambda handler serving h. Before h runs, each request gets
// a logger carrying the API Gateway and Lambda request ids, the principal the
// authorizer established (if any), and X-Forwarded-Prefix set to the part of
// the public path API Gateway strips (the stage), so links point back to it.
func New(h http.Handler, log *slog.Logger) Handler {
	adapter := httpadapter.New(prepare(h, log))
	return adapter.ProxyWithContext
}

func prepare(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		l := log
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
