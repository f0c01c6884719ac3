package queue_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
)

func counts(open, inProgress, escalated int) map[domain.ReviewStatus]int {
	return map[domain.ReviewStatus]int{domain.ReviewOpen: open, domain.ReviewInProgress: inProgress, domain.ReviewEscalated: escalated}
}

// The counts follow every review write that changes them: the entity's
// create, a claim, an approval (the review leaves the queue), an
// escalation whose decision did not say the status it read; a claim
// repeated under its action id changes nothing.
func TestQueueCountsFollowReviews(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	acct := w.account(t)
	if err := w.st.PutAccountSettings(ctx, acct, domain.AccountSettings{SLADays: map[domain.ReviewPurpose]int{domain.ReviewInitial: 3}}); err != nil {
		t.Fatal(err)
	}
	var created []domain.Review
	for i := range 2 {
		at := t0.Add(time.Duration(i) * time.Hour)
		d, err := w.st.CreateEntity(ctx, domain.EntityDetail{
			Entity: domain.Entity{AccountID: acct, RegistrationNumber: fmt.Sprintf("700000000%d", i), LegalName: fmt.Sprintf("Created %d", i),
				CountryCode: "SA", CountryID: 682, Status: domain.EntityReadyForReview, CreatedAt: at, UpdatedAt: at},
			Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at}},
		})
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, d.Reviews[0])
	}
	check := func(step string, want map[domain.ReviewStatus]int, rows ...int64) {
		t.Helper()
		p, err := w.svc.Page(ctx, acct, 7, queue.Filter{}, "")
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(p.Counts, want) || !slices.Equal(ids(p.Rows), rows) {
			t.Fatalf("after %s: counts %v, rows %v; want %v, %v", step, p.Counts, ids(p.Rows), want, rows)
		}
		for _, r := range p.Rows {
			// Created on Nov 1 with 3 days: due Nov 4; the clock says Nov 11.
			if r.Due.String() != "7 days late" || r.LegalName == "" || r.Country != "SA" {
				t.Errorf("after %s: review %d shows %q, %q, due %q", step, r.Review.ID, r.LegalName, r.Country, r.Due)
			}
		}
	}
	check("the creates", counts(2, 0, 0), created[0].ID, created[1].ID)

	claim := func(actionID string) (domain.Review, error) {
		return w.svc.ClaimNext(ctx, actor(acct, 7, actionID), operator(acct, 7), queue.Filter{})
	}
	claimed, err := claim("claim-1")
	if err != nil {
		t.Fatal(err)
	}
	if claimed.ID != created[0].ID || claimed.Status != domain.ReviewInProgress || domain.Deref(claimed.AssignedUserID) != 7 || claimed.StartedAt == nil {
		t.Fatalf("claimed %+v, want review %d in progress, assigned to 7", claimed, created[0].ID)
	}
	check("the claim", counts(1, 1, 0), created[0].ID, created[1].ID)
	if again, err := claim("claim-1"); err != nil || again.ID != claimed.ID {
		t.Fatalf("the claim again = review %d, %v; want %d", again.ID, err, claimed.ID)
	}
	check("the claim again", counts(1, 1, 0), created[0].ID, created[1].ID)
	if rows := w.walk(t, acct, 7, queue.Filter{Assignee: queue.AssigneeMe}, 2); !slices.Equal(ids(rows), []int64{claimed.ID}) {
		t.Errorf("assigned to me: %v, want %d", ids(rows), claimed.ID)
	}
	// Audited as the two actions it stands for, assign then start, each
	// operator 7's, known by the session's passkey ("key-7", base64url),
	// consecutive in the entity's chain, which holds.
	for _, tc := range []struct {
		actionID      string
		action        domain.Action
		before, after map[string]any
	}{
		{"claim-1", domain.ActionAssign, map[string]any{"assigned_user_id": float64(0)}, map[string]any{"assigned_user_id": float64(7)}},
		{queue.StartActionID("claim-1"), domain.ActionStart, map[string]any{"status": "open", "started_at": ""},
			map[string]any{"status": "in_progress", "started_at": domain.FormatTime(*claimed.StartedAt)}},
	} {
		rec, err := w.st.AuditRecord(ctx, acct, tc.actionID)
		if err != nil || rec.Action != tc.action || rec.OperatorID != 7 || rec.OperatorName != "Operator 7" || domain.Deref(rec.ReviewID) != claimed.ID ||
			rec.EntityID != claimed.EntityID {
			t.Errorf("the claim's %s record = %+v, %v", tc.action, rec, err)
		}
		if rec.Identity != domain.IdentitySession || rec.Actor != "session:a2V5LTc" || len(rec.Signatures) != 0 {
			t.Errorf("%s is known by %q, actor %q, %d signatures; want session, session:a2V5LTc, none", tc.action, rec.Identity, rec.Actor, len(rec.Signatures))
		}
		if !maps.Equal(rec.Before, tc.before) || !maps.Equal(rec.After, tc.after) {
			t.Errorf("%s records %v -> %v, want %v -> %v", tc.action, rec.Before, rec.After, tc.before, tc.after)
		}
	}
	ch, err := w.st.AuditChain(ctx, acct, claimed.EntityID)
	if err != nil || ch.Verify() != nil || ch.Head.Seq != int64(len(ch.Records)) || ch.Head.ActionID != queue.StartActionID("claim-1") {
		t.Errorf("the entity's chain after the claim: head %+v of %d records, %v, %v", ch.Head, len(ch.Records), ch.Verify(), err)
	}

	done := claimed
	done.Status, done.Outcome, done.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), new(t0.Add(48*time.Hour))
	err = w.st.ApplyDecision(ctx, domain.Decision{Review: &done, ReviewWas: claimed.Status,
		Audit: domain.AuditRecord{AccountID: acct, ActionID: "approve-1", Action: domain.ActionApprove, OperatorID: 7,
			ReviewID: &done.ID, EntityID: done.EntityID, At: t0.Add(48 * time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	check("the approval", counts(1, 0, 0), created[1].ID)

	other, err := w.st.Review(ctx, acct, created[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	esc := other
	esc.Status, esc.Escalation = domain.ReviewEscalated, new(domain.EscalationAML)
	err = w.st.ApplyDecision(ctx, domain.Decision{Review: &esc,
		Audit: domain.AuditRecord{AccountID: acct, ActionID: "escalate-1", Action: domain.ActionEscalateToAML, OperatorID: 7,
			ReviewID: &esc.ID, EntityID: esc.EntityID, At: t0.Add(49 * time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	check("an escalation", counts(0, 0, 1), created[1].ID)
	if _, err := claim("claim-2"); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("a claim with nothing open = %v, want not_found", err)
	}
	// A decision that says a status the review no longer has moves nothing.
	stale := esc
	stale.Status = domain.ReviewOpen
	err = w.st.ApplyDecision(ctx, domain.Decision{Review: &stale, ReviewWas: domain.ReviewInProgress,
		Audit: domain.AuditRecord{AccountID: acct, ActionID: "reopen-1", Action: domain.ActionAssign, OperatorID: 7,
			ReviewID: &esc.ID, EntityID: esc.EntityID, At: t0.Add(50 * time.Hour)}})
	if !errors.Is(err, domain.ErrStale) {
		t.Errorf("a decision on a status the review does not have = %v, want ErrStale", err)
	}
	check("a refused decision", counts(0, 0, 1), created[1].ID)
}

// Two operators pressing "Take the next one" at once get two different
// reviews; with one waiting, one gets it and the other is told nothing
// waits.
func TestQueueConcurrentClaims(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	for round := range 3 {
		for _, waiting := range []int{2, 1} {
			t.Run(fmt.Sprintf("round %d, %d waiting", round, waiting), func(t *testing.T) {
				acct := w.account(t)
				specs := make([]spec, waiting)
				for i := range specs {
					specs[i] = spec{created: t0.Add(time.Duration(i) * time.Minute)}
				}
				seeded := w.seed(t, acct, specs)
				var wg sync.WaitGroup
				start := make(chan struct{})
				got := make([]domain.Review, 2)
				errs := make([]error, 2)
				for i, op := range []int64{7, 9} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						got[i], errs[i] = w.svc.ClaimNext(ctx, actor(acct, op, fmt.Sprintf("claim-%d", op)), operator(acct, op), queue.Filter{})
					}()
				}
				close(start)
				wg.Wait()
				var claimed []int64
				for i, err := range errs {
					switch {
					case err == nil:
						claimed = append(claimed, got[i].ID)
					case domain.ErrorCode(err) != domain.ECodeNotFound:
						t.Fatalf("claim %d: %v", i, err)
					}
				}
				slices.Sort(claimed)
				var want []int64
				for _, r := range seeded {
					want = append(want, r.ID)
				}
				if !slices.Equal(claimed, want) {
					t.Fatalf("claimed %v (errors %v), want each of %v once", claimed, errs, want)
				}
				p, err := w.svc.Page(ctx, acct, 7, queue.Filter{}, "")
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(p.Counts, counts(0, waiting, 0)) {
					t.Errorf("counts %v, want %d in progress", p.Counts, waiting)
				}
			})
		}
	}
}

// A claim is refused to an operator who may not decide, or of another
// account, and finds nothing for filters no unassigned open review meets.
func TestQueueClaimRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	acct := w.account(t)
	w.seed(t, acct, []spec{{country: "AE"}, {status: domain.ReviewEscalated, escalation: domain.EscalationAML}})
	viewer := operator(acct, 7)
	viewer.Permissions = []string{domain.PermReviewAssign}
	for _, tc := range []struct {
		name string
		a    domain.Actor
		op   domain.Operator
		f    queue.Filter
		code string
	}{
		{"no permission to decide", actor(acct, 7, "c1"), viewer, queue.Filter{}, domain.ECodeForbidden},
		{"an operator of another account", actor(acct, 7, "c2"), operator(acct+1, 7), queue.Filter{}, domain.ECodeForbidden},
		{"acting as someone else", actor(acct, 9, "c3"), operator(acct, 7), queue.Filter{}, domain.ECodeForbidden},
		{"no session's passkey", domain.Actor{AccountID: acct, OperatorID: 7, ActionID: "c9"}, operator(acct, 7), queue.Filter{}, domain.ECodeForbidden},
		{"no action id", actor(acct, 7, ""), operator(acct, 7), queue.Filter{}, domain.ECodeInvalid},
		{"an unknown filter", actor(acct, 7, "c4"), operator(acct, 7), queue.Filter{Risk: "extreme"}, domain.ECodeInvalid},
		{"escalated", actor(acct, 7, "c5"), operator(acct, 7), queue.Filter{Status: domain.ReviewEscalated}, domain.ECodeNotFound},
		{"mine", actor(acct, 7, "c6"), operator(acct, 7), queue.Filter{Assignee: queue.AssigneeMe}, domain.ECodeNotFound},
		{"in SA", actor(acct, 7, "c7"), operator(acct, 7), queue.Filter{Country: "SA"}, domain.ECodeNotFound},
		{"high risk", actor(acct, 7, "c8"), operator(acct, 7), queue.Filter{Risk: "high"}, domain.ECodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.svc.ClaimNext(ctx, tc.a, tc.op, tc.f); domain.ErrorCode(err) != tc.code {
				t.Errorf("ClaimNext = %v, want %s", err, tc.code)
			}
		})
	}
}
