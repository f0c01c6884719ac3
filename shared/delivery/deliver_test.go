package delivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// These tests run against DynamoDB Local; the receivers are httptest
// servers on 127.0.0.1, which the client reaches only through the
// allow-list.

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

const secret = "whsec_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"

type world struct {
	st      *store.Store
	account int64
	mu      sync.Mutex
	seq     int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	st := devstacktest.Store(t)
	acct, err := st.CreateAccount(context.Background(), "Deliveries "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	return &world{st: st, account: acct.ID}
}

func (w *world) next() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	return w.seq
}

// endpoint stores an active endpoint subscribed to every event, signing
// with secret, edited by edit.
func (w *world) endpoint(t *testing.T, url string, edit func(*domain.Endpoint)) domain.Endpoint {
	t.Helper()
	e := domain.Endpoint{AccountID: w.account, URL: url, Events: domain.EventTypes(), Active: true, Secret: secret, CreatedAt: t0, UpdatedAt: t0}
	if edit != nil {
		edit(&e)
	}
	n := w.next()
	ep, err := w.st.CreateEndpoint(context.Background(), e,
		domain.AuditRecord{AccountID: w.account, ActionID: fmt.Sprintf("ep-%d", n), Action: domain.ActionEndpointCreate, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// message is the first delivery of an approval of a review of its own to ep.
func (w *world) message(ep domain.Endpoint) delivery.Message {
	n := int64(w.next())
	ev := domain.Event{EventType: domain.EventApproved, EntityReviewID: 1000 + n, EntityID: 500 + n, AccountID: w.account,
		Outcome: new(domain.OutcomeApproved), OccurredAt: "2026-11-01T10:00:00.000Z"}
	return delivery.NewMessage(fmt.Sprintf("evt_%032d", n), ev, ep.ID)
}

func (w *world) delivery(t *testing.T, id string) domain.Delivery {
	t.Helper()
	d, err := w.st.Delivery(context.Background(), w.account, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sqsEvent(t *testing.T, msgs ...delivery.Message) events.SQSEvent {
	t.Helper()
	var ev events.SQSEvent
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprintf("msg-%d", i), Body: string(b)})
	}
	return ev
}

// post is one request a receiver got.
type post struct {
	Path   string
	Header http.Header
	Body   []byte
}

// recv is a receiver: it records every request and answers with handle.
type recv struct {
	srv   *httptest.Server
	mu    sync.Mutex
	posts []post
}

func newReceiver(t *testing.T, handle http.HandlerFunc) *recv {
	t.Helper()
	r := &recv{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.posts = append(r.posts, post{Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		if req.Method != http.MethodPost {
			rw.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		handle(rw, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recv) url() string { return r.srv.URL + "/hooks/evs" }

func (r *recv) got() []post {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.posts)
}

func answer(status int, body string) http.HandlerFunc {
	return func(rw http.ResponseWriter, _ *http.Request) {
		rw.WriteHeader(status)
		io.WriteString(rw, body)
	}
}

func loopback(t *testing.T) webhooks.AllowList {
	t.Helper()
	allow, err := webhooks.ParseAllowList("127.0.0.0/8,::1/128")
	if err != nil {
		t.Fatal(err)
	}
	return allow
}

func deliverer(t *testing.T, w *world, opts webhooks.ClientOptions) *delivery.Deliverer {
	return &delivery.Deliverer{Store: w.st, Client: webhooks.NewClient(opts), Lease: time.Minute, Clock: domain.SystemClock}
}

func handle(t *testing.T, d *delivery.Deliverer, ev events.SQSEvent) []events.SQSBatchItemFailure {
	t.Helper()
	resp, err := d.Handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return resp.BatchItemFailures
}

func TestDeliverSignedPost(t *testing.T) {
	w := newWorld(t)
	rcv := newReceiver(t, func(rw http.ResponseWriter, _ *http.Request) {
		time.Sleep(20 * time.Millisecond)
		rw.WriteHeader(http.StatusNoContent)
	})
	ep := w.endpoint(t, rcv.url(), nil)
	msg := w.message(ep)
	before := time.Now().Add(-time.Second)
	if f := handle(t, deliverer(t, w, webhooks.ClientOptions{Timeout: 5 * time.Second, Allow: loopback(t)}), sqsEvent(t, msg)); len(f) != 0 {
		t.Fatalf("failures = %+v", f)
	}

	posts := rcv.got()
	if len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	p := posts[0]
	want := fmt.Sprintf(`{"event_type":"entity_review.approved","entity_review_id":%d,"entity_id":%d,"account_id":%d,"outcome":"approved","occurred_at":"2026-11-01T10:00:00.000Z"}`,
		msg.Event.EntityReviewID, msg.Event.EntityID, w.account)
	if string(p.Body) != want {
		t.Errorf("body\n got %s\nwant %s", p.Body, want)
	}
	v := &receiver.Verifier{Secrets: [][]byte{[]byte(secret)}, Tolerance: 5 * time.Minute}
	if err := v.Verify(p.Header, p.Body); err != nil {
		t.Errorf("verify: %v", err)
	}
	if err := (&receiver.Verifier{Secrets: [][]byte{[]byte("whsec_other")}}).Verify(p.Header, p.Body); err == nil {
		t.Error("another secret verifies")
	}
	if sig := p.Header.Get("X-Service-Signature"); !regexp.MustCompile(`^sha256=[0-9a-f]{64}$`).MatchString(sig) || !webhooks.Verify([]byte(secret), p.Body, sig) {
		t.Errorf("X-Service-Signature = %q, want one sha256=<hex> of the body", sig)
	}
	for h, want := range map[string]string{
		"Content-Type":          "application/json",
		"X-Service-Delivery-Id": msg.DeliveryID,
		"X-Service-Event-Id":    msg.EventID,
		"User-Agent":            delivery.UserAgent,
	} {
		if got := p.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	ts, err := strconv.ParseInt(p.Header.Get("X-Service-Timestamp"), 10, 64)
	if err != nil || time.Unix(ts, 0).Before(before.Truncate(time.Second)) || time.Unix(ts, 0).After(time.Now()) {
		t.Errorf("X-Service-Timestamp = %q", p.Header.Get("X-Service-Timestamp"))
	}
	if p.Path != "/hooks/evs" {
		t.Errorf("path = %s", p.Path)
	}

	d := w.delivery(t, msg.DeliveryID)
	if d.Status != domain.DeliveryDelivered || d.ResponseStatus != 204 || d.Error != "" || d.ResponseBody != "" {
		t.Errorf("recorded %s %d %q %q", d.Status, d.ResponseStatus, d.Error, d.ResponseBody)
	}
	if d.DurationMS < 20 || d.DurationMS > 5000 {
		t.Errorf("duration = %d ms", d.DurationMS)
	}
	if d.StartedAt == nil || d.CompletedAt == nil || d.CompletedAt.Before(*d.StartedAt) || d.StartedAt.Before(before) {
		t.Errorf("started %v, completed %v", d.StartedAt, d.CompletedAt)
	}
	if d.ID != msg.DeliveryID || d.OriginalID != msg.DeliveryID || d.Attempt != 1 || d.Attempts != 1 || d.EndpointID != ep.ID ||
		d.EventID != msg.EventID || d.URL != ep.URL || !reflect.DeepEqual(d.Event, msg.Event) {
		t.Errorf("recorded %+v", d)
	}
	if payload := d.Payload; string(payload) != want {
		t.Errorf("stored payload %s", payload)
	}
}

func TestDeliverOutcomes(t *testing.T) {
	w := newWorld(t)
	long := strings.Repeat("é", 3000) // 6000 bytes, cut inside a rune
	wait := func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
		rw.WriteHeader(http.StatusOK)
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		opts    func(*webhooks.ClientOptions)
		edit    func(*domain.Endpoint)
		after   func(*testing.T, domain.Endpoint) // between creating the endpoint and delivering
		batches [][]int                           // message copies per batch; [[1]] when nil
		posts   int
		status  domain.DeliveryStatus
		code    int
		body    string
		err     string // a part of the recorded error
	}{
		{name: "200", handler: answer(200, "ok"), posts: 1, status: domain.DeliveryDelivered, code: 200, body: "ok"},
		{name: "201 with a body", handler: answer(201, `{"received":true}`), posts: 1, status: domain.DeliveryDelivered, code: 201, body: `{"received":true}`},
		{name: "299", handler: answer(299, ""), posts: 1, status: domain.DeliveryDelivered, code: 299},
		{name: "500 with a body, then the same message again", handler: answer(500, "database down"), batches: [][]int{{1}, {1}},
			posts: 1, status: domain.DeliveryFailed, code: 500, body: "database down", err: "receiver answered 500"},
		{name: "404", handler: answer(404, "no such hook"), posts: 1, status: domain.DeliveryFailed, code: 404, body: "no such hook", err: "404"},
		{name: "a long answer is capped", handler: answer(500, long), posts: 1, status: domain.DeliveryFailed, code: 500,
			body: strings.Repeat("é", 2041) + "…[truncated]", err: "500"},
		{name: "duplicate message in one batch", handler: answer(200, ""), batches: [][]int{{2}}, posts: 1, status: domain.DeliveryDelivered, code: 200},
		{name: "endpoint deactivated", handler: answer(200, ""), edit: func(e *domain.Endpoint) { e.Active = false },
			status: domain.DeliveryFailed, err: "endpoint deactivated before delivery"},
		{name: "endpoint unsubscribed", handler: answer(200, ""), edit: func(e *domain.Endpoint) { e.Events = []domain.EventType{domain.EventRejected} },
			status: domain.DeliveryFailed, err: "endpoint unsubscribed from entity_review.approved before delivery"},
		{name: "endpoint deleted", handler: answer(200, ""), after: func(t *testing.T, ep domain.Endpoint) {
			if err := w.st.DeleteEndpoint(context.Background(), w.account, ep.ID, ep.Version,
				domain.AuditRecord{AccountID: w.account, ActionID: fmt.Sprintf("del-%d", ep.ID), Action: domain.ActionEndpointDelete, At: t0}); err != nil {
				t.Fatal(err)
			}
		}, status: domain.DeliveryFailed, err: "endpoint deleted before delivery"},
		{name: "receiver too slow", handler: wait, opts: func(o *webhooks.ClientOptions) { o.Timeout = 200 * time.Millisecond },
			posts: 1, status: domain.DeliveryFailed, err: "timeout"},
		{name: "loopback without the allow-list", handler: answer(200, ""), opts: func(o *webhooks.ClientOptions) { o.Allow = webhooks.AllowList{} },
			status: domain.DeliveryFailed, err: "refusing to connect to 127.0.0.1: loopback"},
		{name: "redirect, not followed", handler: func(rw http.ResponseWriter, r *http.Request) {
			http.Redirect(rw, r, "/elsewhere", http.StatusFound)
		}, posts: 1, status: domain.DeliveryFailed, code: 302, err: "receiver answered 302"},
		{name: "permanent redirect, not followed", handler: func(rw http.ResponseWriter, r *http.Request) {
			http.Redirect(rw, r, "/elsewhere", http.StatusPermanentRedirect)
		}, posts: 1, status: domain.DeliveryFailed, code: 308, err: "receiver answered 308"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rcv := newReceiver(t, tc.handler)
			ep := w.endpoint(t, rcv.url(), tc.edit)
			if tc.after != nil {
				tc.after(t, ep)
			}
			opts := webhooks.ClientOptions{Timeout: 5 * time.Second, Allow: loopback(t)}
			if tc.opts != nil {
				tc.opts(&opts)
			}
			d := deliverer(t, w, opts)
			msg := w.message(ep)
			batches := tc.batches
			if batches == nil {
				batches = [][]int{{1}}
			}
			var first domain.Delivery
			for i, b := range batches {
				var msgs []delivery.Message
				for range b[0] {
					msgs = append(msgs, msg)
				}
				if f := handle(t, d, sqsEvent(t, msgs...)); len(f) != 0 {
					t.Fatalf("batch %d: failures = %+v (the message must be acknowledged)", i, f)
				}
				if i == 0 {
					first = w.delivery(t, msg.DeliveryID)
				}
			}
			if got := rcv.got(); len(got) != tc.posts {
				t.Errorf("%d posts, want %d: %+v", len(got), tc.posts, got)
			} else {
				for _, p := range got {
					if p.Path != "/hooks/evs" {
						t.Errorf("posted to %s", p.Path)
					}
				}
			}
			got := w.delivery(t, msg.DeliveryID)
			if got.Status != tc.status || got.ResponseStatus != tc.code || got.ResponseBody != tc.body {
				t.Errorf("recorded %s %d %q, want %s %d %q", got.Status, got.ResponseStatus, got.ResponseBody, tc.status, tc.code, tc.body)
			}
			if len(got.ResponseBody) > delivery.MaxRecordedBody || !utf8.ValidString(got.ResponseBody) {
				t.Errorf("recorded body of %d bytes, valid UTF-8 %v", len(got.ResponseBody), utf8.ValidString(got.ResponseBody))
			}
			if tc.err == "" && got.Error != "" || !strings.Contains(strings.ToLower(got.Error), strings.ToLower(tc.err)) {
				t.Errorf("error = %q, want it to contain %q", got.Error, tc.err)
			}
			wantURL := ep.URL
			if tc.after != nil {
				wantURL = "" // deleted: nowhere to post
			}
			if got.CompletedAt == nil || got.URL != wantURL || got.Attempt != 1 || got.Attempts != 1 {
				t.Errorf("recorded %+v", got)
			}
			if !reflect.DeepEqual(got, first) {
				t.Errorf("the record changed after the first batch\n got %+v\nwant %+v", got, first)
			}
		})
	}
}

func TestDeliverDuringRotation(t *testing.T) {
	w := newWorld(t)
	rcv := newReceiver(t, answer(200, ""))
	const newSecret = "whsec_new"
	now := time.Now().UTC().Truncate(time.Millisecond)
	ep := w.endpoint(t, rcv.url(), func(e *domain.Endpoint) {
		e.Secret, e.PreviousSecret, e.PreviousExpiresAt = newSecret, secret, new(now.Add(time.Hour))
	})
	tests := []struct {
		name     string
		at       time.Time
		verifies map[string]bool
		sigs     int
	}{
		{"within the overlap", now, map[string]bool{secret: true, newSecret: true, "whsec_other": false}, 2},
		{"after the overlap", now.Add(2 * time.Hour), map[string]bool{secret: false, newSecret: true}, 1},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := deliverer(t, w, webhooks.ClientOptions{Allow: loopback(t)})
			d.Clock = domain.FixedClock(tc.at)
			msg := w.message(ep)
			if f := handle(t, d, sqsEvent(t, msg)); len(f) != 0 {
				t.Fatalf("failures %+v", f)
			}
			posts := rcv.got()
			if len(posts) != i+1 {
				t.Fatalf("%d posts", len(posts))
			}
			p := posts[i]
			header := p.Header.Get("X-Service-Signature")
			sigs := strings.Split(header, ",")
			if len(sigs) != tc.sigs {
				t.Errorf("X-Service-Signature = %q, want %d signatures", header, tc.sigs)
			}
			// The current secret first.
			if first := strings.TrimSpace(sigs[0]); first != webhooks.Sign([]byte(newSecret), p.Body) {
				t.Errorf("first signature %q is not the current secret's", first)
			}
			for s, want := range tc.verifies {
				err := (&receiver.Verifier{Secrets: [][]byte{[]byte(s)}}).Verify(p.Header, p.Body)
				if (err == nil) != want {
					t.Errorf("secret %s verifies: %v, want %v", s, err == nil, want)
				}
			}
			if got := w.delivery(t, msg.DeliveryID); got.Status != domain.DeliveryDelivered {
				t.Errorf("status %s", got.Status)
			}
		})
	}
}

func TestDeliverInterrupted(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rcv := newReceiver(t, answer(200, ""))
	ep := w.endpoint(t, rcv.url(), nil)
	msg := w.message(ep)
	lease := time.Minute
	// A first receive claimed the delivery, then its function died.
	_, res, err := w.st.ClaimDelivery(ctx, domain.Delivery{AccountID: w.account, ID: msg.DeliveryID, Attempt: 1, EndpointID: ep.ID,
		EventID: msg.EventID, Event: msg.Event, URL: ep.URL, CreatedAt: t0}, t0, lease)
	if err != nil || res != domain.Claimed {
		t.Fatalf("claim: %v %v", res, err)
	}
	tests := []struct {
		name   string
		at     time.Time
		status domain.DeliveryStatus
		err    string
	}{
		{"a duplicate within the lease: nothing", t0.Add(30 * time.Second), domain.DeliverySending, ""},
		{"a duplicate after the lease: recorded failed", t0.Add(lease + time.Second), domain.DeliveryFailed, "interrupted"},
		{"once more: nothing", t0.Add(2 * lease), domain.DeliveryFailed, "interrupted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := deliverer(t, w, webhooks.ClientOptions{Allow: loopback(t)})
			d.Lease = lease
			d.Clock = domain.FixedClock(tc.at)
			if f := handle(t, d, sqsEvent(t, msg)); len(f) != 0 {
				t.Fatalf("failures %+v", f)
			}
			if n := len(rcv.got()); n != 0 {
				t.Errorf("%d posts, want none", n)
			}
			got := w.delivery(t, msg.DeliveryID)
			if got.Status != tc.status || !strings.Contains(got.Error, tc.err) {
				t.Errorf("recorded %s %q, want %s %q", got.Status, got.Error, tc.status, tc.err)
			}
			if tc.status == domain.DeliveryFailed && (got.CompletedAt == nil || !got.CompletedAt.Equal(t0.Add(lease+time.Second))) {
				t.Errorf("completed at %v", got.CompletedAt)
			}
		})
	}
	failed, err := w.st.Deliveries(ctx, w.account, domain.DeliveryFilter{Status: domain.DeliveryFailed})
	if err != nil || len(failed) != 1 || failed[0].ID != msg.DeliveryID {
		t.Errorf("failed deliveries = %+v (%v)", failed, err)
	}
}

func TestDeliverUnreadableMessages(t *testing.T) {
	w := newWorld(t)
	rcv := newReceiver(t, answer(200, ""))
	ep := w.endpoint(t, rcv.url(), nil)
	good := w.message(ep)
	lost := w.message(ep)
	lost.DeliveryID, lost.Attempt = lost.DeliveryID+".2", 2 // a redelivery whose attempt was never recorded
	ev := sqsEvent(t, good, lost)
	ev.Records = append(ev.Records,
		events.SQSMessage{MessageId: "not-json", Body: "not json"},
		events.SQSMessage{MessageId: "empty", Body: "{}"},
		events.SQSMessage{MessageId: "no-delivery-id", Body: fmt.Sprintf(`{"account_id":%d,"endpoint_id":%d}`, w.account, ep.ID)},
	)
	f := handle(t, deliverer(t, w, webhooks.ClientOptions{Allow: loopback(t)}), ev)
	var ids []string
	for _, x := range f {
		ids = append(ids, x.ItemIdentifier)
	}
	slices.Sort(ids)
	if want := []string{"empty", "msg-1", "no-delivery-id", "not-json"}; !slices.Equal(ids, want) {
		t.Errorf("failures = %v, want %v", ids, want)
	}
	if n := len(rcv.got()); n != 1 {
		t.Errorf("%d posts, want 1 (the good message)", n)
	}
	if got := w.delivery(t, good.DeliveryID); got.Status != domain.DeliveryDelivered {
		t.Errorf("good message: %s", got.Status)
	}
}

// A Deliverer built without a lease must not take a duplicate arriving
// while the first copy is still posting for an interrupted attempt.
func TestDeliverWithoutLeaseSet(t *testing.T) {
	w := newWorld(t)
	rcv := newReceiver(t, func(rw http.ResponseWriter, _ *http.Request) {
		time.Sleep(100 * time.Millisecond)
		rw.WriteHeader(http.StatusOK)
	})
	ep := w.endpoint(t, rcv.url(), nil)
	msg := w.message(ep)
	d := deliverer(t, w, webhooks.ClientOptions{Allow: loopback(t)})
	d.Lease = 0
	if f := handle(t, d, sqsEvent(t, msg, msg, msg)); len(f) != 0 {
		t.Errorf("failures = %+v", f)
	}
	if n := len(rcv.got()); n != 1 {
		t.Errorf("%d posts, want 1", n)
	}
	if got := w.delivery(t, msg.DeliveryID); got.Status != domain.DeliveryDelivered || got.Error != "" {
		t.Errorf("recorded %s %q", got.Status, got.Error)
	}
}
