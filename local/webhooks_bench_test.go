package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// Issue 6's measurements, with the pollers at make local's settings (the
// stream polled four times a second, as Lambda polls it).
const (
	benchDecisions  = 60
	benchDeliveries = 500
)

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

// BenchmarkDecisionToReceiver times each decision from its commit (the
// decision handler's return) to the receiver's verified POST: stream poll,
// review-events, the queue, webhook-delivery, signature check.
func BenchmarkDecisionToReceiver(b *testing.B) {
	for i := 0; i < b.N; i++ {
		f := newFlowFixtureWith(b, flowOptions{})
		stop := f.flow.run(f.ctx, flowLog())
		rcv := newTestReceiver(b, "")
		ep := f.endpoint(rcv.url(), domain.EventApproved)
		rcv2 := newTestReceiver(b, ep.Secret)
		f.mustUpdateURL(ep, rcv2.url())

		var lat []time.Duration
		for n := 0; n < benchDecisions; n++ {
			r := f.review()
			f.decide(domain.ActionStart, r.ID, nil)
			f.decide(domain.ActionApprove, r.ID, nil)
			committed := time.Now()
			for got := false; !got; {
				select {
				case ev := <-rcv2.notify:
					got = ev.EntityReviewID == r.ID
				case <-time.After(30 * time.Second):
					b.Fatalf("decision %d never reached the receiver", n)
				}
			}
			lat = append(lat, time.Since(committed))
		}
		stop()
		poll := 250 * time.Millisecond // the stream poller's default, Lambda's
		b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "commit-to-receiver-p50-ms")
		b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "commit-to-receiver-p95-ms")
		b.ReportMetric(float64(percentile(lat, 0.5))/float64(poll), "p50/stream-poll-interval")
	}
}

// BenchmarkDeliveryThroughput measures deliveries per second through one
// webhook-delivery consumer (one poller, batches of ten posted side by
// side) against a local receiver: the queue is filled first, then drained.
func BenchmarkDeliveryThroughput(b *testing.B) {
	for i := 0; i < b.N; i++ {
		f := newFlowFixtureWith(b, flowOptions{})
		rcv := newTestReceiver(b, "")
		ep := f.endpoint(rcv.url(), domain.EventApproved)
		rcv2 := newTestReceiver(b, ep.Secret)
		f.mustUpdateURL(ep, rcv2.url())

		q := &delivery.SQSQueue{Client: f.flow.SQS, URL: f.flow.QueueURLs[deploy.QueueDeliveries]}
		msgs := make([]delivery.Message, 0, benchDeliveries)
		for n := 0; n < benchDeliveries; n++ {
			ev := domain.Event{EventType: domain.EventApproved, EntityReviewID: int64(n + 1), EntityID: int64(n + 1), AccountID: f.acct,
				Outcome: new("approved"), OccurredAt: domain.FormatTime(domain.Now())}
			msgs = append(msgs, delivery.NewMessage(fmt.Sprintf("evt_bench_%d", n), ev, ep.ID))
		}
		if err := q.Send(f.ctx, msgs); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(f.ctx)
		done := make(chan struct{})
		start := time.Now()
		go func() { f.flow.Queue.Run(ctx); close(done) }()
		for n := 0; n < benchDeliveries; n++ {
			select {
			case <-rcv2.notify:
			case <-time.After(60 * time.Second):
				b.Fatalf("%d of %d deliveries arrived", n, benchDeliveries)
			}
		}
		elapsed := time.Since(start)
		cancel()
		<-done
		b.ReportMetric(float64(benchDeliveries)/elapsed.Seconds(), "deliveries/s")
		b.ReportMetric(float64(elapsed.Microseconds())/1000/benchDeliveries, "ms/delivery")
	}
}

// BenchmarkHealthyBesideSleepingEndpoint measures, in one run, the healthy
// endpoint's p50 delay (commit → verified POST) alone, then with a second
// endpoint beside it, subscribed to the same events, that never answers
// within the delivery timeout (shortened to 1 s here so the run stays short;
// the sleeper holds each of its POSTs that long). The ratio is the row's
// figure: deliveries to different endpoints must not wait for each other
// (target ≤ 1.2).
func BenchmarkHealthyBesideSleepingEndpoint(b *testing.B) {
	const timeout = time.Second
	for i := 0; i < b.N; i++ {
		f := newFlowFixtureWith(b, flowOptions{ClientTimeout: timeout})
		stop := f.flow.run(f.ctx, flowLog())
		rcv := newTestReceiver(b, "")
		ep := f.endpoint(rcv.url(), domain.EventApproved)
		healthy := newTestReceiver(b, ep.Secret)
		f.mustUpdateURL(ep, healthy.url())

		measure := func() time.Duration {
			var lat []time.Duration
			for n := 0; n < benchDecisions; n++ {
				r := f.review()
				f.approve(r.ID)
				committed := time.Now()
				for got := false; !got; {
					select {
					case ev := <-healthy.notify:
						got = ev.EntityReviewID == r.ID
					case <-time.After(30 * time.Second):
						b.Fatalf("decision %d never reached the healthy receiver", n)
					}
				}
				lat = append(lat, time.Since(committed))
			}
			return percentile(lat, 0.5)
		}
		alone := measure()

		sleeper := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(2 * timeout) // past the client's timeout, which hangs up first
		}))
		f.endpoint(sleeper.URL+"/hook", domain.EventApproved)
		beside := measure()
		stop()
		sleeper.Close()
		failed, err := f.st.Deliveries(f.ctx, f.acct, domain.DeliveryFilter{Status: domain.DeliveryFailed})
		if err != nil || len(failed) == 0 {
			b.Fatalf("the sleeping endpoint has %d failed deliveries (%v): it was not posted to", len(failed), err)
		}
		b.ReportMetric(float64(alone.Microseconds())/1000, "healthy-alone-p50-ms")
		b.ReportMetric(float64(beside.Microseconds())/1000, "healthy-beside-sleeper-p50-ms")
		b.ReportMetric(float64(beside)/float64(alone), "beside/alone-p50")
	}
}
