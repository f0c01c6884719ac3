package decisions_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/store"
)

// hookStore is the store with a step run once just before the next write
// of a decision or of a wait: what another request does between a
// signature's check and its write.
type hookStore struct {
	*store.Store
	beforeApply, beforeAwait func()
}

func (h *hookStore) ApplyDecision(ctx context.Context, d domain.Decision) error {
	if f := h.beforeApply; f != nil {
		h.beforeApply = nil
		f()
	}
	return h.Store.ApplyDecision(ctx, d)
}

func (h *hookStore) AwaitApproval(ctx context.Context, p domain.PendingApproval, maker *domain.SignatureUse) error {
	if f := h.beforeAwait; f != nil {
		h.beforeAwait = nil
		f()
	}
	return h.Store.AwaitApproval(ctx, p, maker)
}

// movingClock is the wall clock moved on by the test: DynamoDB Local drops
// items past their TTL by the wall clock, and a later time drops none.
type movingClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *movingClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *movingClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// hooked is the signed world with its decisions over a hookStore, and the
// service and the passkeys on a clock the test moves.
func hooked(t *testing.T) (*signedWorld, *hookStore, *movingClock) {
	w := newSignedWorld(t)
	h, clk := &hookStore{Store: w.st}, &movingClock{}
	w.svc.Store, w.svc.Clock, w.keys.Clock = h, clk.now, clk.now
	return w, h, clk
}

// signIn signs o in with their passkey, moving its counter on.
func signIn(t *testing.T, w *signedWorld, o *passkeytest.Operator) {
	t.Helper()
	ctx := context.Background()
	opts, err := w.keys.BeginLogin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := o.Auth.Get(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.keys.FinishLogin(ctx, resp); err != nil {
		t.Fatal(err)
	}
}

// counterOf is o's first passkey's counter as stored.
func counterOf(t *testing.T, w *signedWorld, o *passkeytest.Operator) uint32 {
	t.Helper()
	p, err := w.st.Passkey(context.Background(), w.account, o.ID, o.Auth.Credentials()[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return p.SignCount
}

// refusedUnwritten checks that a decision was refused as SignatureRequired
// and that nothing of it was written: no audit record, the review as it
// was.
func refusedUnwritten(t *testing.T, w *signedWorld, err error, req decisions.Request, was domain.Review) {
	t.Helper()
	if domain.FailureName(err) != domain.FailSignatureRequired {
		t.Errorf("%v, want SignatureRequired", err)
	}
	if _, err := w.st.AuditRecord(context.Background(), w.account, req.ActionID); err == nil {
		t.Error("the refused decision wrote its audit record")
	}
	if now, _ := w.st.Review(context.Background(), w.account, was.ID); now.Version != was.Version || now.Status != was.Status {
		t.Errorf("the review moved: %+v, was %+v", now, was)
	}
}

// A passkey's counter moves in the transaction of the decision its
// signature signs, conditioned on the value read when the signature was
// checked: of two decisions signed with one counter value (a cloned
// authenticator), checked both before either was written, the one
// written second is refused and writes nothing.
func TestTwoDecisionsSignedWithOneCounterValue(t *testing.T) {
	ctx := context.Background()
	w, hooks, _ := hooked(t)
	_, r1 := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	_, r2 := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	id := w.decider.Auth.Credentials()[0].ID
	before := counterOf(t, w, w.decider)
	first := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionStart, r1.ID, w.world.decider))
	if err := w.decider.Auth.SetCounter(id, before); err != nil { // the clone's counter
		t.Fatal(err)
	}
	clone := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionStart, r2.ID, w.world.decider))

	hooks.beforeApply = func() {
		if _, _, err := w.svc.Apply(ctx, clone, nil); err != nil {
			t.Fatalf("the clone's decision: %v", err)
		}
	}
	_, _, err := w.svc.Apply(ctx, first, nil)
	refusedUnwritten(t, w, err, first, r1)
	if _, err := w.st.AuditRecord(ctx, w.account, clone.ActionID); err != nil {
		t.Errorf("the decision written first: %v", err)
	}
	if got := counterOf(t, w, w.decider); got != before+1 {
		t.Errorf("the counter is %d, want %d (moved once, by the decision written)", got, before+1)
	}
	// Tried again, the same signature is refused when checked: its
	// counter no longer goes up.
	_, _, err = w.svc.Apply(ctx, first, nil)
	refusedUnwritten(t, w, err, first, r1)
}

// A four-eyes decision: the maker's signature is spent when the decision
// begins to wait, in the write that records the wait (its ceremony
// taken, its counter moved, conditioned on the value read); the second
// operator's days later, in a ceremony of their own as short, in the
// decision's transaction, conditioned likewise. Either use refused writes
// nothing.
func TestFourEyesSignaturesAreSpentInTheirWrites(t *testing.T) {
	ctx := context.Background()
	w, hooks, clk := hooked(t)
	_, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview)
	req := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionEscalateToAML, r.ID, w.world.decider))
	if v, err := w.svc.Validate(ctx, req); err != nil || !v.RequiresSecondApproval {
		t.Fatalf("validate = %+v, %v", v, err)
	}

	// The maker's passkey signs in between the check and the wait's write:
	// the write is refused, nothing waits.
	hooks.beforeAwait = func() { signIn(t, w, w.decider) }
	if err := w.svc.Await(ctx, req, "task-1", "arn:1"); domain.FailureName(err) != domain.FailSignatureRequired {
		t.Errorf("await with the maker's counter moved meanwhile: %v", err)
	}
	if _, err := w.st.PendingApproval(ctx, w.account, req.ActionID); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("a refused wait was recorded: %v", err)
	}
	// Signed again, it waits: the ceremony is gone, the counter moved.
	req = signed(t, w.decider, passkey.PurposeDecision, req)
	if err := w.svc.Await(ctx, req, "task-2", "arn:2"); err != nil {
		t.Fatal(err)
	}
	p, err := w.st.PendingApproval(ctx, w.account, req.ActionID)
	if err != nil || len(p.MakerNonce) == 0 || p.TaskToken != "task-2" {
		t.Fatalf("pending approval %+v, %v", p, err)
	}
	if got, want := counterOf(t, w, w.decider), w.decider.Auth.Credentials()[0].SignCount; got != want {
		t.Errorf("the maker's counter is %d after the wait, want %d", got, want)
	}
	if _, err := w.svc.Validate(ctx, req); domain.FailureName(err) != domain.FailSignatureRequired {
		t.Errorf("the maker's ceremony outlived the wait's write: %v", err)
	}

	// Two days later, past every signing ceremony's lifetime: the maker
	// has signed in since (no clone), and the second operator signs in a
	// ceremony of their own. Their passkey signs in between the check and
	// the decision's write: refused, nothing written, still waiting.
	clk.add(48 * time.Hour)
	signIn(t, w, w.decider)
	approve := func() *decisions.Approval {
		a, err := w.second.Sign(ctx, passkey.PurposeApproval, decisions.Digest(req))
		if err != nil {
			t.Fatal(err)
		}
		return &decisions.Approval{Signature: &a}
	}
	hooks.beforeApply = func() { signIn(t, w, w.second) }
	_, _, err = w.svc.Apply(ctx, req, approve())
	refusedUnwritten(t, w, err, req, r)
	if _, err := w.st.PendingApproval(ctx, w.account, req.ActionID); err != nil {
		t.Errorf("a refused approval took the pending one: %v", err)
	}

	got, _, err := w.svc.Apply(ctx, req, approve())
	if err != nil || got.Escalation == nil || *got.Escalation != domain.EscalationAML {
		t.Fatalf("approved: %+v, %v", got, err)
	}
	rec, _ := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if len(rec.Signatures) != 2 {
		t.Fatalf("audit record's signatures: %+v", rec.Signatures)
	}
	verifyRecorded(t, w, rec)
	if got, want := counterOf(t, w, w.second), w.second.Auth.Credentials()[0].SignCount; got != want {
		t.Errorf("the second operator's counter is %d, want %d", got, want)
	}
	if _, err := w.st.PendingApproval(ctx, w.account, req.ActionID); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("the applied decision left its pending approval: %v", err)
	}
}

// A signing ceremony lives passkey.SigningTTL (minutes): a signature given
// and not used within it, the maker's or the second operator's, is refused
// and writes nothing.
func TestASigningCeremonyPastItsLifetime(t *testing.T) {
	ctx := context.Background()
	w, _, clk := hooked(t)
	if passkey.SigningTTL > 10*time.Minute {
		t.Errorf("a signing ceremony lives %v: minutes, not days", passkey.SigningTTL)
	}
	_, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	_, four := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview)
	for _, tc := range []struct {
		name string
		run  func() (decisions.Request, domain.Review, error)
	}{
		{"a decision applied after it", func() (decisions.Request, domain.Review, error) {
			req := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionStart, r.ID, w.world.decider))
			clk.add(passkey.SigningTTL)
			_, _, err := w.svc.Apply(ctx, req, nil)
			return req, r, err
		}},
		{"a maker's signature when the decision begins to wait", func() (decisions.Request, domain.Review, error) {
			req := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionEscalateToAML, four.ID, w.world.decider))
			clk.add(passkey.SigningTTL)
			return req, four, w.svc.Await(ctx, req, "task", "arn")
		}},
		{"a second operator's approval", func() (decisions.Request, domain.Review, error) {
			req := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionEscalateToAML, four.ID, w.world.decider))
			if err := w.svc.Await(ctx, req, "task", "arn"); err != nil {
				t.Fatal(err)
			}
			a, err := w.second.Sign(ctx, passkey.PurposeApproval, decisions.Digest(req))
			if err != nil {
				t.Fatal(err)
			}
			clk.add(passkey.SigningTTL)
			_, _, err = w.svc.Apply(ctx, req, &decisions.Approval{Signature: &a})
			return req, four, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, was, err := tc.run()
			refusedUnwritten(t, w, err, req, was)
		})
	}
}
