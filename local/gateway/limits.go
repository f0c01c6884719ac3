package gateway

import (
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/capped"
)

// The gateway's limits. README "Local" lists them next to API Gateway's.
const (
	// MaxBody is API Gateway's payload limit, 10 MB: a larger body is 413
	// JSON (REQUEST_TOO_LARGE) and no function runs.
	MaxBody = 10 << 20
	// DefaultTimeout is API Gateway's integration timeout.
	DefaultTimeout = 29 * time.Second
	// DefaultReadTimeout: a request has this long to arrive, body included.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout: an answer has this long to be written.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout: a kept-alive connection may idle this long.
	DefaultIdleTimeout = 120 * time.Second
)

// Server returns an HTTP server serving g with g's read, write and idle
// timeouts, as make local runs it. Its own write deadline leaves room for
// the whole exchange (reading, the integration, writing); g sets tighter
// deadlines on each request itself, so the limits hold under any server.
func (g *Gateway) Server() *http.Server {
	read, write := durationOr(g.ReadTimeout, DefaultReadTimeout), durationOr(g.WriteTimeout, DefaultWriteTimeout)
	return &http.Server{
		Handler:           g,
		ReadHeaderTimeout: read,
		ReadTimeout:       read,
		WriteTimeout:      read + g.timeout() + write,
		IdleTimeout:       durationOr(g.IdleTimeout, DefaultIdleTimeout),
	}
}

func durationOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// readBody reads the whole body, as API Gateway does before it invokes
// anything: a status to answer instead when the body is over MaxBody (413)
// or cannot be read in full within the read timeout, or ends before its
// Content-Length (400).
func (g *Gateway) readBody(r *http.Request, reqID string) ([]byte, int) {
	if r.ContentLength > MaxBody {
		return nil, http.StatusRequestEntityTooLarge
	}
	body, more, err := capped.Read(r.Body, MaxBody)
	switch {
	case err != nil:
		g.Log.Info("gateway: request body unreadable", "request_id", reqID, "error", err.Error())
		return nil, http.StatusBadRequest
	case more:
		return nil, http.StatusRequestEntityTooLarge
	}
	return body, 0
}

// write gives writing an answer its own deadline, counted from now.
func (g *Gateway) write(w http.ResponseWriter, answer func() int) int {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(durationOr(g.WriteTimeout, DefaultWriteTimeout)))
	return answer()
}

func (g *Gateway) timeout() time.Duration { return durationOr(g.Timeout, DefaultTimeout) }
