package delivery_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// kitReceiver is a subscriber built on the receiver kit: it verifies each
// delivery with secret and records the events it accepts; while failing,
// it answers 500.
type kitReceiver struct {
	*recv
	mu      sync.Mutex
	events  []receiver.Event
	failing atomic.Bool
}

func newKitReceiver(t *testing.T) *kitReceiver {
	t.Helper()
	k := &kitReceiver{}
	v := &receiver.Verifier{Secrets: [][]byte{[]byte(secret)}, Tolerance: 5 * time.Minute}
	h := receiver.Handler(v, func(_ context.Context, ev receiver.Event, _ string) error {
		if k.failing.Load() {
			return errors.New("receiver down")
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		k.events = append(k.events, ev)
		return nil
	})
	k.recv = newReceiver(t, func(rw http.ResponseWriter, req *http.Request) {
		// recv read the body to record it: the kit reads what it recorded
		// (one post at a time in these tests).
		posts := k.got()
		req.Body = io.NopCloser(bytes.NewReader(posts[len(posts)-1].Body))
		h.ServeHTTP(rw, req)
	})
	return k
}

func (k *kitReceiver) accepted() []receiver.Event {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]receiver.Event(nil), k.events...)
}

// A ping goes to its one endpoint, which subscribes to something else,
// through the queue and the delivery function, signed like a review event;
// it is recorded, listed, and redelivered like any delivery.
func TestSendTest(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	rcv := newKitReceiver(t)
	ep := w.endpoint(t, rcv.url(), func(e *domain.Endpoint) { e.Events = []domain.EventType{domain.EventChecksQueued} })
	sent := t0.Add(25 * time.Hour)
	tester := &delivery.Tester{Store: w.st, Queue: w.q, Clock: domain.FixedClock(sent)}

	rcv.failing.Store(true)
	d, err := tester.SendTest(ctx, domain.Actor{AccountID: w.account, OperatorID: w.redeliver, ActionID: "ping-1", RequestID: "req-ping"}, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"event_type":"ping","endpoint_id":%d,"account_id":%d,"occurred_at":"%s"}`, ep.ID, w.account, domain.FormatTime(sent))
	if !regexp.MustCompile(`^dlv_[0-9a-f]{32}$`).MatchString(d.ID) || !regexp.MustCompile(`^evt_[0-9a-f]{32}$`).MatchString(d.EventID) ||
		d.ID != delivery.ID(d.EventID, ep.ID) || d.OriginalID != d.ID || d.Attempt != 1 || d.Attempts != 1 || d.Status != domain.DeliveryQueued ||
		d.EndpointID != ep.ID || d.Event.EventType != domain.EventPing || d.URL != ep.URL || string(d.Payload) != body ||
		d.RequestedBy == nil || *d.RequestedBy != w.redeliver || !d.CreatedAt.Equal(sent) {
		t.Errorf("delivery = %+v\npayload %s\nwant    %s", d, d.Payload, body)
	}
	if stored := w.delivery(t, d.ID); !reflect.DeepEqual(stored, d) {
		t.Errorf("stored\n got %+v\nwant %+v", stored, d)
	}
	want := []delivery.Message{{AccountID: w.account, DeliveryID: d.ID, Attempt: 1, EndpointID: ep.ID, EventID: d.EventID, Recorded: true, Event: d.Event}}
	if got := w.q.messages(); !reflect.DeepEqual(got, want) {
		t.Errorf("queued %+v, want %+v", got, want)
	}
	rec, err := w.st.AuditRecord(ctx, w.account, "ping-1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Action != domain.ActionEndpointTest || rec.OperatorID != w.redeliver || rec.OperatorName != "Rami Redeliver" || rec.RequestID != "req-ping" ||
		rec.ReviewID != nil || rec.EntityID != 0 || rec.After["delivery_id"] != d.ID || rec.After["endpoint_id"] != float64(ep.ID) || !rec.At.Equal(sent) {
		t.Errorf("audit = %+v", rec)
	}

	// The delivery function posts it, signed; the receiver is down.
	if f := handle(t, w.d, sqsEvent(t, w.q.messages()...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	posts := rcv.got()
	if len(posts) != 1 || string(posts[0].Body) != body || posts[0].Header.Get(webhooks.SignatureHeader) != webhooks.Sign([]byte(secret), []byte(body)) ||
		posts[0].Header.Get(delivery.HeaderDeliveryID) != d.ID || posts[0].Header.Get(delivery.HeaderEventID) != d.EventID {
		t.Fatalf("posts = %+v", posts)
	}
	failed := w.delivery(t, d.ID)
	if failed.Status != domain.DeliveryFailed || failed.ResponseStatus != http.StatusInternalServerError {
		t.Fatalf("attempt = %+v", failed)
	}

	// Listed among the deliveries, by its kind and its endpoint.
	for name, f := range map[string]domain.DeliveryFilter{
		"by kind": {EventType: domain.EventPing}, "by endpoint": {EndpointID: ep.ID}, "failed": {Status: domain.DeliveryFailed, EventType: domain.EventPing},
	} {
		list, err := w.o.List(ctx, w.account, w.viewer, f)
		if err != nil || len(list) != 1 || list[0].ID != d.ID {
			t.Errorf("%s: %+v (%v), want the ping alone", name, list, err)
		}
	}

	// Redelivered once the receiver is back: the same bytes, the same
	// event id, a new attempt.
	rcv.failing.Store(false)
	next, err := w.o.Redeliver(ctx, w.account, d.ID, w.redeliver, "receiver fixed", "ping-1-again")
	if err != nil {
		t.Fatal(err)
	}
	if f := handle(t, w.d, sqsEvent(t, w.q.messages()[1:]...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	posts = rcv.got()
	if len(posts) != 2 || string(posts[1].Body) != body || posts[1].Header.Get(delivery.HeaderDeliveryID) != d.ID+".2" ||
		posts[1].Header.Get(delivery.HeaderEventID) != d.EventID {
		t.Errorf("posts = %+v", posts)
	}
	if done := w.delivery(t, next.ID); done.Status != domain.DeliveryDelivered || done.Event.EventType != domain.EventPing {
		t.Errorf("redelivery = %+v", done)
	}
	if re, err := w.st.AuditRecord(ctx, w.account, "ping-1-again"); err != nil || re.ReviewID != nil {
		t.Errorf("redelivery's audit = %+v (%v): a ping names no review", re, err)
	}
	wantEvent := receiver.Event{EventType: receiver.EventPing, EndpointID: ep.ID, AccountID: w.account, OccurredAt: domain.FormatTime(sent)}
	if got := rcv.accepted(); len(got) != 1 || got[0] != wantEvent {
		t.Errorf("the receiver accepted %+v, want %+v", got, wantEvent)
	}
}

func TestSendTestRefusals(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	tester := &delivery.Tester{Store: w.st, Queue: w.q, Clock: domain.FixedClock(t0.Add(25 * time.Hour))}
	off := w.endpoint(t, w.rcv.url(), func(e *domain.Endpoint) { e.Active = false })
	// Another account's endpoint, in the same tables.
	acct, err := w.st.CreateAccount(ctx, "Theirs", t0)
	if err != nil {
		t.Fatal(err)
	}
	theirs := (&world{st: w.st, account: acct.ID}).endpoint(t, w.rcv.url(), nil)
	as := func(operator int64, action string) domain.Actor {
		return domain.Actor{AccountID: w.account, OperatorID: operator, ActionID: action}
	}
	tests := []struct {
		name     string
		actor    domain.Actor
		endpoint int64
		want     string
	}{
		{"an operator without webhook_endpoint.manage", as(w.viewer, "t-1"), w.ep.ID, domain.ECodeForbidden},
		{"an operator with no permission at all", as(w.nobody, "t-2"), w.ep.ID, domain.ECodeForbidden},
		{"an unknown operator", as(987654, "t-3"), w.ep.ID, domain.ECodeNotFound},
		{"nobody: no operator, no administrator", as(0, "t-4"), w.ep.ID, domain.ECodeInvalid},
		{"no action id", as(w.redeliver, " "), w.ep.ID, domain.ECodeInvalid},
		{"no endpoint", as(w.redeliver, "t-5"), 0, domain.ECodeInvalid},
		{"an unknown endpoint", as(w.redeliver, "t-6"), 987654, domain.ECodeNotFound},
		{"another account's endpoint", as(w.redeliver, "t-7"), theirs.ID, domain.ECodeNotFound},
		{"a deactivated endpoint", as(w.redeliver, "t-8"), off.ID, domain.ECodeConflict},
		{"no account", domain.Actor{OperatorID: w.redeliver, ActionID: "t-9"}, w.ep.ID, domain.ECodeInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tester.SendTest(ctx, tc.actor, tc.endpoint)
			if code(err) != tc.want || d.ID != "" {
				t.Errorf("SendTest = %+v, %v; want %s", d, err, tc.want)
			}
			if _, err := w.st.AuditRecord(ctx, w.account, tc.actor.ActionID); code(err) != domain.ECodeNotFound {
				t.Errorf("an audit record was written: %v", err)
			}
		})
	}
	if got := w.q.messages(); len(got) != 0 {
		t.Errorf("queued %+v", got)
	}
	if list, err := w.o.ListAll(ctx, w.account, domain.DeliveryFilter{}); err != nil || len(list) != 0 {
		t.Errorf("deliveries %+v (%v), want none", list, err)
	}

	// The account's administrator may send one; the trail names them.
	d, err := tester.SendTest(ctx, domain.Actor{AccountID: w.account, Admin: "ops@example.com", ActionID: "t-admin"}, w.ep.ID)
	if err != nil || d.RequestedBy != nil {
		t.Fatalf("the administrator's ping: %+v, %v", d, err)
	}
	if rec, err := w.st.AuditRecord(ctx, w.account, "t-admin"); err != nil || rec.OperatorID != 0 || rec.OperatorName != "ops@example.com" || rec.Actor != "ops@example.com" {
		t.Errorf("audit = %+v (%v)", rec, err)
	}
	// An action id used for something else is refused.
	if _, err := w.o.Redeliver(ctx, w.account, d.ID, w.redeliver, "why", "t-admin"); code(err) != domain.ECodeConflict {
		t.Errorf("a redelivery under the ping's action id: %v, want conflict", err)
	}
}

// The same action sends one ping; one whose message was lost (the queue
// failed) is queued again by the same action.
func TestSendTestOnce(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	tester := &delivery.Tester{Store: w.st, Queue: w.q, Clock: domain.FixedClock(t0.Add(25 * time.Hour))}
	a := domain.Actor{AccountID: w.account, OperatorID: w.redeliver, ActionID: "once"}

	w.q.failing = true
	if _, err := tester.SendTest(ctx, a, w.ep.ID); err == nil {
		t.Fatal("no error when the queue fails")
	}
	w.q.failing = false
	first, err := tester.SendTest(ctx, a, w.ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tester.SendTest(ctx, a, w.ep.ID)
	if err != nil || again.ID != first.ID {
		t.Fatalf("again: %+v, %v; want %s", again, err, first.ID)
	}
	if list, err := w.o.ListAll(ctx, w.account, domain.DeliveryFilter{EventType: domain.EventPing}); err != nil || len(list) != 1 {
		t.Errorf("deliveries %+v (%v), want one ping", list, err)
	}
	// Both queued messages name the one attempt, which is posted once.
	msgs := w.q.messages()
	if len(msgs) != 2 || msgs[0] != msgs[1] || msgs[0].DeliveryID != first.ID {
		t.Fatalf("queued %+v", msgs)
	}
	w.status.Store(http.StatusNoContent)
	if f := handle(t, w.d, sqsEvent(t, msgs...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	if n := len(w.rcv.got()); n != 1 {
		t.Errorf("%d posts, want 1", n)
	}
	// Once it is sent, the same action queues nothing more.
	if _, err := tester.SendTest(ctx, a, w.ep.ID); err != nil || len(w.q.messages()) != 2 {
		t.Errorf("after delivery: %v, %d messages", err, len(w.q.messages()))
	}
}

// A ping queued for an endpoint deactivated before it is sent is recorded
// failed, not posted.
func TestSendTestEndpointDeactivated(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	tester := &delivery.Tester{Store: w.st, Queue: w.q, Clock: domain.FixedClock(t0.Add(25 * time.Hour))}
	d, err := tester.SendTest(ctx, domain.Actor{AccountID: w.account, OperatorID: w.redeliver, ActionID: "p"}, w.ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	ep := w.ep
	ep.Active = false
	if _, err := w.st.UpdateEndpoint(ctx, ep, domain.AuditRecord{AccountID: w.account, ActionID: "off", Action: domain.ActionEndpointUpdate, At: t0}); err != nil {
		t.Fatal(err)
	}
	if f := handle(t, w.d, sqsEvent(t, w.q.messages()...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	if got := w.delivery(t, d.ID); got.Status != domain.DeliveryFailed || got.Error != "endpoint deactivated before delivery" || len(w.rcv.got()) != 0 {
		t.Errorf("attempt = %+v, posts %d", got, len(w.rcv.got()))
	}
}
