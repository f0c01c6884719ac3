package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// cmdReceiver runs a webhook subscriber on 127.0.0.1, to watch the events
// the service posts: each delivery that verifies is printed on stdout as one
// JSON line, with its delivery id; the rest are refused and logged on
// stderr. It runs until interrupted.
func cmdReceiver(ctx context.Context, args []string) error {
	return runReceiver(ctx, args, os.Stdout, os.Stderr)
}

// receivedLine is what the receiver prints for a verified delivery: the
// event's own fields, flattened, after the delivery's.
type receivedLine struct {
	DeliveryID string `json:"delivery_id"`
	ReceivedAt string `json:"received_at"`
	receiver.Event
}

// pingLine is what it prints for a test event, whose body has no review.
type pingLine struct {
	DeliveryID string `json:"delivery_id"`
	ReceivedAt string `json:"received_at"`
	EventType  string `json:"event_type"`
	EndpointID int64  `json:"endpoint_id"`
	AccountID  int64  `json:"account_id"`
	OccurredAt string `json:"occurred_at"`
}

// runReceiver is cmdReceiver with its output streams given, for tests.
func runReceiver(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("receiver", flag.ContinueOnError)
	port := fs.Int("port", 0, "the port to listen on, on 127.0.0.1")
	tolerance := durationFlag(fs, "tolerance", 5*time.Minute, "how far an X-Service-Timestamp may be from now, when sent (0: not checked)")
	var secrets [][]byte
	fs.Func("secret", "the endpoint's signing secret; repeat it during a rotation", func(s string) error {
		if s == "" {
			return errors.New("must not be empty")
		}
		secrets = append(secrets, []byte(s))
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *port < 1 || *port > 65535 || len(secrets) == 0 {
		return usageError{"receiver: --port (1-65535) and at least one --secret are required"}
	}

	// Its answer is the events on stdout: at a terminal its logs are the
	// refusals (warnings), as a command's.
	log := cliLogger(stderr, false)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("receiver: listen: %w", err)
	}

	// Deliveries are served concurrently; one writer at a time keeps each
	// JSON line whole.
	var mu sync.Mutex
	out := json.NewEncoder(stdout)
	v := &receiver.Verifier{Secrets: secrets, Tolerance: *tolerance, Log: log}
	h := receiver.Handler(v, func(_ context.Context, ev receiver.Event, deliveryID string) error {
		at := time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
		var line any = receivedLine{DeliveryID: deliveryID, ReceivedAt: at, Event: ev}
		if ev.EventType == receiver.EventPing {
			line = pingLine{DeliveryID: deliveryID, ReceivedAt: at, EventType: ev.EventType, EndpointID: ev.EndpointID, AccountID: ev.AccountID, OccurredAt: ev.OccurredAt}
		}
		mu.Lock()
		defer mu.Unlock()
		if err := out.Encode(line); err != nil {
			return fmt.Errorf("print event: %w", err)
		}
		return nil
	})
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("webhook receiver listening", "url", "http://"+ln.Addr().String()+"/", "secrets", len(secrets))

	select {
	case err := <-served:
		return fmt.Errorf("receiver: serve: %w", err)
	case <-ctx.Done():
	}
	// ctx is done: give requests in flight a moment, on a context of their own.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("receiver: shut down: %w", err)
	}
	log.Info("webhook receiver stopped")
	return nil
}
