package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startUp runs the built command line's `up` (with args) in dir, as a
// person runs it, its output kept in logDir, and returns once it serves
// on port: the demo's names written to demoDir and its API answering.
// stop interrupts it and waits for it, printing its output when the test
// failed; it is the caller's to call (a cleanup, or between two runs).
func startUp(t *testing.T, bin, dir, logDir, demoDir, port string, env []string, args ...string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	up := exec.CommandContext(ctx, bin, append([]string{"up"}, args...)...)
	up.Dir, up.Env = dir, env
	log, err := os.Create(filepath.Join(logDir, "up.log"))
	if err != nil {
		t.Fatal(err)
	}
	up.Stdout, up.Stderr = log, log
	up.Cancel = func() error { return up.Process.Signal(os.Interrupt) }
	// Dies with the test binary too (a test run that times out runs no
	// cleanup): its supervisor would otherwise start servers again.
	up.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	up.WaitDelay = 10 * time.Second
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- up.Wait() }()
	stop = func() {
		cancel()
		<-exited
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("up's output:\n%s", b)
		}
	}
	// Seeding the demo takes a while on a busy machine: up to two minutes,
	// unless up ends first.
	deadline := time.Now().Add(2 * time.Minute)
	for !serving(demoDir, port) {
		select {
		case err := <-exited:
			exited <- err
			stop()
			t.Fatalf("up ended before serving: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatal("up not serving after two minutes")
		}
	}
	return stop
}

// serving: up wrote the demo's names and its API answers.
func serving(demoDir, port string) bool {
	if _, err := os.Stat(filepath.Join(demoDir, "demo.env")); err != nil {
		return false
	}
	res, err := http.Get("http://127.0.0.1:" + port + "/api/v1/entities")
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusUnauthorized
}
