package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// upHarness is `up`'s wiring over a private stack: the gateway, the review
// flow and its supervision, an account with an operator, and a receiver
// subscribed to approvals.
type upHarness struct {
	t      *testing.T
	ctx    context.Context
	stack  *ownStack
	prefix string
	st     *store.Store
	names  schema.Names
	acct   int64
	op     domain.Operator
	flow   *reviewFlow
	sv     *supervision
	gw     *httptest.Server
	rcv    *countingReceiver
	seq    atomic.Int64

	mu     sync.Mutex
	backAt map[string]time.Time
	// restartDelay holds the supervisor's restart back, as a server that
	// takes a while to return: longer than the SDK's own retries, so
	// requests meet the outage.
	restartDelay time.Duration
}

// newUpHarness starts a private stack with stackEnv (and the queue prefix), and
// `up`'s wiring over it. hook runs as a server answers again.
func newUpHarness(t *testing.T, hook func(h *upHarness, name string), stackEnv ...string) *upHarness {
	t.Helper()
	prefix := devstack.UniquePrefix("up")
	stack := startPrivateStack(t, append(stackEnv, "ELASTICMQ_QUEUE_PREFIX="+prefix)...)
	// newReviewFlow finds the servers in the environment, as `up` does.
	t.Setenv("DYNAMODB_ENDPOINT", stack.dynamoEndpoint())
	t.Setenv("SQS_ENDPOINT", stack.queueEndpoint())
	h := &upHarness{t: t, ctx: context.Background(), stack: stack, prefix: prefix, backAt: map[string]time.Time{}}
	h.st, h.names = stack.store()
	e := &env{store: h.st, names: h.names, log: quietLogger()}
	h.acct = mustAccount(t, e, "Faults", "SA")
	op, err := h.st.CreateOperator(h.ctx, h.acct, "Lina Haddad", domain.OperatorPermissions(), domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	h.op = op
	allow, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	h.flow, err = newReviewFlow(h.ctx, h.st, h.names, flowLog(), flowOptions{QueuePrefix: prefix, Allow: allow,
		PollInterval: 50 * time.Millisecond, RetryBackoff: 200 * time.Millisecond, ClientTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h.sv = &supervision{
		Flow: h.flow, Names: h.names, QueuePrefix: prefix,
		DynamoDBEndpoint: stack.dynamoEndpoint(), SQSEndpoint: stack.queueEndpoint(),
		Interval: 250 * time.Millisecond,
		Restart: func(ctx context.Context) error {
			h.mu.Lock()
			delay := h.restartDelay
			h.mu.Unlock()
			pipeline.Sleep(ctx, delay)
			out, err := stack.script("start")
			if err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		},
		BackHook: func(_ context.Context, name string) {
			h.mu.Lock()
			h.backAt[name] = time.Now()
			h.mu.Unlock()
			if hook != nil {
				hook(h, name)
			}
		},
		Log: flowLog(),
	}
	t.Cleanup(h.sv.run(h.ctx))

	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()})
	t.Cleanup(simSrv.Close)
	h.gw = httptest.NewServer(newGateway(h.st, quietLogger(), simulatorProviders(simSrv.URL)))
	t.Cleanup(h.gw.Close)

	h.rcv = newCountingReceiver(t)
	// Directly: endpoints are no function of their own (admin runs this).
	eps := &subscriptions.Service{Store: h.st, Allow: allow, Clock: domain.SystemClock}
	ep, err := eps.Create(h.ctx, subscriptions.Actor{AccountID: h.acct, ActionID: "ep-1"}, h.rcv.srv.URL+"/hook", []domain.EventType{domain.EventApproved}, "")
	if err != nil {
		t.Fatal(err)
	}
	h.rcv.secret(ep.Secret)
	return h
}

func (h *upHarness) back(name string) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.backAt[name]
	return at, ok
}

// review makes an entity with an open review, in the store.
func (h *upHarness) review() domain.Review {
	h.t.Helper()
	n := h.seq.Add(1)
	now := domain.Now()
	// One the decision policy lets an operator approve.
	d, err := h.st.CreateEntity(h.ctx, approvable(h.acct, fmt.Sprintf("71%07d0", n), fmt.Sprintf("Faults Co %d", n), now))
	if err != nil {
		h.t.Fatal(err)
	}
	return d.Reviews[0]
}

// approve starts and approves a review through the decision handler: one
// approved event.
func (h *upHarness) approve(reviewID int64) error {
	decide, err := boot.As[boot.DecisionHandler]("decision", providers{}.deps(h.st, quietLogger()))
	if err != nil {
		return err
	}
	for _, action := range []domain.Action{domain.ActionStart, domain.ActionApprove} {
		req := decisions.Request{Action: action, AccountID: h.acct, ReviewID: reviewID, OperatorID: h.op.ID,
			ActionID: fmt.Sprintf("fault-%d-%s", reviewID, action), Reason: "fault test"}
		if action == domain.ActionStart {
			req.Reason = "" // start takes none
		}
		if _, err := decide(h.ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req})); err != nil {
			return fmt.Errorf("%s review %d: %w", action, reviewID, err)
		}
	}
	return nil
}

// countingReceiver counts every verified POST by delivery id and review.
type countingReceiver struct {
	srv        *httptest.Server
	mu         sync.Mutex
	handler    http.Handler
	byDelivery map[string]int
	byReview   map[int64]int
	refused    int
}

func newCountingReceiver(t *testing.T) *countingReceiver {
	r := &countingReceiver{byDelivery: map[string]int{}, byReview: map[int64]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		h := r.handler
		r.mu.Unlock()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusUnauthorized {
			r.mu.Lock()
			r.refused++
			r.mu.Unlock()
		}
		w.WriteHeader(rec.Code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *countingReceiver) secret(s string) {
	v := &receiver.Verifier{Secrets: [][]byte{[]byte(s)}, Log: quietLogger()}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handler = receiver.Handler(v, func(_ context.Context, ev receiver.Event, deliveryID string) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.byDelivery[deliveryID]++
		r.byReview[ev.EntityReviewID]++
		return nil
	})
}

func (r *countingReceiver) reviews() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byReview)
}

// waitReviews waits until the receiver has events of n reviews.
func (r *countingReceiver) waitReviews(t *testing.T, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for r.reviews() < n {
		if time.Now().After(deadline) {
			t.Fatalf("receiver has events of %d reviews after %v, want %d", r.reviews(), within, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
