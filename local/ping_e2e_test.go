package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// The test event, end to end locally: endpoint.test through the admin
// handler queues a ping in ElasticMQ; the poller gives it to
// webhook-delivery, which posts it signed. Nothing listens yet, so it
// fails; once `receiver` runs, a redelivery reaches it and it prints the
// ping.
func TestPingReachesReceiver(t *testing.T) {
	f := newFlowFixture(t)
	allow, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	h, err := boot.As[boot.AdminHandler]("admin", boot.Deps{Records: records.Dir{Root: t.TempDir()}, Store: f.st, Log: quietLogger(), Clock: domain.SystemClock, Allow: allow,
		Deliveries: &delivery.SQSQueue{Client: f.flow.SQS, URL: f.flow.QueueURLs[deploy.QueueDeliveries]}})
	if err != nil {
		t.Fatal(err)
	}
	adm := func(doc map[string]any) admin.DeliveryView {
		t.Helper()
		var out struct {
			Delivery admin.DeliveryView `json:"delivery"`
		}
		if err := runAdmin(f.ctx, inProcess{h}, "e2e@example.com", doc, &out); err != nil {
			t.Fatalf("%s: %v", doc["command"], err)
		}
		return out.Delivery
	}
	port := freePort(t)
	// Subscribed to another kind: a ping goes to its endpoint regardless.
	ep := f.endpoint(fmt.Sprintf("http://127.0.0.1:%d/hooks/evs", port), domain.EventChecksQueued)

	sent := adm(map[string]any{"command": "endpoint.test", "account_id": f.acct, "endpoint_id": ep.ID, "action_id": "ping-e2e"})
	if sent.EventType != "ping" || sent.Status != "queued" || sent.EndpointID != ep.ID {
		t.Fatalf("endpoint.test answered %+v", sent)
	}
	failed := f.deliveries(1, domain.DeliveryFilter{EventType: domain.EventPing})[0]
	if failed.ID != sent.ID || failed.Status != domain.DeliveryFailed || failed.Error == "" {
		t.Fatalf("first attempt = %+v, want failed (nothing listens)", failed)
	}

	var stdout, stderr lockedBuffer
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error, 1)
	go func() {
		done <- runReceiver(ctx, []string{"--port", strconv.Itoa(port), "--secret", ep.Secret}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("receiver did not stop")
		}
	})
	waitListening(t, port, done)

	again := adm(map[string]any{"command": "delivery.redeliver", "account_id": f.acct, "delivery_id": sent.ID, "reason": "receiver started"})
	if again.ID != sent.ID+".2" {
		t.Fatalf("redelivery = %+v", again)
	}
	var line map[string]any
	waitFor(t, "the receiver to print the ping", func() bool {
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if json.Unmarshal([]byte(l), &line) == nil && line["delivery_id"] == again.ID {
				return true
			}
		}
		return false
	})
	if line["event_type"] != "ping" || line["endpoint_id"] != float64(ep.ID) || line["account_id"] != float64(f.acct) || line["occurred_at"] != sent.CreatedAt {
		t.Errorf("printed %v", line)
	}
	if d := f.deliveries(2, domain.DeliveryFilter{EventType: domain.EventPing}); d[0].ID != again.ID || d[0].Status != domain.DeliveryDelivered {
		t.Errorf("deliveries = %+v, want the redelivery delivered", d)
	}
	if strings.Contains(stderr.String(), "refused") {
		t.Errorf("the receiver refused something: %s", stderr.String())
	}
}
