package main

// End to end, locally for real: an operator decision commits a review
// change; DynamoDB Local's stream feeds review-events, which queues
// deliveries in ElasticMQ; webhook-delivery takes them from the queue,
// signs and posts them to a receiver built on the receiver kit.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// flowFixture is one account on fresh tables and queues, with the local
// event flow running.
type flowFixture struct {
	t     testing.TB
	ctx   context.Context
	st    *store.Store
	names schema.Names
	flow  *reviewFlow
	acct  int64
	op    domain.Operator
	svc   boot.DecisionHandler
	// eps sets endpoints up directly: endpoints are no function of their
	// own (the admin function runs this service).
	eps *subscriptions.Service
	seq int
}

func newFlowFixture(t testing.TB) *flowFixture {
	t.Helper()
	f := newFlowFixtureWith(t, flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond, ClientTimeout: 2 * time.Second})
	t.Cleanup(f.flow.run(f.ctx, flowLog()))
	return f
}

// newFlowFixtureWith sets the fixture up with the flow's options, its
// pollers not started.
func newFlowFixtureWith(t testing.TB, o flowOptions) *flowFixture {
	t.Helper()
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	e := &env{store: st, names: names, log: quietLogger()}
	acct := mustAccount(t, e, "Events", "SA")
	op, err := st.CreateOperator(ctx, acct, "Lina Haddad", domain.OperatorPermissions(), domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	allow, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	o.QueuePrefix, o.Allow = devstack.UniquePrefix(t.Name()), allow
	flow, err := newReviewFlow(ctx, st, names, flowLog(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, url := range flow.QueueURLs {
			flow.SQS.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
		}
		flow.Checkpoints.Drop(context.Background())
	})
	decide, err := boot.As[boot.DecisionHandler]("decision", providers{}.deps(st, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	return &flowFixture{t: t, ctx: ctx, st: st, names: names, flow: flow, acct: acct, op: op,
		svc: decide, eps: &subscriptions.Service{Store: st, Allow: allow, Clock: domain.SystemClock}}
}

// review creates an entity with its initial review, open, which the
// decision policy lets an operator approve, and returns the review.
func (f *flowFixture) review() domain.Review {
	f.t.Helper()
	f.seq++
	now := domain.Now()
	number := "70000" + strings.Repeat("0", 4-len(itoa(f.seq))) + itoa(f.seq) + "0"
	d, err := f.st.CreateEntity(f.ctx, approvable(f.acct, number, "Events Co "+itoa(f.seq), now))
	if err != nil {
		f.t.Fatal(err)
	}
	return d.Reviews[0]
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// decide applies an action through the decision handler, as the state
// machine's Apply task does.
func (f *flowFixture) decide(action domain.Action, reviewID int64, edit func(*decisions.Request)) decisions.TaskOutput {
	f.t.Helper()
	f.seq++
	req := decisions.Request{Action: action, AccountID: f.acct, ReviewID: reviewID, OperatorID: f.op.ID, ActionID: "e2e-" + itoa(f.seq), Reason: "e2e"}
	if action == domain.ActionStart {
		req.Reason = "" // start takes none
	}
	if edit != nil {
		edit(&req)
	}
	out, err := f.svc(f.ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req}))
	if err != nil {
		f.t.Fatalf("%s review %d: %v", action, reviewID, err)
	}
	return out
}

// approve starts and approves a review: one approved event.
func (f *flowFixture) approve(reviewID int64) {
	f.decide(domain.ActionStart, reviewID, nil)
	f.decide(domain.ActionApprove, reviewID, nil)
}

func (f *flowFixture) endpoint(url string, events ...domain.EventType) domain.Endpoint {
	f.t.Helper()
	f.seq++
	ep, err := f.eps.Create(f.ctx, subscriptions.Actor{AccountID: f.acct, ActionID: "ep-" + itoa(f.seq)}, url, events, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return ep
}

// deliveries waits until the account has n attempts in a final state
// (delivered or failed), and returns them.
func (f *flowFixture) deliveries(n int, filter domain.DeliveryFilter) []domain.Delivery {
	f.t.Helper()
	var got []domain.Delivery
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ds, err := f.st.Deliveries(f.ctx, f.acct, filter)
		if err != nil {
			f.t.Fatal(err)
		}
		got = got[:0]
		for _, d := range ds {
			if d.Status == domain.DeliveryDelivered || d.Status == domain.DeliveryFailed {
				got = append(got, d)
			}
		}
		if len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("%d finished deliveries, want %d", len(got), n)
	return nil
}

// testReceiver is a subscriber built on the receiver kit: it records every
// verified event and every request, and answers status (204 by default).
// Its secret may be learnt later (setSecret), as from the settings page that
// shows it once.
type testReceiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	secret   string
	verified []receiver.Event
	requests int
	refused  int
	status   int
	body     string
	notify   chan receiver.Event
}

func newTestReceiver(t testing.TB, secret string) *testReceiver {
	r := &testReceiver{secret: secret, notify: make(chan receiver.Event, 1000)}
	record := func(ctx context.Context, ev receiver.Event, deliveryID string) error {
		r.mu.Lock()
		r.verified = append(r.verified, ev)
		r.mu.Unlock()
		r.notify <- ev
		return nil
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests++
		status, body, secret := r.status, r.body, r.secret
		r.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			w.Write([]byte(body))
			return
		}
		v := &receiver.Verifier{Secrets: [][]byte{[]byte(secret)}, Log: quietLogger()}
		rec := httptest.NewRecorder()
		receiver.Handler(v, record).ServeHTTP(rec, req)
		if rec.Code == http.StatusUnauthorized {
			r.mu.Lock()
			r.refused++
			r.mu.Unlock()
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// setSecret sets the secret deliveries are verified with.
func (r *testReceiver) setSecret(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = secret
}

// answer makes the receiver answer status and body to everything (0: verify
// and answer 204 again).
func (r *testReceiver) answer(status int, body string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.body = status, body
}

// kinds lists the event kinds verified so far, in order.
func (r *testReceiver) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.verified {
		out = append(out, ev.EventType)
	}
	return out
}

func (r *testReceiver) url() string { return r.srv.URL + "/hooks/evs" }

func (r *testReceiver) counts() (requests, verified, refused int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests, len(r.verified), r.refused
}

// settle waits long enough for anything else in flight to arrive.
func settle() { time.Sleep(500 * time.Millisecond) }

func TestDecisionReachesReceiverSigned(t *testing.T) {
	f := newFlowFixture(t)
	rcv := newTestReceiver(t, "")
	ep := f.endpoint(rcv.url(), domain.EventApproved, domain.EventAssigned, domain.EventEscalatedToAML)
	rcv2 := newTestReceiver(t, ep.Secret)
	ep = f.mustUpdateURL(ep, rcv2.url())

	r := f.review()
	f.decide(domain.ActionAssign, r.ID, func(q *decisions.Request) { q.AssigneeID = f.op.ID })
	f.approve(r.ID)

	got := map[string]receiver.Event{}
	for len(got) < 2 {
		select {
		case ev := <-rcv2.notify:
			got[ev.EventType] = ev
		case <-time.After(20 * time.Second):
			t.Fatalf("verified events %v, want assigned and approved", got)
		}
	}
	app := got[string(domain.EventApproved)]
	if app.EntityReviewID != r.ID || app.EntityID != r.EntityID || app.AccountID != f.acct || app.Outcome == nil || *app.Outcome != "approved" || app.OccurredAt == "" {
		t.Errorf("approved event = %+v", app)
	}
	if as := got[string(domain.EventAssigned)]; as.Outcome != nil || as.EntityReviewID != r.ID {
		t.Errorf("assigned event = %+v, want outcome null", as)
	}
	ds := f.deliveries(2, domain.DeliveryFilter{EndpointID: ep.ID})
	for _, d := range ds {
		if d.Status != domain.DeliveryDelivered || d.ResponseStatus != http.StatusNoContent || d.URL != rcv2.url() || d.CompletedAt == nil {
			t.Errorf("delivery %s: %s %d %s", d.ID, d.Status, d.ResponseStatus, d.URL)
		}
	}
	settle()
	if req, ver, ref := rcv2.counts(); req != 2 || ver != 2 || ref != 0 {
		t.Errorf("receiver saw %d requests, %d verified, %d refused; want 2, 2, 0 (start fires nothing)", req, ver, ref)
	}
	if req, _, _ := rcv.counts(); req != 0 {
		t.Errorf("the endpoint's old URL got %d requests", req)
	}
}

func (f *flowFixture) mustUpdateURL(ep domain.Endpoint, url string) domain.Endpoint {
	f.t.Helper()
	f.seq++
	out, err := f.eps.Update(f.ctx, subscriptions.Actor{AccountID: f.acct, ActionID: "ep-" + itoa(f.seq)}, ep.ID, subscriptions.Changes{URL: &url})
	if err != nil {
		f.t.Fatal(err)
	}
	out.Secret = ep.Secret
	return out
}

func TestFailingReceiverIsRecordedAndNotRetried(t *testing.T) {
	f := newFlowFixture(t)
	rcv := newTestReceiver(t, "")
	rcv.answer(http.StatusInternalServerError, `{"error":"database down"}`)
	ep := f.endpoint(rcv.url(), domain.EventApproved)

	r := f.review()
	f.approve(r.ID)
	ds := f.deliveries(1, domain.DeliveryFilter{EndpointID: ep.ID})
	d := ds[0]
	if d.Status != domain.DeliveryFailed || d.ResponseStatus != 500 || d.ResponseBody != `{"error":"database down"}` || !strings.Contains(d.Error, "500") {
		t.Errorf("delivery = %s %d %q %q, want failed 500 with the body", d.Status, d.ResponseStatus, d.ResponseBody, d.Error)
	}
	// The message was acknowledged: nothing posts again, nothing waits.
	time.Sleep(1500 * time.Millisecond)
	if req, _, _ := rcv.counts(); req != 1 {
		t.Errorf("receiver got %d requests, want 1 (no automatic retry)", req)
	}
	if n := f.queueDepth(deploy.QueueDeliveries); n != 0 {
		t.Errorf("deliveries queue holds %d messages, want 0", n)
	}
}

// queueDepth counts the messages of a queue, visible or in flight.
func (f *flowFixture) queueDepth(id string) int {
	f.t.Helper()
	out, err := f.flow.SQS.GetQueueAttributes(f.ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(f.flow.QueueURLs[id]),
		AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for _, v := range out.Attributes {
		var x int
		json.Unmarshal([]byte(v), &x)
		n += x
	}
	return n
}

func TestDuplicateMessagePostsOnce(t *testing.T) {
	f := newFlowFixture(t)
	rcv := newTestReceiver(t, "")
	ep := f.endpoint(rcv.url(), domain.EventApproved)
	rcv2 := newTestReceiver(t, ep.Secret)
	ep = f.mustUpdateURL(ep, rcv2.url())

	r := f.review()
	f.approve(r.ID)
	first := f.deliveries(1, domain.DeliveryFilter{EndpointID: ep.ID})[0]

	// The same message again, twice, as SQS's at-least-once delivery or a
	// re-read stream record would send it.
	msg := delivery.Message{AccountID: f.acct, DeliveryID: first.ID, Attempt: 1, EndpointID: ep.ID, EventID: first.EventID, Event: first.Event}
	q := &delivery.SQSQueue{Client: f.flow.SQS, URL: f.flow.QueueURLs[deploy.QueueDeliveries]}
	if err := q.Send(f.ctx, []delivery.Message{msg, msg}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the queue drains", func() bool { return f.queueDepth(deploy.QueueDeliveries) == 0 })
	settle()
	if req, ver, _ := rcv2.counts(); req != 1 || ver != 1 {
		t.Errorf("receiver got %d requests (%d verified), want 1", req, ver)
	}
	if ds := f.deliveries(1, domain.DeliveryFilter{}); len(ds) != 1 {
		t.Errorf("%d delivery records, want 1", len(ds))
	}
}

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestInactiveOrUnsubscribedEndpointGetsNothing(t *testing.T) {
	f := newFlowFixture(t)
	unsub := newTestReceiver(t, "")
	inactive := newTestReceiver(t, "")
	active := newTestReceiver(t, "")
	f.endpoint(unsub.url(), domain.EventRejected) // not approvals
	off := f.endpoint(inactive.url(), domain.EventApproved)
	f.seq++
	no := false
	if _, err := f.eps.Update(f.ctx, subscriptions.Actor{AccountID: f.acct, ActionID: "ep-off"}, off.ID, subscriptions.Changes{Active: &no}); err != nil {
		t.Fatal(err)
	}
	on := f.endpoint(active.url(), domain.EventApproved)

	r := f.review()
	f.approve(r.ID)
	f.deliveries(1, domain.DeliveryFilter{EndpointID: on.ID})
	settle()
	if req, _, _ := unsub.counts(); req != 0 {
		t.Errorf("unsubscribed endpoint got %d requests", req)
	}
	if req, _, _ := inactive.counts(); req != 0 {
		t.Errorf("inactive endpoint got %d requests", req)
	}
	if ds, _ := f.st.Deliveries(f.ctx, f.acct, domain.DeliveryFilter{}); len(ds) != 1 {
		t.Errorf("%d delivery records, want only the active endpoint's", len(ds))
	}
}

func TestPoisonStreamRecordDoesNotBlockTheOthers(t *testing.T) {
	f := newFlowFixture(t)
	rcv := newTestReceiver(t, "")
	ep := f.endpoint(rcv.url(), domain.EventApproved)

	r1, r2 := f.review(), f.review()
	f.approve(r1.ID)
	// A review item review-events cannot read (its version is not a
	// number), changed so that its record is a MODIFY between good ones.
	raw := dynamodb.NewFromConfig(devstack.AWSConfig(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(devstack.DynamoDBEndpoint()) })
	bad := map[string]dtypes.AttributeValue{
		"account_id": &dtypes.AttributeValueMemberN{Value: itoa(int(f.acct))},
		"review_id":  &dtypes.AttributeValueMemberN{Value: "999999"},
		"entity_id":  &dtypes.AttributeValueMemberN{Value: itoa(int(r1.EntityID))},
		"status":     &dtypes.AttributeValueMemberS{Value: "open"},
		"version":    &dtypes.AttributeValueMemberS{Value: "not-a-number"},
	}
	for _, status := range []string{"open", "completed"} {
		bad["status"] = &dtypes.AttributeValueMemberS{Value: status}
		if _, err := raw.PutItem(f.ctx, &dynamodb.PutItemInput{TableName: aws.String(f.names[schema.Reviews]), Item: bad}); err != nil {
			t.Fatal(err)
		}
	}
	f.approve(r2.ID)

	ds := f.deliveries(2, domain.DeliveryFilter{EndpointID: ep.ID})
	reviews := map[int64]bool{}
	for _, d := range ds {
		reviews[d.Event.EntityReviewID] = true
	}
	if !reviews[r1.ID] || !reviews[r2.ID] {
		t.Errorf("deliveries for reviews %v, want %d and %d", reviews, r1.ID, r2.ID)
	}
	// The poison records went to the on-failure queue, where an operator
	// sees them.
	waitUntil(t, "the on-failure queue holds the poison records", func() bool {
		return f.queueDepth(deploy.QueueReviewEventsFailures) >= 1
	})
}

func TestRedeliveryIsANewAuditedAttempt(t *testing.T) {
	f := newFlowFixture(t)
	rcv := newTestReceiver(t, "")
	ep := f.endpoint(rcv.url(), domain.EventApproved)
	rcv.answer(http.StatusServiceUnavailable, "maintenance")

	r := f.review()
	f.approve(r.ID)
	failed := f.deliveries(1, domain.DeliveryFilter{EndpointID: ep.ID, Status: domain.DeliveryFailed})[0]

	// The receiver is back; an operator redelivers.
	rcv.answer(0, "")
	rcv2 := newTestReceiver(t, ep.Secret)
	f.mustUpdateURL(ep, rcv2.url())
	// The service itself, not the admin function: the test reads the
	// domain.Delivery it returns (TestFirstDayOnAStage redelivers through admin).
	ops := &delivery.Redeliverer{Store: f.st, Queue: &delivery.SQSQueue{Client: f.flow.SQS, URL: f.flow.QueueURLs[deploy.QueueDeliveries]}, Clock: domain.SystemClock}
	next, err := ops.Redeliver(f.ctx, f.acct, failed.ID, f.op.ID, "receiver back after maintenance", "redeliver-1")
	if err != nil {
		t.Fatal(err)
	}
	if next.ID != failed.ID+".2" || next.Attempt != 2 || next.Status != domain.DeliveryQueued {
		t.Errorf("redelivery = %s attempt %d %s", next.ID, next.Attempt, next.Status)
	}
	select {
	case ev := <-rcv2.notify:
		if ev.EntityReviewID != r.ID || ev.EventType != string(domain.EventApproved) {
			t.Errorf("redelivered event = %+v", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the redelivery never reached the receiver")
	}
	ds := f.deliveries(2, domain.DeliveryFilter{EndpointID: ep.ID})
	byID := map[string]domain.Delivery{}
	for _, d := range ds {
		byID[d.ID] = d
	}
	if d := byID[next.ID]; d.Status != domain.DeliveryDelivered || d.OriginalID != failed.ID || d.RequestedBy == nil || *d.RequestedBy != f.op.ID {
		t.Errorf("second attempt = %+v", d)
	}
	if d := byID[failed.ID]; d.Status != domain.DeliveryFailed || d.Attempts != 2 {
		t.Errorf("first attempt = %s with %d attempts, want failed, 2", d.Status, d.Attempts)
	}
	rec, err := f.st.AuditRecord(f.ctx, f.acct, "redeliver-1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Action != domain.ActionRedeliver || rec.OperatorID != f.op.ID || rec.Reason != "receiver back after maintenance" ||
		rec.Before["delivery_id"] != failed.ID || rec.After["delivery_id"] != next.ID {
		t.Errorf("audit = %+v", rec)
	}
	// The same action again makes no third attempt.
	again, err := ops.Redeliver(f.ctx, f.acct, failed.ID, f.op.ID, "receiver back after maintenance", "redeliver-1")
	if err != nil || again.ID != next.ID {
		t.Errorf("repeat = %s, %v; want %s", again.ID, err, next.ID)
	}
}

// flowLog is the pollers' log: quiet unless EVS_TEST_LOG is set.
func flowLog() *slog.Logger {
	if os.Getenv("EVS_TEST_LOG") != "" {
		return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return quietLogger()
}
