package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestSupervisorRestartsAnUnreadyEngine: the supervisor's yente probe
// fails while /readyz answers other than 200 (a reindex, its node gone)
// and when nothing answers; two failures in a row make the engine lost,
// which runs the stack's start, and a ready answer makes it back.
func TestSupervisorRestartsAnUnreadyEngine(t *testing.T) {
	var ready atomic.Bool
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || !ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer engine.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // an address nothing answers

	probes := []struct {
		name  string
		url   string
		ready bool
		ok    bool
	}{
		{"ready", engine.URL, true, true},
		{"reindexing", engine.URL, false, false},
		{"gone", down.URL, true, false},
	}
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			ready.Store(p.ready)
			if err := probeYente(p.url)(context.Background()); (err == nil) != p.ok {
				t.Errorf("probe answered %v, want ok=%v", err, p.ok)
			}
		})
	}

	ready.Store(false)
	var restarts atomic.Int32
	sup := &supervisor{
		Watch:    []watched{{Name: "yente", Endpoint: engine.URL, Probe: probeYente(engine.URL)}},
		Interval: 10 * time.Millisecond, RestartEvery: 10 * time.Millisecond, Log: quietLogger(),
		Restart: func(context.Context) error { restarts.Add(1); ready.Store(true); return nil },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go sup.Run(ctx)
	for restarts.Load() == 0 || sup.Lost() {
		if ctx.Err() != nil {
			t.Fatalf("after 5 s: %d restarts, lost %v", restarts.Load(), sup.Lost())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
