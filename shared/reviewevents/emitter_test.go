package reviewevents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// recordingQueue keeps what it is sent; fail makes the n-th Send (from 1)
// fail instead.
type recordingQueue struct {
	mu    sync.Mutex
	calls int
	fail  int
	sent  []delivery.Message
}

func (q *recordingQueue) Send(_ context.Context, msgs []delivery.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls++
	if q.calls == q.fail {
		return errors.New("queue unavailable")
	}
	q.sent = append(q.sent, msgs...)
	return nil
}

// endpoint stores an endpoint of the world's account.
func (w *reviewsWorld) endpoint(t *testing.T, active bool, kinds ...domain.EventType) domain.Endpoint {
	t.Helper()
	n := w.Next()
	ep, err := w.St.CreateEndpoint(context.Background(), domain.Endpoint{
		AccountID: w.Account, URL: fmt.Sprintf("https://hooks%d.example.com/evs", n), Events: kinds, Active: active,
		Secret: "whsec_test", CreatedAt: t0, UpdatedAt: t0,
	}, domain.AuditRecord{AccountID: w.Account, ActionID: fmt.Sprintf("ep-%d", n), Action: domain.ActionEndpointCreate, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// record is a stream record of a change of the reviews table, its images
// as the stream carries them (nil for none).
func record(t testing.TB, seq string, old, new map[string]types.AttributeValue) events.DynamoDBEventRecord {
	t.Helper()
	name := "MODIFY"
	switch {
	case old == nil:
		name = "INSERT"
	case new == nil:
		name = "REMOVE"
	}
	rec := events.DynamoDBEventRecord{EventID: "rec-" + seq, EventName: name, EventSource: "aws:dynamodb",
		Change: events.DynamoDBStreamRecord{SequenceNumber: seq, StreamViewType: "NEW_AND_OLD_IMAGES"}}
	if old != nil {
		rec.Change.OldImage = devstacktest.StreamImage(t, old)
	}
	if new != nil {
		rec.Change.NewImage = devstacktest.StreamImage(t, new)
	}
	return rec
}

func TestEmitter(t *testing.T) {
	ctx := context.Background()
	w := newReviewsWorld(t)
	subscribed := w.endpoint(t, true, domain.EventApproved, domain.EventAssigned)
	unsubscribed := w.endpoint(t, true, domain.EventRejected, domain.EventEscalated)
	inactive := w.endpoint(t, false, domain.EventApproved, domain.EventAssigned)

	// Review A: in progress, then approved. Review B: open, then assigned.
	a0 := w.Review(t, domain.ReviewInProgress)
	a0raw := w.Raw(t, a0)
	a1 := w.Change(t, a0, func(r *domain.Review) {
		r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), new("documents_verified"), new(t0.Add(time.Hour))
	})
	a1raw := w.Raw(t, a1)
	b0 := w.Review(t, domain.ReviewOpen)
	b0raw := w.Raw(t, b0)
	b1 := w.Change(t, b0, func(r *domain.Review) { r.AssignedUserID, r.AssignedUserName = new(int64(7)), new("Dana") })
	b1raw := w.Raw(t, b1)
	// Review C: rejected, which only the second endpoint takes.
	c0 := w.Review(t, domain.ReviewInProgress)
	c0raw := w.Raw(t, c0)
	c1 := w.Change(t, c0, func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeRejected), new(t0.Add(time.Hour))
	})
	c1raw := w.Raw(t, c1)

	approvedA := Message(t, domain.EventApproved, a1, subscribed.ID)
	assignedB := Message(t, domain.EventAssigned, b1, subscribed.ID)
	rejectedC := Message(t, domain.EventRejected, c1, unsubscribed.ID)

	poison := func() map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{}
		for k, v := range b1raw {
			m[k] = v
		}
		m["version"] = &types.AttributeValueMemberS{Value: "two"}
		return m
	}()

	tests := []struct {
		name     string
		records  []events.DynamoDBEventRecord
		failSend int
		want     []delivery.Message
		failedAt string
	}{
		{name: "approve: the subscribed, active endpoint only (not the unsubscribed one, not the inactive one)",
			records: []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw)},
			want:    []delivery.Message{approvedA}},
		{name: "three changes",
			records: []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw), record(t, "101", b0raw, b1raw), record(t, "102", c0raw, c1raw)},
			want:    []delivery.Message{approvedA, assignedB, rejectedC}},
		{name: "insert and remove make nothing",
			records: []events.DynamoDBEventRecord{record(t, "100", nil, a0raw), record(t, "101", a1raw, nil)}},
		{name: "the same record twice: identical messages",
			records: []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw), record(t, "100", a0raw, a1raw)},
			want:    []delivery.Message{approvedA, approvedA}},
		{name: "a poison record between two good ones",
			records:  []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw), record(t, "101", b0raw, poison), record(t, "102", c0raw, c1raw)},
			want:     []delivery.Message{approvedA},
			failedAt: "101"},
		{name: "a poison old image",
			records:  []events.DynamoDBEventRecord{record(t, "100", poison, b1raw)},
			failedAt: "100"},
		{name: "the queue fails at the first record",
			records:  []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw), record(t, "101", b0raw, b1raw)},
			failSend: 1, failedAt: "100"},
		{name: "the queue fails at the second record",
			records:  []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw), record(t, "101", b0raw, b1raw), record(t, "102", c0raw, c1raw)},
			failSend: 2, want: []delivery.Message{approvedA}, failedAt: "101"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := &recordingQueue{fail: tc.failSend}
			e := &Emitter{Endpoints: w.St, Reviews: w.St, Queue: q}
			resp, err := e.Handle(ctx, events.DynamoDBEvent{Records: tc.records})
			if err != nil {
				t.Fatal(err)
			}
			var want []events.DynamoDBBatchItemFailure
			if tc.failedAt != "" {
				want = []events.DynamoDBBatchItemFailure{{ItemIdentifier: tc.failedAt}}
			}
			if !reflect.DeepEqual(resp.BatchItemFailures, want) {
				t.Errorf("batch item failures = %+v, want %+v", resp.BatchItemFailures, want)
			}
			if !reflect.DeepEqual(q.sent, tc.want) {
				t.Errorf("sent\n got %+v\nwant %+v", q.sent, tc.want)
			}
		})
	}

	t.Run("a record seen again in another batch: the same messages", func(t *testing.T) {
		var got [][]delivery.Message
		for range 2 {
			q := &recordingQueue{}
			if _, err := (&Emitter{Endpoints: w.St, Reviews: w.St, Queue: q}).Handle(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{record(t, "100", a0raw, a1raw)}}); err != nil {
				t.Fatal(err)
			}
			got = append(got, q.sent)
		}
		if !reflect.DeepEqual(got[0], got[1]) || len(got[0]) != 1 {
			t.Errorf("messages differ: %+v", got)
		}
	})
	t.Run("ids", func(t *testing.T) {
		if !regexp.MustCompile(`^dlv_[0-9a-f]{32}$`).MatchString(approvedA.DeliveryID) {
			t.Errorf("delivery id %q", approvedA.DeliveryID)
		}
		ids := map[string]bool{approvedA.DeliveryID: true, assignedB.DeliveryID: true, rejectedC.DeliveryID: true,
			delivery.ID(approvedA.EventID, inactive.ID): true}
		if len(ids) != 4 {
			t.Errorf("delivery ids collide: %v", ids)
		}
	})
}

// Message is the message expected for an event of r to an endpoint, spelt
// out field by field.
func Message(t *testing.T, kind domain.EventType, r domain.Review, endpointID int64) delivery.Message {
	t.Helper()
	eventID := EventID(kind, r)
	var outcome *string
	if r.Outcome != nil {
		outcome = new(*r.Outcome)
	}
	return delivery.Message{
		AccountID: r.AccountID, DeliveryID: delivery.ID(eventID, endpointID), Attempt: 1, EndpointID: endpointID, EventID: eventID,
		Event: domain.Event{EventType: kind, EntityReviewID: r.ID, EntityID: r.EntityID, AccountID: r.AccountID,
			Outcome: outcome, OccurredAt: domain.FormatTime(r.UpdatedAt)},
	}
}

// From a stream record to a verified POST: what the emitter queues, the
// delivery function posts, signed, once per subscribed endpoint.
func TestEmitterToReceiver(t *testing.T) {
	ctx := context.Background()
	w := newReviewsWorld(t)
	var (
		mu     sync.Mutex
		bodies = map[string][]byte{} // by X-Service-Delivery-Id
	)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v := &receiver.Verifier{Secrets: [][]byte{[]byte("whsec_test")}}
		if err := v.Verify(r.Header, b); err != nil {
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
		mu.Lock()
		bodies[r.Header.Get(receiver.DeliveryIDHeader)] = b
		mu.Unlock()
		rw.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	eps := []domain.Endpoint{w.endpoint(t, true, domain.EventEscalatedToAML), w.endpoint(t, true, domain.EventTypes()...), w.endpoint(t, true, domain.EventEscalated)}
	for i := range eps {
		eps[i].URL = srv.URL + "/hook"
		if _, err := w.St.UpdateEndpoint(ctx, eps[i], domain.AuditRecord{AccountID: w.Account, ActionID: fmt.Sprintf("url-%d", i), Action: domain.ActionEndpointUpdate, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	r0 := w.Review(t, domain.ReviewInProgress)
	raw0 := w.Raw(t, r0)
	r1 := w.Change(t, r0, func(r *domain.Review) { r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationAML) })
	raw1 := w.Raw(t, r1)

	q := &recordingQueue{}
	if resp, err := (&Emitter{Endpoints: w.St, Reviews: w.St, Queue: q}).Handle(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{record(t, "1", raw0, raw1)}}); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatal(resp, err)
	}
	if len(q.sent) != 2 || q.sent[0].EndpointID != eps[0].ID || q.sent[1].EndpointID != eps[1].ID {
		t.Fatalf("queued %+v", q.sent)
	}
	allow, _ := webhooks.ParseAllowList("127.0.0.0/8")
	d := &delivery.Deliverer{Store: w.St, Client: webhooks.NewClient(webhooks.ClientOptions{Allow: allow}), Lease: time.Minute, Clock: domain.SystemClock}
	var sqsEv events.SQSEvent
	for i, m := range append(q.sent, q.sent...) { // every message twice
		b, _ := json.Marshal(m)
		sqsEv.Records = append(sqsEv.Records, events.SQSMessage{MessageId: fmt.Sprint(i), Body: string(b)})
	}
	if resp, err := d.Handle(ctx, sqsEv); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatal(resp, err)
	}
	want := fmt.Sprintf(`{"event_type":"entity_review.escalated_to_aml","entity_review_id":%d,"entity_id":%d,"account_id":%d,"outcome":null,"occurred_at":"%s"}`,
		r1.ID, r1.EntityID, w.Account, domain.FormatTime(r1.UpdatedAt))
	if len(bodies) != 2 {
		t.Errorf("%d deliveries received, want 2", len(bodies))
	}
	for _, m := range q.sent {
		if got := string(bodies[m.DeliveryID]); got != want {
			t.Errorf("delivery %s body\n got %s\nwant %s", m.DeliveryID, got, want)
		}
		rec, err := w.St.Delivery(ctx, w.Account, m.DeliveryID)
		if err != nil || rec.Status != domain.DeliveryDelivered || rec.EndpointID != m.EndpointID || rec.Event.EntityReviewID != r1.ID {
			t.Errorf("recorded %+v (%v)", rec, err)
		}
	}
}

// TestEndpointsGetNoEventFromBeforeTheirTime: an endpoint created after a
// change gets nothing for it, however often the record is read (a replay,
// a redrive); one created before it gets its delivery.
func TestEndpointsGetNoEventFromBeforeTheirTime(t *testing.T) {
	w := newReviewsWorld(t)
	before := w.endpoint(t, true, domain.EventApproved)
	r0 := w.Review(t, domain.ReviewInProgress)
	r0raw := w.Raw(t, r0)
	r1 := w.Change(t, r0, func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), new(r.UpdatedAt)
	})
	n := w.Next()
	later, err := w.St.CreateEndpoint(context.Background(), domain.Endpoint{
		AccountID: w.Account, URL: "https://later.example.com/evs", Events: []domain.EventType{domain.EventApproved}, Active: true,
		Secret: "whsec_test", CreatedAt: r1.UpdatedAt.Add(time.Millisecond), UpdatedAt: r1.UpdatedAt.Add(time.Millisecond),
	}, domain.AuditRecord{AccountID: w.Account, ActionID: fmt.Sprintf("ep-%d", n), Action: domain.ActionEndpointCreate, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	q := &recordingQueue{}
	e := &Emitter{Endpoints: w.St, Reviews: w.St, Queue: q}
	rec := record(t, "100", r0raw, w.Raw(t, r1))
	for replay := 0; replay < 2; replay++ {
		if _, err := e.Handle(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{rec}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range q.sent {
		if m.EndpointID == later.ID {
			t.Errorf("endpoint %d, created after the change, got %s", later.ID, m.EventID)
		}
	}
	if len(q.sent) != 2 || q.sent[0].EndpointID != before.ID {
		t.Errorf("sent %+v, want the earlier endpoint's delivery once per read", q.sent)
	}
}
