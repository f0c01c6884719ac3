package main

// The flow stopped and started again, as `up` is on Ctrl-C and `make local`:
// the stream reader resumes from its checkpoint, and stopping drains the
// deliveries under way.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

var restartOptions = flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond, ClientTimeout: 5 * time.Second}

// restart builds the flow again over the fixture's tables and queues, as a
// new `up` process would: new pollers, nothing kept in memory. seen, if
// set, gets the review id of every stream record the new flow hands
// review-events.
func (f *flowFixture) restart(seen func(reviewID string)) *reviewFlow {
	f.t.Helper()
	o := restartOptions
	o.QueuePrefix = strings.TrimSuffix(f.flow.Queue.URL[strings.LastIndex(f.flow.Queue.URL, "/")+1:], deploy.QueueDeliveries)
	o.Allow = f.eps.Allow
	flow, err := newReviewFlow(f.ctx, f.st, f.names, flowLog(), o)
	if err != nil {
		f.t.Fatal(err)
	}
	if seen != nil {
		handle := flow.Streams.Handler
		flow.Streams.Handler = func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, r := range ev.Records {
				seen(r.Change.Keys["review_id"].Number())
			}
			return handle(ctx, ev)
		}
	}
	return flow
}

func TestFlowRestartResumesFromCheckpoint(t *testing.T) {
	f := newFlowFixtureWith(t, restartOptions)
	stop := f.flow.run(f.ctx, flowLog())
	rcv := newTestReceiver(t, "")
	ep := f.endpoint(rcv.url(), domain.EventApproved)
	rcv2 := newTestReceiver(t, ep.Secret)
	f.mustUpdateURL(ep, rcv2.url())

	waitEvents := func(n int) map[int64]int {
		t.Helper()
		got := map[int64]int{}
		for i := 0; i < n; i++ {
			select {
			case ev := <-rcv2.notify:
				got[ev.EntityReviewID]++
			case <-time.After(20 * time.Second):
				t.Fatalf("%d of %d events arrived: %v", i, n, got)
			}
		}
		return got
	}
	var before []int64
	for range 3 {
		r := f.review()
		f.approve(r.ID)
		before = append(before, r.ID)
	}
	waitEvents(3)
	stop() // Ctrl-C

	// Decisions while `up` is down are delivered once it is back.
	var down, after []int64
	for range 2 {
		r := f.review()
		f.approve(r.ID)
		down = append(down, r.ID)
	}
	var mu sync.Mutex
	reread := map[string]bool{}
	flow := f.restart(func(id string) {
		mu.Lock()
		reread[id] = true
		mu.Unlock()
	})
	stop2 := flow.run(f.ctx, flowLog())
	defer stop2()
	r := f.review()
	f.approve(r.ID)
	after = append(after, r.ID)

	got := waitEvents(3)
	settle()
	for _, id := range append(down, after...) {
		if got[id] != 1 {
			t.Errorf("review %d: %d events after the restart, want 1", id, got[id])
		}
	}
	if len(got) != 3 {
		t.Errorf("events after the restart for reviews %v, want only %v and %v", got, down, after)
	}
	if req, ver, _ := rcv2.counts(); req != 6 || ver != 6 {
		t.Errorf("receiver got %d requests (%d verified), want 6: each event once", req, ver)
	}
	// The restarted reader never read the stream from its start again.
	mu.Lock()
	defer mu.Unlock()
	for _, id := range before {
		if reread[itoa(int(id))] {
			t.Errorf("review %d's records were read again after the restart", id)
		}
	}
}

// slowReceiver answers 204 after delay, counting requests per delivery id.
type slowReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	started map[string]int
}

func newSlowReceiver(t *testing.T, delay time.Duration) *slowReceiver {
	r := &slowReceiver{started: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.started[req.Header.Get(delivery.HeaderDeliveryID)]++
		r.mu.Unlock()
		time.Sleep(delay)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *slowReceiver) counts() (deliveries, requests int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.started {
		requests += n
	}
	return len(r.started), requests
}

func TestFlowStopDrainsDeliveriesInFlight(t *testing.T) {
	const n = 10
	f := newFlowFixtureWith(t, restartOptions) // POSTs time out after 5 s
	stop := f.flow.run(f.ctx, flowLog())
	rcv := newSlowReceiver(t, 2*time.Second)
	ep := f.endpoint(rcv.srv.URL+"/hook", domain.EventApproved)
	for range n {
		r := f.review()
		f.approve(r.ID)
	}
	waitUntil(t, "every delivery is being posted", func() bool { d, _ := rcv.counts(); return d == n })
	stopped := time.Now()
	stop() // SIGTERM
	t.Logf("drained in %v", time.Since(stopped).Round(time.Millisecond))

	// Recorded before stop returned: nothing to wait for.
	ds, err := f.st.Deliveries(f.ctx, f.acct, domain.DeliveryFilter{EndpointID: ep.ID})
	if err != nil {
		t.Fatal(err)
	}
	delivered := 0
	for _, d := range ds {
		if d.Status == domain.DeliveryDelivered {
			delivered++
		} else {
			t.Errorf("delivery %s: %s %q, want delivered", d.ID, d.Status, d.Error)
		}
	}
	if delivered != n {
		t.Errorf("%d delivered of %d records, want %d", delivered, len(ds), n)
	}
	if depth := f.queueDepth(deploy.QueueDeliveries); depth != 0 {
		t.Errorf("deliveries queue holds %d messages after the drain, want 0 (all acknowledged)", depth)
	}

	// Started again: nothing is posted a second time.
	stop2 := f.restart(nil).run(f.ctx, flowLog())
	defer stop2()
	time.Sleep(2 * time.Second)
	if d, req := rcv.counts(); d != n || req != n {
		t.Errorf("receiver got %d requests for %d deliveries, want %d each once", req, d, n)
	}
}
