package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// refusedDial is the error a real dial to a port nobody listens on gives,
// as the SDK meets it when DynamoDB Local is down.
func refusedDial(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
		t.Skip("something listens on the port just closed")
	}
	return err
}

func TestWriteErrorMapsUnreachableDependencies(t *testing.T) {
	// The shape the AWS SDK gives: operation error wrapping a send error
	// wrapping the dial's *net.OpError.
	sdkLike := func(err error) error {
		return fmt.Errorf("operation error DynamoDB: PutItem, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed: %w", err)
	}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	noRoute := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EHOSTUNREACH)}
	tests := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter bool
	}{
		{"connection refused", sdkLike(refusedDial(t)), 503, domain.ECodeUnavailable, true},
		{"refused, wrapped by the store", fmt.Errorf("create entity: %w", sdkLike(refusedDial(t))), 503, domain.ECodeUnavailable, true},
		{"connection reset", sdkLike(reset), 503, domain.ECodeUnavailable, true},
		{"no route to host", sdkLike(noRoute), 503, domain.ECodeUnavailable, true},
		{"any failed dial", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("i/o timeout")}, 503, domain.ECodeUnavailable, true},
		{"deadline exceeded", fmt.Errorf("query: %w", context.DeadlineExceeded), 503, domain.ECodeUnavailable, true},
		{"plain fault stays a 500", errors.New("marshal: unsupported type"), 500, domain.ECodeInternal, false},
		// A domain error says what it is, whatever it wraps.
		{"domain error wins", fmt.Errorf("%w: %w", domain.Errorf(domain.ECodeConflict, "busy"), syscall.ECONNREFUSED), 409, domain.ECodeConflict, false},
		{"refused errno alone", syscall.ECONNREFUSED, 503, domain.ECodeUnavailable, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			writeError(w, httptest.NewRequest(http.MethodPost, "/api/v1/entities", nil), tt.err)
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			var body ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code != tt.code {
				t.Errorf("body %s, want code %s", w.Body.String(), tt.code)
			}
			if got := w.Header().Get("Retry-After") != ""; got != tt.retryAfter {
				t.Errorf("Retry-After %q, want present=%v", w.Header().Get("Retry-After"), tt.retryAfter)
			}
		})
	}
}

// The gateway's own answers (deploy.GatewayResponses) have the body every
// function error has.
func TestGatewayResponsesHaveTheErrorBodyShape(t *testing.T) {
	for _, g := range deploy.GatewayResponses() {
		var got ErrorBody
		dec := json.NewDecoder(strings.NewReader(g.Body()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v", g.Type, err)
		}
		if want := (ErrorBody{Error: ErrorDetail{Code: g.Code, Message: g.Message}}); got != want {
			t.Errorf("%s: body %+v, want %+v", g.Type, got, want)
		}
	}
}
