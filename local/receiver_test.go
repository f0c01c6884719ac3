package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/webhooks"
)

// lockedBuffer is a bytes.Buffer the receiver writes from its handlers while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestReceiver(t *testing.T) {
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port) + "/webhooks/evs"
	var stdout, stderr lockedBuffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runReceiver(ctx, []string{"--port", strconv.Itoa(port), "--secret", "new-secret", "--secret", "old-secret"}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("receiver returned %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("receiver did not stop")
		}
	})
	waitListening(t, port, done)

	// The service's own delivery client, allowed to reach loopback.
	allow, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	client := webhooks.NewClient(webhooks.ClientOptions{Allow: allow, Timeout: 5 * time.Second})
	post := func(body, signature, deliveryID string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Service-Delivery-Id", deliveryID)
		if signature != "" {
			req.Header.Set(webhooks.SignatureHeader, signature)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	approved := `{"event_type":"entity_review.approved","entity_review_id":156,"entity_id":150,"account_id":1,"outcome":"approved","occurred_at":"2026-11-20T12:00:00.000Z"}`
	assigned := `{"event_type":"entity_review.assigned","entity_review_id":157,"entity_id":151,"account_id":1,"outcome":null,"occurred_at":"2026-11-20T12:01:00.000Z"}`
	ping := `{"event_type":"ping","endpoint_id":7,"account_id":1,"occurred_at":"2026-11-20T12:02:00.000Z"}`
	tests := []struct {
		name       string
		body       string
		signature  string
		deliveryID string
		want       int
	}{
		{"signed", approved, webhooks.Sign([]byte("new-secret"), []byte(approved)), "dlv_signed", http.StatusNoContent},
		{"unsigned", approved, "", "dlv_unsigned", http.StatusUnauthorized},
		{"signed with another secret", approved, webhooks.Sign([]byte("someone-else"), []byte(approved)), "dlv_forged", http.StatusUnauthorized},
		{"signed with the old secret during a rotation", assigned,
			webhooks.Sign([]byte("rotated-away"), []byte(assigned)) + "," + webhooks.Sign([]byte("old-secret"), []byte(assigned)), "dlv_rotation", http.StatusNoContent},
		{"a test event", ping, webhooks.Sign([]byte("new-secret"), []byte(ping)), "dlv_ping", http.StatusNoContent},
	}
	for _, tt := range tests {
		if got := post(tt.body, tt.signature, tt.deliveryID); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}

	// Only the verified deliveries are printed, one JSON line each.
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("stdout has %d lines, want 3:\n%s", len(lines), stdout.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("line %q: %v", lines[0], err)
	}
	for k, want := range map[string]any{
		"delivery_id": "dlv_signed", "event_type": "entity_review.approved", "entity_review_id": 156.0,
		"entity_id": 150.0, "account_id": 1.0, "outcome": "approved", "occurred_at": "2026-11-20T12:00:00.000Z",
	} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v (line %s)", k, first[k], want, lines[0])
		}
	}
	if _, err := time.Parse(time.RFC3339, first["received_at"].(string)); err != nil {
		t.Errorf("received_at: %v", err)
	}
	if !strings.Contains(lines[1], `"delivery_id":"dlv_rotation"`) || !strings.Contains(lines[1], `"outcome":null`) {
		t.Errorf("second line = %s", lines[1])
	}
	// A ping: its own fields, no review's.
	var third map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &third); err != nil {
		t.Fatalf("line %q: %v", lines[2], err)
	}
	delete(third, "received_at")
	if want := map[string]any{"delivery_id": "dlv_ping", "event_type": "ping", "endpoint_id": 7.0, "account_id": 1.0,
		"occurred_at": "2026-11-20T12:02:00.000Z"}; !reflect.DeepEqual(third, want) {
		t.Errorf("ping line = %s, want the fields %v", lines[2], want)
	}
	for _, id := range []string{"dlv_unsigned", "dlv_forged"} {
		if strings.Contains(stdout.String(), id) {
			t.Errorf("%s was printed on stdout", id)
		}
		if !strings.Contains(stderr.String(), id) {
			t.Errorf("stderr does not log the refusal of %s:\n%s", id, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "signature verification failed") {
		t.Errorf("stderr = %s", stderr.String())
	}
}

// waitListening waits until the receiver accepts connections, or fails the
// test if it stopped first.
func waitListening(t *testing.T, port int, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("receiver stopped: %v", err)
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 100*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("receiver is not listening")
}

func TestReceiverUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"nothing", nil},
		{"no secret", []string{"--port", "9999"}},
		{"no port", []string{"--secret", "s"}},
		{"port out of range", []string{"--port", "70000", "--secret", "s"}},
		{"empty secret", []string{"--port", "9999", "--secret", ""}},
		{"unknown flag", []string{"--port", "9999", "--secret", "s", "--verbose"}},
		{"stray argument", []string{"--port", "9999", "--secret", "s", "extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut lockedBuffer
			err := runReceiver(t.Context(), tt.args, &out, &errOut)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}
