// Package gateway plays API Gateway's REST API on one machine: for each HTTP
// request it finds the route, runs the REQUEST authorizer's Lambda handler,
// builds the proxy event (payload 1.0) with the authorizer's context, runs the
// function's Lambda handler and writes back its proxy response. The handlers
// are the very ones the functions run in Lambda.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/logging"
)

// AuthorizerFunc is the authorizer's Lambda handler.
type AuthorizerFunc func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)

// ProxyFunc is a function's Lambda handler.
type ProxyFunc func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// Gateway is an http.Handler standing in for API Gateway.
//
// Its limits are API Gateway's where API Gateway publishes one (the 29 s
// integration timeout, the 10 MB payload) and otherwise bounded so that no
// client can hold a connection forever. Zero fields take the defaults below;
// tests shorten them.
type Gateway struct {
	Authorizer AuthorizerFunc
	// Functions by name (the directory under functions/).
	Functions map[string]ProxyFunc
	Log       *slog.Logger
	// Timeout is API Gateway's integration timeout (DefaultTimeout): a
	// function that has not answered by then is answered 504 JSON
	// (INTEGRATION_TIMEOUT) and left to finish, as Lambda is.
	Timeout time.Duration
	// ReadTimeout bounds reading a request, headers and body
	// (DefaultReadTimeout). A body that does not arrive in full by then —
	// shorter than its Content-Length, say — is answered 400 JSON.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing an answer once it is known
	// (DefaultWriteTimeout), so a client that stops reading is let go.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends no request
	// (DefaultIdleTimeout); it applies to the server Server returns.
	IdleTimeout time.Duration
	// AuthorizerCacheTTL keeps an accepted key's policy, as API Gateway's
	// authorizer result cache does (keyed by the Authorization header); zero
	// turns the cache off.
	AuthorizerCacheTTL time.Duration
	// DocsFile is the API reference's HTML (make docs: build/docs/index.html),
	// served at DocsPath; none when empty.
	DocsFile string

	mu    sync.Mutex
	cache map[string]cachedPolicy
}

const (
	stage     = "local"
	apiID     = "local"
	accountID = "000000000000"
)

// ServeHTTP serves one request and writes its access line, the local
// stand-in for API Gateway's access log, unless the functions already wrote
// a warning or an error about the request: that line says what happened and
// why (a forged provider webhook: "provider webhook refused" with its
// reason and status), and locally both would go to the same log, so the
// access line would only repeat it. On AWS the function's line is in the
// function's log and the access log is API Gateway's own.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	reqID := newRequestID()
	var warned atomic.Bool
	status, docs := g.serveDocs(w, r)
	if !docs {
		status = g.serve(w, r, reqID, slog.New(notingHandler{g.Log.Handler(), &warned}))
	}
	if warned.Load() {
		return
	}
	// The path is the client's: bounded, so that no request costs the log
	// more than a line of a few hundred bytes (an unknown path of 100 KB).
	g.Log.Info("gateway", "request_id", reqID, "method", logging.Bounded(r.Method), "path", logging.Bounded(r.URL.Path), "status", status, "ms", time.Since(start).Milliseconds())
}

// notingHandler passes records on and notes whether one at warning level or
// above went through.
type notingHandler struct {
	slog.Handler
	warned *atomic.Bool
}

func (h notingHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.warned.Store(true)
	}
	return h.Handler.Handle(ctx, r)
}

func (h notingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return notingHandler{h.Handler.WithAttrs(attrs), h.warned}
}

func (h notingHandler) WithGroup(name string) slog.Handler {
	return notingHandler{h.Handler.WithGroup(name), h.warned}
}

// serve answers the request; fnLog is the logger the functions get.
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request, reqID string, fnLog *slog.Logger) int {
	rc := http.NewResponseController(w)
	// Deadlines on this request's connection, whatever server runs g; a
	// writer that cannot take deadlines (a test recorder) has no network.
	_ = rc.SetReadDeadline(time.Now().Add(durationOr(g.ReadTimeout, DefaultReadTimeout)))
	route, ok := g.route(r)
	if !ok {
		return g.gatewayResponse(w, "MISSING_AUTHENTICATION_TOKEN", 0)
	}
	fn, ok := g.Functions[route.Function]
	if !ok {
		return g.gatewayResponse(w, "MISSING_AUTHENTICATION_TOKEN", 0)
	}
	body, status := g.readBody(r, reqID)
	if status != 0 {
		// The connection cannot be reused: the rest of the body is unread.
		w.Header().Set("Connection", "close")
		if status == http.StatusRequestEntityTooLarge {
			return g.gatewayResponse(w, "REQUEST_TOO_LARGE", 0)
		}
		return g.gatewayResponse(w, "DEFAULT_4XX", status)
	}
	params, _ := deploy.MatchPath(route.Path, r.URL.Path)
	ev := g.proxyEvent(r, route, params, body, reqID)

	// A Lambda invocation does not end when its caller hangs up: the
	// function's context ends with the integration timeout alone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), g.timeout())
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: newRequestID()})
	// In Lambda the functions log through the default logger their init sets.
	ctx = logging.WithLogger(ctx, fnLog)

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

// invoke runs the function, waiting at most until ctx's deadline (the
// integration timeout): then the answer is 504 JSON and the function runs on
// unwatched, as a Lambda function outlives API Gateway's patience.
func (g *Gateway) invoke(ctx context.Context, w http.ResponseWriter, fn ProxyFunc, route deploy.Route, ev events.APIGatewayProxyRequest, reqID string) int {
	type answer struct {
		resp events.APIGatewayProxyResponse
		err  error
	}
	done := make(chan answer, 1) // buffered: a function past its timeout never blocks
	go func() {
		resp, err := fn(ctx, ev)
		done <- answer{resp, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		g.Log.Error("gateway: integration timeout", "request_id", reqID, "function", route.Function, "timeout", g.timeout().String())
		return g.write(w, func() int { return g.gatewayResponse(w, "INTEGRATION_TIMEOUT", 0) })
	}
	if a.err != nil {
		// A function error is a 502 from API Gateway.
		g.Log.Error("gateway: function failed", "request_id", reqID, "function", route.Function, "error", a.err.Error())
		return g.write(w, func() int { return g.gatewayResponse(w, "DEFAULT_5XX", http.StatusBadGateway) })
	}
	return g.write(w, func() int { return writeProxyResponse(w, a.resp) })
}

// route picks the route for a request: the route with the request's method,
// else the first route on the path (API Gateway's ANY method, whose function
// answers 405).
func (g *Gateway) route(r *http.Request) (deploy.Route, bool) {
	var onPath []deploy.Route
	for _, rt := range deploy.Routes() {
		if _, ok := deploy.MatchPath(rt.Path, r.URL.Path); ok {
			if rt.Method == r.Method {
				return rt, true
			}
			onPath = append(onPath, rt)
		}
	}
	if len(onPath) > 0 {
		return onPath[0], true
	}
	return deploy.Route{}, false
}

func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
