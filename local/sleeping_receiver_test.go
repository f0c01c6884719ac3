package main

// One receiver that sleeps past the delivery timeout, beside a healthy one:
// nothing lost, nothing doubled on either side. (How late the healthy one's
// deliveries are is a ratio measured by make bench, not asserted here.)

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestSleepingReceiverBesideAHealthyOne(t *testing.T) {
	f := newFlowFixtureWith(t, flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond, ClientTimeout: 500 * time.Millisecond})
	t.Cleanup(f.flow.run(f.ctx, flowLog()))

	var mu sync.Mutex
	posts := map[string]map[string]int{} // receiver → delivery id → POSTs
	receiver := func(name string, sleep time.Duration) *httptest.Server {
		posts[name] = map[string]int{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			posts[name][r.Header.Get("X-Service-Delivery-Id")]++
			mu.Unlock()
			time.Sleep(sleep)
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	sleeper := f.endpoint(receiver("sleeper", 2*time.Second).URL, domain.EventApproved)
	healthy := f.endpoint(receiver("healthy", 0).URL, domain.EventApproved)

	const n = 12
	for i := 0; i < n; i++ {
		f.approve(f.review().ID)
	}
	for _, c := range []struct {
		name       string
		endpoint   int64
		wantStatus domain.DeliveryStatus
	}{
		{"healthy", healthy.ID, domain.DeliveryDelivered},
		{"sleeper", sleeper.ID, domain.DeliveryFailed},
	} {
		ds := f.deliveries(n, domain.DeliveryFilter{EndpointID: c.endpoint, Limit: 100})
		if len(ds) != n {
			t.Errorf("%s: %d deliveries recorded, want %d", c.name, len(ds), n)
		}
		for _, d := range ds {
			if d.Status != c.wantStatus {
				t.Errorf("%s: delivery %s is %s (%s), want %s", c.name, d.ID, d.Status, d.Error, c.wantStatus)
			}
		}
	}
	time.Sleep(time.Second) // a doubled POST would have landed by now
	mu.Lock()
	defer mu.Unlock()
	for name, byID := range posts {
		if len(byID) != n {
			t.Errorf("%s got %d deliveries, want %d", name, len(byID), n)
		}
		for id, c := range byID {
			if c != 1 {
				t.Errorf("%s got delivery %s %d times, want once", name, id, c)
			}
		}
	}
}
