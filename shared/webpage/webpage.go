// Package webpage is the web function's shell: one server for the
// service's server-rendered areas (the operator console, the settings
// area), holding what every page shares — the router, the session cookie
// and its lookup, CSRF, action ids, the message pages, rendering with one
// layout and one stylesheet, the security headers, static files and the
// stage prefix. An area is a route table and its pages, mounted on a
// Server with Mount; a change to sign-in, CSRF or the layout is made here
// once and every area shows it.
package webpage

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/evs-kyb/evs/shared/logging"
)

// ForwardedHTTPS reports whether the request came over TLS, directly or as
// API Gateway says in X-Forwarded-Proto.
func ForwardedHTTPS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// prefixPattern is a stage prefix as httplambda sets it ("/prod"); anything
// else in the header is ignored, so no link or redirect can leave the site.
var prefixPattern = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+$`)

// StagePrefix is the stage's prefix as the browser sees it (X-Forwarded-
// Prefix behind API Gateway), or "" when there is none or it is not one.
func StagePrefix(r *http.Request) string {
	p := r.Header.Get("X-Forwarded-Prefix")
	if len(p) > 200 || !prefixPattern.MatchString(p) {
		return ""
	}
	return p
}

// Redirect sends the browser on with a GET (303): after every change, and
// after a sign-in.
func Redirect(w http.ResponseWriter, path string) {
	w.Header().Set("Location", path)
	w.WriteHeader(http.StatusSeeOther)
}

// RequestID is the request's id as the logs name it: API Gateway's, else
// Lambda's.
func RequestID(ctx context.Context) string {
	if gw, ok := core.GetAPIGatewayContextFromContext(ctx); ok && gw.RequestID != "" {
		return gw.RequestID
	}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		return lc.AwsRequestID
	}
	return ""
}

// Logger is the request's logger: the one its context carries (with the
// request id), else fallback, else slog's default.
func Logger(r *http.Request, fallback *slog.Logger) *slog.Logger {
	if l, ok := logging.Lookup(r.Context()); ok {
		return l
	}
	if fallback != nil {
		return fallback
	}
	return slog.Default()
}
