package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestSupervisorRestartsALostServer(t *testing.T) {
	var (
		mu                  sync.Mutex
		up                  = map[string]bool{"a": true, "b": true}
		restarts            int
		backs               []string
		failRecoveryOfB     = 2 // OnBack of b fails this many times first
		restartBringsBackIn = 3 // probes after a restart before the server answers
		wait                int
	)
	probe := func(name string) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			if !up[name] {
				if wait > 0 {
					if wait--; wait == 0 {
						up[name] = true
					}
				}
				return errors.New("connection refused")
			}
			return nil
		}
	}
	s := &supervisor{
		Watch:        []watched{{Name: "a", Probe: probe("a")}, {Name: "b", Probe: probe("b")}},
		Interval:     5 * time.Millisecond,
		RestartEvery: time.Millisecond,
		Restart: func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			restarts++
			if wait == 0 { // a server on its way up is not started twice
				wait = restartBringsBackIn
			}
			return nil
		},
		OnBack: func(_ context.Context, name string) error {
			mu.Lock()
			defer mu.Unlock()
			if name == "b" && failRecoveryOfB > 0 {
				failRecoveryOfB--
				return errors.New("tables not ready")
			}
			backs = append(backs, name)
			return nil
		},
		Log: quietLogger(),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	mu.Lock()
	up["b"] = false
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(backs)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(backs) != 1 || backs[0] != "b" {
		t.Errorf("recovered %v, want [b] once (a never left)", backs)
	}
	if restarts < 1 {
		t.Error("no restart while b was lost")
	}
	if failRecoveryOfB != 0 {
		t.Errorf("recovery of b tried too few times (%d failures left)", failRecoveryOfB)
	}
	if s.Lost() {
		t.Error("still lost after recovery")
	}
}
