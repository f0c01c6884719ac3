package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/deploy"
)

// limitsGateway serves the create route (authorized without a key check)
// and the public webhook route with fn, and counts the invocations.
func limitsGateway(fn ProxyFunc) (*Gateway, *atomic.Int32) {
	calls := &atomic.Int32{}
	counted := func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		calls.Add(1)
		return fn(ctx, ev)
	}
	g := &Gateway{
		Log: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Authorizer: func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			return events.APIGatewayCustomAuthorizerResponse{PrincipalID: "p", PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
				Statement: []events.IAMPolicyStatement{{Effect: "Allow", Resource: []string{"*"}}}}}, nil
		},
		Functions: map[string]ProxyFunc{"create-entity": counted, "provider-webhook": counted},
	}
	return g, calls
}

func echoLength(_ context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return events.APIGatewayProxyResponse{StatusCode: 200, Body: fmt.Sprint(len(ev.Body))}, nil
}

// serve starts g behind the server it configures, as make local runs it.
func serve(t *testing.T, g *Gateway) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(g)
	srv.Config = g.Server()
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// rawExchange writes raw bytes to the gateway, optionally half-closes, and
// reads one answer, with the time it took.
func rawExchange(t *testing.T, addr, request string, halfClose bool) (*http.Response, []byte, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second)) // the test's own bound
	start := time.Now()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	if halfClose {
		conn.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body, time.Since(start)
}

// wantGatewayResponse checks an answer is the gateway response typ, in the
// functions' error shape.
func wantGatewayResponse(t *testing.T, resp *http.Response, body []byte, typ string, status int) {
	t.Helper()
	gr := deploy.GatewayResponseOf(typ)
	var parsed api.ErrorBody
	if resp.StatusCode != status || json.Unmarshal(body, &parsed) != nil || parsed.Error.Code != gr.Code || parsed.Error.Message != gr.Message {
		t.Errorf("%d %s, want %d %s", resp.StatusCode, body, status, gr.Body())
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if resp.Header.Get("X-Amzn-ErrorType") != typ {
		t.Errorf("X-Amzn-ErrorType %q, want %s", resp.Header.Get("X-Amzn-ErrorType"), typ)
	}
}

// TestBodyLimit: API Gateway's 10 MB payload limit. A body declared or
// found larger is 413 JSON and runs no function; exactly 10 MB passes.
func TestBodyLimit(t *testing.T) {
	g, calls := limitsGateway(echoLength)
	addr := serve(t, g)

	head := "POST /api/v1/entities HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n"
	t.Run("declared over the limit", func(t *testing.T) {
		resp, body, _ := rawExchange(t, addr, head+fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxBody+1), false)
		wantGatewayResponse(t, resp, body, "REQUEST_TOO_LARGE", http.StatusRequestEntityTooLarge)
	})
	t.Run("chunked over the limit", func(t *testing.T) {
		chunk := strings.Repeat("x", 1<<20)
		var b strings.Builder
		b.WriteString(head + "Transfer-Encoding: chunked\r\n\r\n")
		for i := 0; i <= MaxBody/len(chunk); i++ {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(chunk), chunk)
		}
		b.WriteString("0\r\n\r\n")
		resp, body, _ := rawExchange(t, addr, b.String(), false)
		wantGatewayResponse(t, resp, body, "REQUEST_TOO_LARGE", http.StatusRequestEntityTooLarge)
	})
	if calls.Load() != 0 {
		t.Errorf("a refused body ran the function %d times", calls.Load())
	}
	t.Run("exactly the limit", func(t *testing.T) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/api/v1/entities", strings.NewReader(strings.Repeat("x", MaxBody)))
		req.Header.Set("Authorization", "Bearer k")
		g.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Body.String() != fmt.Sprint(MaxBody) {
			t.Errorf("%d %.100s, want the function to get %d bytes", rec.Code, rec.Body, MaxBody)
		}
	})
}

// TestShortBody: a body shorter than its Content-Length is answered 400
// JSON: at once when the client ends its side, within the read timeout
// when it just stops sending. It never hangs, and no function runs.
func TestShortBody(t *testing.T) {
	g, calls := limitsGateway(echoLength)
	g.ReadTimeout = 300 * time.Millisecond
	addr := serve(t, g)
	for _, path := range []string{"/api/v1/entities", "/webhooks/opensanctions"} {
		request := "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Length: 100\r\n\r\n{\"entity\":"
		for _, halfClose := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s half-closed %v", path, halfClose), func(t *testing.T) {
				resp, body, took := rawExchange(t, addr, request, halfClose)
				wantGatewayResponse(t, resp, body, "DEFAULT_4XX", http.StatusBadRequest)
				if took > g.ReadTimeout+2*time.Second {
					t.Errorf("answered after %v; the read timeout is %v", took, g.ReadTimeout)
				}
				if !resp.Close {
					t.Error("no Connection: close, though the unread rest of the body makes the connection unusable")
				}
			})
		}
	}
	if calls.Load() != 0 {
		t.Errorf("a short body ran the function %d times", calls.Load())
	}
}

// TestIntegrationTimeout: a function that sleeps past the integration
// timeout is answered 504 JSON (INTEGRATION_TIMEOUT) at the timeout, for
// authorized and public routes alike; a function that answers in time is
// unaffected.
func TestIntegrationTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	sleeper := func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		if ev.Body == "quick" {
			return events.APIGatewayProxyResponse{StatusCode: 201, Body: "made"}, nil
		}
		<-release // sleeps past any timeout, as a stuck function does
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	}
	g, _ := limitsGateway(sleeper)
	g.Timeout = 100 * time.Millisecond
	addr := serve(t, g)
	for _, path := range []string{"/api/v1/entities", "/webhooks/opensanctions"} {
		t.Run(path, func(t *testing.T) {
			resp, body, took := rawExchange(t, addr, "POST "+path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Length: 4\r\n\r\nslow", false)
			wantGatewayResponse(t, resp, body, "INTEGRATION_TIMEOUT", http.StatusGatewayTimeout)
			if took < g.Timeout || took > g.Timeout+2*time.Second {
				t.Errorf("answered after %v; the integration timeout is %v", took, g.Timeout)
			}
			resp, body, _ = rawExchange(t, addr, "POST "+path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Length: 5\r\n\r\nquick", false)
			if resp.StatusCode != 201 || string(body) != "made" {
				t.Errorf("a quick function: %d %s", resp.StatusCode, body)
			}
		})
	}
}

// TestSilentClientsAreLetGo: a connection that never completes its
// headers, or idles between requests, is closed by the server within the
// gateway's read and idle timeouts.
func TestSilentClientsAreLetGo(t *testing.T) {
	g, _ := limitsGateway(echoLength)
	g.ReadTimeout, g.IdleTimeout = 200*time.Millisecond, 300*time.Millisecond
	addr := serve(t, g)
	for _, tt := range []struct {
		name, send string
		within     time.Duration
	}{
		{"headers never finished", "POST /api/v1/entities HTTP/1.1\r\nHost: x\r\n", g.ReadTimeout},
		{"idle after a request", "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", g.IdleTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			start := time.Now()
			io.WriteString(conn, tt.send)
			io.Copy(io.Discard, conn) // returns when the server closes
			if took := time.Since(start); took > tt.within+2*time.Second {
				t.Errorf("closed after %v, want within %v", took, tt.within)
			}
		})
	}
}

// TestServerTimeouts: the server carries the gateway's timeouts, their
// defaults unless set; its write deadline covers reading, the integration
// and writing.
func TestServerTimeouts(t *testing.T) {
	srv := (&Gateway{}).Server()
	if srv.ReadTimeout != DefaultReadTimeout || srv.ReadHeaderTimeout != DefaultReadTimeout || srv.IdleTimeout != DefaultIdleTimeout ||
		srv.WriteTimeout != DefaultReadTimeout+DefaultTimeout+DefaultWriteTimeout {
		t.Errorf("defaults: read %v, header %v, write %v, idle %v", srv.ReadTimeout, srv.ReadHeaderTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	if DefaultTimeout != 29*time.Second || MaxBody != 10<<20 {
		t.Errorf("API Gateway's integration timeout is 29 s and its payload limit 10 MB: %v, %d", DefaultTimeout, MaxBody)
	}
	g := &Gateway{Timeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 3 * time.Second, IdleTimeout: 4 * time.Second}
	srv = g.Server()
	if srv.Handler != g || srv.ReadTimeout != 2*time.Second || srv.WriteTimeout != 6*time.Second || srv.IdleTimeout != 4*time.Second {
		t.Errorf("set: read %v, write %v, idle %v", srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
}
