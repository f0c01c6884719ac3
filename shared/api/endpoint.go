package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// serveFunc serves one matched, authenticated and permitted request.
type serveFunc func(w http.ResponseWriter, r *http.Request, p auth.Principal, params map[string]string) error

// endpoint wraps a function's one route with what every endpoint does the
// same way: 404 for other paths, 405 for other methods, 401 without a
// principal, 403 without the route's permission, errors through the one
// status table, and a 500 instead of a crash.
func endpoint(route deploy.Route, serve serveFunc) http.Handler {
	return endpointNoAuth(route, func(w http.ResponseWriter, r *http.Request, params map[string]string) error {
		p, ok := auth.FromContext(r.Context())
		if !ok {
			return domain.Errorf(domain.ECodeUnauthorized, "A valid API key is required: send Authorization: Bearer <key>.")
		}
		if !p.Can(route.Permission) {
			return domain.Errorf(domain.ECodeForbidden, "This API key lacks the %s permission.", route.Permission)
		}
		r = r.WithContext(logging.WithLogger(r.Context(), logging.From(r.Context()).With("account_id", p.AccountID)))
		return serve(w, r, p, params)
	})
}

// endpointNoAuth does what every route does: 404 for other paths, 405 for
// other methods, errors through the one status table, a 500 instead of a
// crash. The provider webhook uses it alone, as it authenticates each
// request by its signature.
func endpointNoAuth(route deploy.Route, serve func(w http.ResponseWriter, r *http.Request, params map[string]string) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		params, ok := deploy.MatchPath(route.Path, r.URL.Path)
		if !ok {
			writeError(w, r, domain.Errorf(domain.ECodeNotFound, "No such resource."))
			return
		}
		if r.Method != route.Method {
			w.Header().Set("Allow", strings.Join(deploy.AllowedMethods(r.URL.Path), ", "))
			writeError(w, r, domain.Errorf(domain.ECodeMethodNotAllowed, "%s is not allowed here; use %s.", r.Method, strings.Join(deploy.AllowedMethods(r.URL.Path), " or ")))
			return
		}
		if route.Budget > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), route.Budget)
			defer cancel()
			r = r.WithContext(ctx)
		}
		if err := serve(w, r, params); err != nil {
			writeError(w, r, err)
		}
	})
}
