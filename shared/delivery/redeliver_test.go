package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// queue records the messages sent to it; failing makes Send fail.
type queue struct {
	mu      sync.Mutex
	sent    []delivery.Message
	failing bool
}

func (q *queue) Send(_ context.Context, msgs []delivery.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.failing {
		return errors.New("queue unavailable")
	}
	q.sent = append(q.sent, msgs...)
	return nil
}

func (q *queue) messages() []delivery.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]delivery.Message(nil), q.sent...)
}

type ops struct {
	*world
	rcv       *recv
	status    atomic.Int32 // the receiver's answer
	ep        domain.Endpoint
	d         *delivery.Deliverer
	q         *queue
	o         *delivery.Redeliverer
	redeliver int64 // operators
	viewer    int64
	nobody    int64
}

func newOps(t *testing.T) *ops {
	t.Helper()
	w := &ops{world: newWorld(t), q: &queue{}}
	w.status.Store(500)
	w.rcv = newReceiver(t, func(rw http.ResponseWriter, _ *http.Request) {
		rw.WriteHeader(int(w.status.Load()))
		fmt.Fprintf(rw, "answered %d", w.status.Load())
	})
	w.ep = w.endpoint(t, w.rcv.url(), nil)
	w.d = deliverer(t, w.world, webhooks.ClientOptions{Allow: loopback(t)})
	w.o = &delivery.Redeliverer{Store: w.st, Queue: w.q, Clock: domain.FixedClock(t0.Add(24 * time.Hour))}
	op := func(name string, perms ...string) int64 {
		o, err := w.st.CreateOperator(context.Background(), w.account, name, perms, t0)
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	w.redeliver = op("Rami Redeliver", domain.PermWebhookEndpointEdit)
	w.viewer = op("Vera Viewer", domain.PermWebhookDeliveryView)
	w.nobody = op("Nadia Nobody", domain.PermReviewDecide)
	return w
}

// deliver posts a new event to the endpoint, the receiver answering status.
func (w *ops) deliver(t *testing.T, status int) delivery.Message {
	t.Helper()
	w.status.Store(int32(status))
	msg := w.message(w.ep)
	if f := handle(t, w.d, sqsEvent(t, msg)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	return msg
}

func code(err error) string { return domain.ErrorCode(err) }

func TestRedeliverFailed(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	msg := w.deliver(t, 500)
	first := w.delivery(t, msg.DeliveryID)
	if first.Status != domain.DeliveryFailed {
		t.Fatalf("first attempt %s", first.Status)
	}

	next, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "receiver fixed their database", "act-1")
	if err != nil {
		t.Fatal(err)
	}
	if next.ID != msg.DeliveryID+".2" || next.OriginalID != msg.DeliveryID || next.Attempt != 2 || next.Status != domain.DeliveryQueued ||
		next.RequestedBy == nil || *next.RequestedBy != w.redeliver || next.Reason != "receiver fixed their database" ||
		next.EventID != msg.EventID || next.EndpointID != w.ep.ID || !reflect.DeepEqual(next.Event, msg.Event) || !next.CreatedAt.Equal(t0.Add(24*time.Hour)) {
		t.Errorf("new attempt = %+v", next)
	}
	stored := w.delivery(t, next.ID)
	if !reflect.DeepEqual(stored, next) {
		t.Errorf("stored attempt\n got %+v\nwant %+v", stored, next)
	}
	if orig := w.delivery(t, msg.DeliveryID); orig.Attempts != 2 || orig.Status != domain.DeliveryFailed || orig.ResponseStatus != 500 {
		t.Errorf("original = %+v", orig)
	}
	want := []delivery.Message{{AccountID: w.account, DeliveryID: next.ID, Attempt: 2, EndpointID: w.ep.ID, EventID: msg.EventID, Recorded: true, Event: msg.Event}}
	if got := w.q.messages(); !reflect.DeepEqual(got, want) {
		t.Errorf("queued %+v, want %+v", got, want)
	}

	rec, err := w.st.AuditRecord(ctx, w.account, "act-1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Action != domain.ActionRedeliver || rec.OperatorID != w.redeliver || rec.OperatorName != "Rami Redeliver" ||
		rec.Reason != "receiver fixed their database" || rec.ReviewID == nil || *rec.ReviewID != msg.Event.EntityReviewID ||
		rec.EntityID != msg.Event.EntityID || !rec.At.Equal(t0.Add(24*time.Hour)) {
		t.Errorf("audit = %+v", rec)
	}
	if rec.Before["delivery_id"] != msg.DeliveryID || rec.Before["status"] != "failed" || rec.Before["response_status"] != float64(500) ||
		rec.Before["error"] != first.Error {
		t.Errorf("audit before = %v", rec.Before)
	}
	if rec.After["delivery_id"] != next.ID || rec.After["status"] != "queued" || rec.After["attempt"] != float64(2) ||
		rec.After["original_id"] != msg.DeliveryID || rec.After["endpoint_id"] != float64(w.ep.ID) || rec.After["event_id"] != msg.EventID {
		t.Errorf("audit after = %v", rec.After)
	}
	trail, err := w.st.AuditTrail(ctx, w.account, msg.Event.EntityID)
	if err != nil || len(trail) != 1 || trail[0].ActionID != "act-1" {
		t.Errorf("entity's audit trail = %+v (%v)", trail, err)
	}

	// The queued message goes out: the same body, the attempt's own id.
	w.status.Store(200)
	if f := handle(t, w.d, sqsEvent(t, w.q.messages()...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	posts := w.rcv.got()
	if len(posts) != 2 || string(posts[1].Body) != string(posts[0].Body) ||
		posts[1].Header.Get("X-Service-Delivery-Id") != next.ID || posts[1].Header.Get("X-Service-Event-Id") != msg.EventID {
		t.Errorf("posts = %+v", posts)
	}
	done := w.delivery(t, next.ID)
	if done.Status != domain.DeliveryDelivered || done.ResponseStatus != 200 || done.URL != w.ep.URL || done.StartedAt == nil ||
		done.CompletedAt == nil || done.Reason != next.Reason || done.RequestedBy == nil {
		t.Errorf("redelivered attempt = %+v", done)
	}
	// The same message again posts nothing.
	if f := handle(t, w.d, sqsEvent(t, w.q.messages()...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	if n := len(w.rcv.got()); n != 2 {
		t.Errorf("%d posts, want 2", n)
	}

	// A third attempt after a second failure.
	w.status.Store(503)
	third, err := w.o.Redeliver(ctx, w.account, next.ID, w.redeliver, "again", "act-2")
	if code(err) != domain.ECodeConflict {
		t.Errorf("redeliver a delivered attempt: %v %+v, want conflict", err, third)
	}
}

func TestRedeliverRefusals(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	failed := w.deliver(t, 500)
	delivered := w.deliver(t, 200)
	tests := []struct {
		name     string
		id       string
		operator int64
		reason   string
		actionID string
		want     string
	}{
		{"a delivered delivery", delivered.DeliveryID, w.redeliver, "why not", "r-1", domain.ECodeConflict},
		{"an operator without webhook_endpoint.manage", failed.DeliveryID, w.viewer, "please", "r-2", domain.ECodeForbidden},
		{"an operator with no permission at all", failed.DeliveryID, w.nobody, "please", "r-3", domain.ECodeForbidden},
		{"an unknown operator", failed.DeliveryID, 99999, "please", "r-4", domain.ECodeNotFound},
		{"no operator", failed.DeliveryID, 0, "please", "r-5", domain.ECodeInvalid},
		{"a blank reason", failed.DeliveryID, w.redeliver, "  ", "r-6", domain.ECodeInvalid},
		{"no action id", failed.DeliveryID, w.redeliver, "please", "", domain.ECodeInvalid},
		{"an unknown delivery", "dlv_nope", w.redeliver, "please", "r-7", domain.ECodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.o.Redeliver(ctx, w.account, tc.id, tc.operator, tc.reason, tc.actionID)
			if code(err) != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
			if tc.actionID != "" {
				if _, err := w.st.AuditRecord(ctx, w.account, tc.actionID); code(err) != domain.ECodeNotFound {
					t.Errorf("an audit record was written: %v", err)
				}
			}
		})
	}
	if got := w.q.messages(); len(got) != 0 {
		t.Errorf("queued %+v", got)
	}
	if d := w.delivery(t, failed.DeliveryID); d.Attempts != 1 {
		t.Errorf("attempts = %d", d.Attempts)
	}
}

func TestRedeliverOnce(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	msg := w.deliver(t, 500)

	a, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "fixed", "same-action")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "fixed", "same-action")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != msg.DeliveryID+".2" || b.ID != a.ID {
		t.Errorf("attempts %s and %s", a.ID, b.ID)
	}
	if d := w.delivery(t, msg.DeliveryID); d.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", d.Attempts)
	}
	if _, err := w.st.Delivery(ctx, w.account, msg.DeliveryID+".3"); code(err) != domain.ECodeNotFound {
		t.Errorf("a third attempt exists: %v", err)
	}
	for _, m := range w.q.messages() {
		if m.DeliveryID != a.ID {
			t.Errorf("queued %s", m.DeliveryID)
		}
	}

	// Another action while that attempt is still queued: refused, not a
	// second attempt.
	if _, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "fixed", "other-action"); code(err) != domain.ECodeConflict {
		t.Errorf("another action on a queued attempt: %v, want conflict", err)
	}
	if _, err := w.st.AuditRecord(ctx, w.account, "other-action"); code(err) != domain.ECodeNotFound {
		t.Errorf("the refused action was audited: %v", err)
	}
}

// A redelivery recorded but not queued (the queue failed) is queued when
// the operator repeats the same action.
func TestRedeliverQueueFails(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	msg := w.deliver(t, 500)
	w.q.failing = true
	if _, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "fixed", "act-q"); err == nil {
		t.Fatal("no error when the queue fails")
	}
	if d := w.delivery(t, msg.DeliveryID+".2"); d.Status != domain.DeliveryQueued {
		t.Fatalf("attempt %s", d.Status)
	}
	w.q.failing = false
	again, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "fixed", "act-q")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.q.messages(); len(got) != 1 || got[0].DeliveryID != again.ID || again.ID != msg.DeliveryID+".2" {
		t.Errorf("queued %+v", got)
	}
}

func TestRedeliverConcurrently(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	for round := range 5 {
		msg := w.deliver(t, 500)
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, 2)
		)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "fixed", fmt.Sprintf("race-%d-%d", round, i))
			}()
		}
		close(start)
		wg.Wait()
		won, conflicts := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case code(err) == domain.ECodeConflict:
				conflicts++
			default:
				t.Errorf("round %d: %v", round, err)
			}
		}
		if won != 1 || conflicts != 1 {
			t.Errorf("round %d: %d won, %d conflicts (%v)", round, won, conflicts, errs)
		}
		if d := w.delivery(t, msg.DeliveryID); d.Attempts != 2 {
			t.Errorf("round %d: attempts = %d", round, d.Attempts)
		}
		audited := 0
		for i := range errs {
			if _, err := w.st.AuditRecord(ctx, w.account, fmt.Sprintf("race-%d-%d", round, i)); err == nil {
				audited++
			}
		}
		if audited != 1 {
			t.Errorf("round %d: %d audit records", round, audited)
		}
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	other := w.endpoint(t, w.rcv.url(), nil)
	clock := t0
	d := &delivery.Deliverer{Store: w.st, Client: w.d.Client, Lease: time.Minute, Clock: func() time.Time {
		clock = clock.Add(time.Minute)
		return clock
	}}
	type spec struct {
		ep     domain.Endpoint
		review int64
		kind   domain.EventType
		status int
	}
	specs := []spec{
		{w.ep, 1, domain.EventApproved, 200},
		{w.ep, 1, domain.EventAssigned, 500},
		{other, 1, domain.EventApproved, 500},
		{w.ep, 2, domain.EventEscalated, 200},
		{other, 2, domain.EventEscalated, 200},
		{w.ep, 2, domain.EventApproved, 500},
	}
	var ids []string // oldest first
	for i, s := range specs {
		w.status.Store(int32(s.status))
		ev := domain.Event{EventType: s.kind, EntityReviewID: s.review, EntityID: 10 * s.review, AccountID: w.account, OccurredAt: "2026-11-01T10:00:00.000Z"}
		msg := delivery.NewMessage(fmt.Sprintf("evt_list_%d", i), ev, s.ep.ID)
		if f := handle(t, d, sqsEvent(t, msg)); len(f) != 0 {
			t.Fatal(f)
		}
		ids = append(ids, msg.DeliveryID)
	}
	// A redelivery of the last failure, the newest attempt of all.
	w.o.Clock = func() time.Time { return clock.Add(time.Hour) }
	re, err := w.o.Redeliver(ctx, w.account, ids[5], w.redeliver, "fixed", "list-re")
	if err != nil {
		t.Fatal(err)
	}
	pick := func(is ...int) []string {
		var out []string
		for _, i := range is {
			if i < 0 {
				out = append(out, re.ID)
			} else {
				out = append(out, ids[i])
			}
		}
		return out
	}
	const redelivery = -1
	created := func(i int) time.Time { return w.delivery(t, ids[i]).CreatedAt }
	tests := []struct {
		name string
		f    domain.DeliveryFilter
		want []string
	}{
		{"all, newest first", domain.DeliveryFilter{}, pick(redelivery, 5, 4, 3, 2, 1, 0)},
		{"limit", domain.DeliveryFilter{Limit: 2}, pick(redelivery, 5)},
		{"endpoint", domain.DeliveryFilter{EndpointID: other.ID}, pick(4, 2)},
		{"review", domain.DeliveryFilter{ReviewID: 1}, pick(2, 1, 0)},
		{"event type", domain.DeliveryFilter{EventType: domain.EventApproved}, pick(redelivery, 5, 2, 0)},
		{"status failed", domain.DeliveryFilter{Status: domain.DeliveryFailed}, pick(5, 2, 1)},
		{"status delivered", domain.DeliveryFilter{Status: domain.DeliveryDelivered}, pick(4, 3, 0)},
		{"status queued", domain.DeliveryFilter{Status: domain.DeliveryQueued}, pick(redelivery)},
		{"status sending", domain.DeliveryFilter{Status: domain.DeliverySending}, nil},
		{"endpoint and review", domain.DeliveryFilter{EndpointID: w.ep.ID, ReviewID: 2}, pick(redelivery, 5, 3)},
		{"endpoint and status", domain.DeliveryFilter{EndpointID: w.ep.ID, Status: domain.DeliveryFailed}, pick(5, 1)},
		{"endpoint and event type", domain.DeliveryFilter{EndpointID: w.ep.ID, EventType: domain.EventApproved}, pick(redelivery, 5, 0)},
		{"review and status", domain.DeliveryFilter{ReviewID: 2, Status: domain.DeliveryDelivered}, pick(4, 3)},
		{"review and event type", domain.DeliveryFilter{ReviewID: 2, EventType: domain.EventEscalated}, pick(4, 3)},
		{"status and event type", domain.DeliveryFilter{Status: domain.DeliveryFailed, EventType: domain.EventApproved}, pick(5, 2)},
		{"everything", domain.DeliveryFilter{EndpointID: w.ep.ID, ReviewID: 1, EventType: domain.EventAssigned, Status: domain.DeliveryFailed}, pick(1)},
		{"limit with a filter", domain.DeliveryFilter{EventType: domain.EventApproved, Limit: 3}, pick(redelivery, 5, 2)},
		{"nothing matches", domain.DeliveryFilter{ReviewID: 3}, nil},
		{"created from", domain.DeliveryFilter{CreatedFrom: created(3)}, pick(redelivery, 5, 4, 3)},
		{"created before", domain.DeliveryFilter{CreatedBefore: created(2)}, pick(1, 0)},
		{"a range and an endpoint", domain.DeliveryFilter{EndpointID: w.ep.ID, CreatedFrom: created(1), CreatedBefore: created(5)}, pick(3, 1)},
		{"a range and a status", domain.DeliveryFilter{Status: domain.DeliveryFailed, CreatedFrom: created(2), CreatedBefore: created(5).Add(time.Millisecond)}, pick(5, 2)},
		{"a range and a limit", domain.DeliveryFilter{CreatedBefore: created(5), Limit: 2}, pick(4, 3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.o.List(ctx, w.account, w.viewer, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []string
			for _, d := range got {
				gotIDs = append(gotIDs, d.ID)
			}
			if !reflect.DeepEqual(gotIDs, tc.want) {
				t.Errorf("ids\n got %v\nwant %v", gotIDs, tc.want)
			}
		})
	}
	refusals := []struct {
		name     string
		operator int64
		f        domain.DeliveryFilter
		want     string
	}{
		{"without webhook_delivery.view", w.redeliver, domain.DeliveryFilter{}, domain.ECodeForbidden},
		{"an unknown status", w.viewer, domain.DeliveryFilter{Status: "lost"}, domain.ECodeInvalid},
		{"an unknown event type", w.viewer, domain.DeliveryFilter{EventType: "entity.created"}, domain.ECodeInvalid},
		{"created from after created before", w.viewer, domain.DeliveryFilter{CreatedFrom: created(3), CreatedBefore: created(2)}, domain.ECodeInvalid},
		{"an empty range", w.viewer, domain.DeliveryFilter{CreatedFrom: created(3), CreatedBefore: created(3)}, domain.ECodeInvalid},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.o.List(ctx, w.account, tc.operator, tc.f); code(err) != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
	// Another account sees none of them.
	acct, err := w.st.CreateAccount(ctx, "Other", t0)
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := w.st.CreateOperator(ctx, acct.ID, "V", []string{domain.PermWebhookDeliveryView}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := w.o.List(ctx, acct.ID, viewer.ID, domain.DeliveryFilter{}); err != nil || len(got) != 0 {
		t.Errorf("other account lists %d (%v)", len(got), err)
	}
	if _, err := w.o.Redeliver(ctx, acct.ID, ids[5], viewer.ID, "x", "y"); code(err) != domain.ECodeForbidden {
		t.Errorf("other account redelivers: %v", err)
	}
}
