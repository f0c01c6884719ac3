package delivery_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// The handler runs inside a Lambda invocation whose context ends at the
// function's deadline: it must not claim a delivery whose POST could not
// end, and be recorded, before then. Such messages go back to SQS
// unclaimed; a POST under way is recorded as it ends.
func TestDeliverRespectsTheFunctionDeadline(t *testing.T) {
	t.Parallel()
	const (
		postTimeout = time.Second
		margin      = 200 * time.Millisecond
	)
	cases := []struct {
		name string
		// left is the time to the deadline when Handle starts; 0: no
		// deadline.
		left      time.Duration
		slow      time.Duration // the receiver's answer time
		wantPosts int
		wantLeft  bool // reported as a batch item failure, nothing recorded
		wantState domain.DeliveryStatus
	}{
		{name: "no deadline", slow: 0, wantPosts: 1, wantState: domain.DeliveryDelivered},
		{name: "time for the POST and its record", left: postTimeout + margin + 500*time.Millisecond, wantPosts: 1, wantState: domain.DeliveryDelivered},
		// A slow receiver, within the timeout, answering when the deadline
		// is near: the attempt is still recorded, delivered.
		{name: "slow answer near the deadline", left: postTimeout + margin + 100*time.Millisecond, slow: 900 * time.Millisecond, wantPosts: 1, wantState: domain.DeliveryDelivered},
		{name: "not enough time for the POST", left: postTimeout, wantLeft: true},
		{name: "not enough time to record", left: postTimeout + margin/2, wantLeft: true},
		{name: "deadline passed", left: -time.Second, wantLeft: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			rcv := newReceiver(t, func(rw http.ResponseWriter, _ *http.Request) {
				time.Sleep(c.slow)
				rw.WriteHeader(http.StatusNoContent)
			})
			ep := w.endpoint(t, rcv.url(), nil)
			msgs := []delivery.Message{w.message(ep), w.message(ep)}
			d := &delivery.Deliverer{Store: w.st, Client: webhooks.NewClient(webhooks.ClientOptions{Timeout: postTimeout, Allow: loopback(t)}),
				Lease: time.Minute, Margin: margin, Clock: domain.SystemClock}

			ctx := context.Background()
			if c.left != 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, time.Now().Add(c.left))
				defer cancel()
			}
			resp, err := d.Handle(ctx, sqsEvent(t, msgs...))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(rcv.got()); got != c.wantPosts*len(msgs) {
				t.Errorf("%d posts, want %d", got, c.wantPosts*len(msgs))
			}
			if c.wantLeft {
				if len(resp.BatchItemFailures) != len(msgs) {
					t.Errorf("batch item failures %+v, want every message", resp.BatchItemFailures)
				}
				// Unclaimed: the next receive, with time, delivers it.
				for _, m := range msgs {
					if _, err := w.st.Delivery(context.Background(), w.account, m.DeliveryID); domain.ErrorCode(err) != domain.ECodeNotFound {
						t.Errorf("delivery %s: err %v, want not found (unclaimed)", m.DeliveryID, err)
					}
				}
				// And it does, once there is time.
				resp, err = d.Handle(context.Background(), sqsEvent(t, msgs...))
				if err != nil || len(resp.BatchItemFailures) != 0 {
					t.Fatalf("second receive: %+v, %v", resp.BatchItemFailures, err)
				}
				c.wantState = domain.DeliveryDelivered
			} else if len(resp.BatchItemFailures) != 0 {
				t.Errorf("batch item failures %+v, want none", resp.BatchItemFailures)
			}
			for _, m := range msgs {
				if got := w.delivery(t, m.DeliveryID); got.Status != c.wantState || got.CompletedAt == nil {
					t.Errorf("delivery %s = %s (completed %v), want %s", m.DeliveryID, got.Status, got.CompletedAt, c.wantState)
				}
			}
		})
	}
}
