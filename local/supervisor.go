package main

// Supervision of the servers `up` depends on. DynamoDB Local and ElasticMQ
// are separate JVMs that can die under `up` (killed, out of memory, a
// laptop's sleep): the supervisor notices that one stops answering, starts
// it again through local/stack/stack.sh (which starts only what is not
// running), and once it answers again has the tables, the queues and the
// pollers put back in order, so that nobody has to restart `up` by hand.

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// watched is a server the supervisor keeps an eye on.
type watched struct {
	Name     string
	Endpoint string // for the logs
	// Probe answers nil when the server answers its API.
	Probe func(ctx context.Context) error
}

type supervisor struct {
	Watch []watched
	// Interval between probes; default 500ms.
	Interval time.Duration
	// FailAfter is how many probes in a row must fail before a server is
	// lost; default 2, so that one slow answer (a JVM's pause) is not an
	// outage.
	FailAfter int
	// Restart starts whatever is not running (stack.sh start); it is called
	// while a server is lost, at most every RestartEvery.
	Restart      func(ctx context.Context) error
	RestartEvery time.Duration // default 5s
	// OnBack puts things back in order once the server answers again
	// (tables, queues, pollers). Until it succeeds the server stays lost
	// and it is called again on the next probe.
	OnBack func(ctx context.Context, name string) error
	Log    *slog.Logger

	mu       sync.Mutex
	lostAt   map[string]time.Time // servers lost, since when
	fails    map[string]int
	lastTry  time.Time
	restarts int
}

// Run probes until ctx ends.
func (s *supervisor) Run(ctx context.Context) {
	s.mu.Lock()
	s.lostAt, s.fails = map[string]time.Time{}, map[string]int{}
	s.mu.Unlock()
	t := time.NewTicker(durationOr(s.Interval, 500*time.Millisecond))
	defer t.Stop()
	for {
		s.check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check probes every server once, restarts what is lost and recovers what
// is back.
func (s *supervisor) check(ctx context.Context) {
	anyLost := false
	for _, w := range s.Watch {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := w.Probe(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		since, lost := s.lostAt[w.Name]
		s.mu.Unlock()
		switch {
		case err != nil && !lost:
			s.mu.Lock()
			s.fails[w.Name]++
			n := s.fails[w.Name]
			if n >= s.failAfter() {
				s.lostAt[w.Name], lost = time.Now(), true
			}
			s.mu.Unlock()
			if lost {
				s.log().Warn("server lost: not answering; restarting it with local/stack/stack.sh start", "server", w.Name, "endpoint", w.Endpoint, "error", err.Error())
			}
		case err == nil && lost:
			if s.OnBack != nil {
				if err := s.OnBack(ctx, w.Name); err != nil {
					if ctx.Err() == nil {
						s.log().Warn("server answers again, but recovery failed; retrying", "server", w.Name, "error", err.Error())
					}
					anyLost = true
					continue
				}
			}
			s.mu.Lock()
			delete(s.lostAt, w.Name)
			s.fails[w.Name] = 0
			s.mu.Unlock()
			lost = false
			s.log().Info("server back", "server", w.Name, "endpoint", w.Endpoint, "away", time.Since(since).Round(100*time.Millisecond).String())
		case err == nil:
			s.mu.Lock()
			s.fails[w.Name] = 0
			s.mu.Unlock()
		}
		anyLost = anyLost || lost
	}
	if anyLost && s.Restart != nil && time.Since(s.lastTry) >= durationOr(s.RestartEvery, 5*time.Second) {
		s.lastTry = time.Now()
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
		if err := s.Restart(ctx); err != nil && ctx.Err() == nil {
			s.log().Error("restart failed; trying again", "error", err.Error())
		}
		s.lastTry = time.Now() // the next try counts from the end of this one
	}
}

// Lost reports whether any server is lost now.
func (s *supervisor) Lost() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lostAt) > 0
}

// Restarts is how many times Restart was called.
func (s *supervisor) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

func (s *supervisor) failAfter() int {
	if s.FailAfter > 0 {
		return s.FailAfter
	}
	return 2
}

func (s *supervisor) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

func durationOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
