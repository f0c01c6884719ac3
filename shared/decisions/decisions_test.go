package decisions_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// These tests run against DynamoDB Local.

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

type world struct {
	st                                    *store.Store
	svc                                   *decisions.Service
	account                               int64
	decider, second, assigner, risk, edit int64
	nobody                                int64
	seq                                   int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct, err := st.CreateAccount(ctx, "Decisions", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, "SA", 682, t0)); err != nil {
		t.Fatal(err)
	}
	op := func(name string, perms ...string) int64 {
		o, err := st.CreateOperator(ctx, acct.ID, name, perms, t0)
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	// Declared decisions: these tests are of the rules; signed_test.go is
	// of who decides.
	if err := st.PutAccountSettings(ctx, acct.ID, domain.AccountSettings{DeclaredDecisions: true}); err != nil {
		t.Fatal(err)
	}
	w := &world{st: st, account: acct.ID}
	w.decider = op("Dana Decider", domain.PermReviewDecide)
	w.second = op("Sami Second", domain.PermReviewDecide)
	w.assigner = op("Ali Assigner", domain.PermReviewAssign)
	w.risk = op("Rania Risk", domain.PermRiskAssess)
	w.edit = op("Eli Editor", domain.PermProfileEdit)
	w.nobody = op("Nadia Nobody")
	w.svc = &decisions.Service{Store: st, Checker: &checks.Runner{Clock: domain.SystemClock}, Clock: domain.SystemClock}
	return w
}

// entity creates an entity whose (initial) review is in the given status,
// with a completed screening listing two matches, neither adjudicated, and
// no risk assessment; each prep then changes it before it is written.
func (w *world) entity(t *testing.T, reviewStatus domain.ReviewStatus, entityStatus domain.EntityStatus, prep ...func(*domain.EntityDetail)) (domain.Entity, domain.Review) {
	t.Helper()
	w.seq++
	d := domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.account, RegistrationNumber: fmt.Sprintf("70000%05d", w.seq), LegalName: "Decided Co", CountryCode: "SA", CountryID: 682,
			Status: entityStatus, RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsNeedsReview, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "needs_review", "matched": true, "matches_count": 2, "matches": []any{
				map[string]any{"id": "NK-weak", "score": 0.75}, map[string]any{"id": "NK-other", "score": 0.72}}},
			CreatedAt: t0, UpdatedAt: t0}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: reviewStatus, CreatedAt: t0, UpdatedAt: t0}},
	}
	if reviewStatus == domain.ReviewEscalated {
		d.Reviews[0].Escalation = new(domain.EscalationSupervisor)
	}
	for _, p := range prep {
		p(&d)
	}
	created, err := w.st.CreateEntity(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return created.Entity, created.Reviews[0]
}

// approvable makes an entity the policy lets an operator approve: both
// matches dismissed, its risk assessed low, and the registry lookup its
// country's intake requires completed beside the screening.
func approvable(d *domain.EntityDetail) {
	d.Entity.DismissedMatches = []string{"NK-weak", "NK-other"}
	d.Entity.SanctionsStatus = domain.SanctionsClear
	d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: t0}
	d.Checks = append(d.Checks, domain.Check{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted,
		TriggeringReason: domain.TriggerIntake, Result: map[string]any{"status": "active"}, CreatedAt: t0, UpdatedAt: t0})
}

func (w *world) req(action domain.Action, review, operator int64) decisions.Request {
	w.seq++
	req := decisions.Request{Action: action, AccountID: w.account, ReviewID: review, OperatorID: operator,
		ActionID: fmt.Sprintf("act-%d", w.seq), Reason: "because"}
	if action == domain.ActionStart {
		req.Reason = "" // start takes none
	}
	// The review's entity, which a signed document must name.
	if r, err := w.st.Review(context.Background(), w.account, review); err == nil {
		req.EntityID = r.EntityID
	}
	return req
}

func TestTransitions(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	type tc struct {
		name        string
		action      domain.Action
		from        domain.ReviewStatus
		entityFrom  domain.EntityStatus
		operator    func(*world) int64
		edit        func(*decisions.Request, *world)
		wantFailure string
		wantStatus  domain.ReviewStatus
		wantEntity  domain.EntityStatus
		checkReview func(*testing.T, domain.Review)
		// prep makes the entity as the case needs it (approvable to approve).
		prep func(*domain.EntityDetail)
	}
	decider := func(w *world) int64 { return w.decider }
	tests := []tc{
		{name: "start an open review", action: domain.ActionStart, from: domain.ReviewOpen, operator: decider, wantStatus: domain.ReviewInProgress,
			checkReview: func(t *testing.T, r domain.Review) {
				if r.StartedAt == nil || r.AssignedUserName == nil || *r.AssignedUserName != "Dana Decider" {
					t.Errorf("started review = %+v", r)
				}
			}},
		{name: "start twice", action: domain.ActionStart, from: domain.ReviewInProgress, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "start a completed review", action: domain.ActionStart, from: domain.ReviewCompleted, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "assign", action: domain.ActionAssign, from: domain.ReviewOpen, operator: func(w *world) int64 { return w.assigner },
			edit: func(r *decisions.Request, w *world) { r.AssigneeID = w.second }, wantStatus: domain.ReviewOpen,
			checkReview: func(t *testing.T, r domain.Review) {
				if r.AssignedUserName == nil || *r.AssignedUserName != "Sami Second" {
					t.Errorf("assignee = %v", r.AssignedUserName)
				}
			}},
		{name: "assign to someone who cannot decide", action: domain.ActionAssign, from: domain.ReviewOpen, operator: func(w *world) int64 { return w.assigner },
			edit: func(r *decisions.Request, w *world) { r.AssigneeID = w.edit }, wantFailure: domain.FailInvalid},
		{name: "assign without the permission", action: domain.ActionAssign, from: domain.ReviewOpen, operator: decider,
			edit: func(r *decisions.Request, w *world) { r.AssigneeID = w.second }, wantFailure: domain.FailForbidden},
		{name: "assign a cancelled review", action: domain.ActionAssign, from: domain.ReviewCancelled, operator: func(w *world) int64 { return w.assigner },
			edit: func(r *decisions.Request, w *world) { r.AssigneeID = w.second }, wantFailure: domain.FailIllegalTransition},
		{name: "escalate", action: domain.ActionEscalate, from: domain.ReviewInProgress, operator: decider, wantStatus: domain.ReviewEscalated},
		{name: "escalate an escalated review", action: domain.ActionEscalate, from: domain.ReviewEscalated, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "escalate without a reason", action: domain.ActionEscalate, from: domain.ReviewOpen, operator: decider, edit: func(r *decisions.Request, _ *world) { r.Reason = "" }, wantFailure: domain.FailInvalid},
		{name: "escalate to AML from escalated", action: domain.ActionEscalateToAML, from: domain.ReviewEscalated, operator: decider, wantStatus: domain.ReviewEscalated,
			checkReview: func(t *testing.T, r domain.Review) {
				if r.Escalation == nil || *r.Escalation != domain.EscalationAML {
					t.Errorf("escalation = %v", r.Escalation)
				}
			}},
		{name: "approve in progress", action: domain.ActionApprove, from: domain.ReviewInProgress, entityFrom: domain.EntityReadyForReview, operator: decider, wantStatus: domain.ReviewCompleted, wantEntity: domain.EntityApproved,
			prep: approvable, checkReview: func(t *testing.T, r domain.Review) {
				if r.Outcome == nil || *r.Outcome != "approved" || r.OutcomeReason == nil || *r.OutcomeReason != "because" || r.CompletedAt == nil {
					t.Errorf("approved review = %+v", r)
				}
			}},
		{name: "approve escalated", action: domain.ActionApprove, from: domain.ReviewEscalated, entityFrom: domain.EntityReadyForReview, operator: decider, wantStatus: domain.ReviewCompleted, wantEntity: domain.EntityApproved,
			prep: approvable},
		{name: "approve over open matches without a risk assessment", action: domain.ActionApprove, from: domain.ReviewInProgress, operator: decider, wantFailure: domain.FailDecisionBlocked},
		{name: "approve an open review", action: domain.ActionApprove, from: domain.ReviewOpen, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "approve without the permission", action: domain.ActionApprove, from: domain.ReviewInProgress, operator: func(w *world) int64 { return w.nobody }, wantFailure: domain.FailForbidden},
		{name: "reject", action: domain.ActionReject, from: domain.ReviewInProgress, entityFrom: domain.EntityReadyForReview, operator: decider, wantStatus: domain.ReviewCompleted, wantEntity: domain.EntityRejected},
		{name: "reject a completed review", action: domain.ActionReject, from: domain.ReviewCompleted, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "cancel", action: domain.ActionCancel, from: domain.ReviewOpen, operator: decider, wantStatus: domain.ReviewCancelled},
		{name: "cancel a cancelled review", action: domain.ActionCancel, from: domain.ReviewCancelled, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "assess risk", action: domain.ActionAssessRisk, from: domain.ReviewCompleted, operator: func(w *world) int64 { return w.risk },
			edit: func(r *decisions.Request, _ *world) { r.RiskLevel = "high" }, wantStatus: domain.ReviewCompleted},
		{name: "assess risk with a bad level", action: domain.ActionAssessRisk, from: domain.ReviewOpen, operator: func(w *world) int64 { return w.risk },
			edit: func(r *decisions.Request, _ *world) { r.RiskLevel = "extreme" }, wantFailure: domain.FailInvalid},
		{name: "assess risk without the permission", action: domain.ActionAssessRisk, from: domain.ReviewOpen, operator: decider,
			edit: func(r *decisions.Request, _ *world) { r.RiskLevel = "low" }, wantFailure: domain.FailForbidden},
		{name: "update profile", action: domain.ActionUpdateProfile, from: domain.ReviewOpen, operator: func(w *world) int64 { return w.edit },
			edit: func(r *decisions.Request, _ *world) { r.WebsiteURL = new("https://decided.example.sa") }, wantStatus: domain.ReviewOpen},
		{name: "update profile with a bad URL", action: domain.ActionUpdateProfile, from: domain.ReviewOpen, operator: func(w *world) int64 { return w.edit },
			edit: func(r *decisions.Request, _ *world) { r.SocialURL = new("javascript:alert(1)") }, wantFailure: domain.FailInvalid},
		{name: "adjudicate a match as a false positive", action: domain.ActionAdjudicateMatch, from: domain.ReviewInProgress, operator: decider,
			edit: func(r *decisions.Request, _ *world) { r.MatchID, r.Verdict = "NK-weak", domain.VerdictFalsePositive }, wantStatus: domain.ReviewInProgress},
		{name: "adjudicate an unknown match", action: domain.ActionAdjudicateMatch, from: domain.ReviewInProgress, operator: decider,
			edit: func(r *decisions.Request, _ *world) { r.MatchID, r.Verdict = "NK-none", domain.VerdictFalsePositive }, wantFailure: domain.FailInvalid},
		{name: "open a periodic review while one is active", action: domain.ActionOpenPeriodicReview, from: domain.ReviewOpen, entityFrom: domain.EntityApproved, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "open a periodic review for a draft", action: domain.ActionOpenPeriodicReview, from: domain.ReviewCompleted, entityFrom: domain.EntityReadyForReview, operator: decider, wantFailure: domain.FailIllegalTransition},
		{name: "unknown action", action: "approve_all", from: domain.ReviewOpen, operator: decider, wantFailure: domain.FailInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entityFrom := tt.entityFrom
			if entityFrom == "" {
				entityFrom = domain.EntityReadyForReview
			}
			var prep []func(*domain.EntityDetail)
			if tt.prep != nil {
				prep = append(prep, tt.prep)
			}
			e, r := w.entity(t, tt.from, entityFrom, prep...)
			req := w.req(tt.action, r.ID, tt.operator(w))
			if tt.edit != nil {
				tt.edit(&req, w)
			}
			got, _, err := w.svc.Apply(ctx, req, nil)
			if tt.wantFailure != "" {
				if domain.FailureName(err) != tt.wantFailure {
					t.Fatalf("err = %v, want %s", err, tt.wantFailure)
				}
				// A refused action writes nothing.
				after, _ := w.st.Review(ctx, w.account, r.ID)
				ent, _ := w.st.Entity(ctx, w.account, e.ID)
				trail, _ := w.st.AuditTrail(ctx, w.account, e.ID)
				if after.Status != r.Status || after.Version != r.Version || ent.Version != e.Version || len(trail) != 0 {
					t.Errorf("a refused action wrote: review %s v%d, entity v%d, %d audit records", after.Status, after.Version, ent.Version, len(trail))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored, err := w.st.Review(ctx, w.account, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != tt.wantStatus || stored.Status != tt.wantStatus {
				t.Errorf("status = %s (stored %s), want %s", got.Status, stored.Status, tt.wantStatus)
			}
			if tt.checkReview != nil {
				tt.checkReview(t, stored)
			}
			ent, _ := w.st.Entity(ctx, w.account, e.ID)
			if tt.wantEntity != "" && ent.Status != tt.wantEntity {
				t.Errorf("entity status = %s, want %s", ent.Status, tt.wantEntity)
			}
			trail, err := w.st.AuditTrail(ctx, w.account, e.ID)
			if err != nil || len(trail) != 1 || trail[0].Action != tt.action || trail[0].OperatorID != req.OperatorID || trail[0].ActionID != req.ActionID {
				t.Fatalf("audit = %+v, %v", trail, err)
			}
			if len(trail[0].After) == 0 {
				t.Errorf("audit record shows no change: %+v", trail[0])
			}
		})
	}
}

func TestRiskAndAdjudicationEffects(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview)
	req := w.req(domain.ActionAssessRisk, r.ID, w.risk)
	req.RiskLevel = "medium"
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := w.st.Entity(ctx, w.account, e.ID)
	if got.Risk == nil || got.Risk.Level != domain.RiskMedium || got.Risk.AssessedAt.IsZero() {
		t.Errorf("risk = %+v", got.Risk)
	}
	for _, step := range []struct {
		match, verdict string
		want           domain.SanctionsStatus
	}{
		{"NK-weak", domain.VerdictFalsePositive, domain.SanctionsNeedsReview}, // NK-other remains
		{"NK-other", domain.VerdictFalsePositive, domain.SanctionsClear},
		{"NK-other", domain.VerdictTruePositive, domain.SanctionsHit},
	} {
		req := w.req(domain.ActionAdjudicateMatch, r.ID, w.decider)
		req.MatchID, req.Verdict = step.match, step.verdict
		if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
			t.Fatal(err)
		}
		got, _ := w.st.Entity(ctx, w.account, e.ID)
		if got.SanctionsStatus != step.want {
			t.Errorf("after %s %s: sanctions %s, want %s (dismissed %v)", step.verdict, step.match, got.SanctionsStatus, step.want, got.DismissedMatches)
		}
	}
	got, _ = w.st.Entity(ctx, w.account, e.ID)
	if len(got.DismissedMatches) != 1 || got.DismissedMatches[0] != "NK-weak" {
		t.Errorf("dismissed = %v", got.DismissedMatches)
	}
}

func TestOpenPeriodicReview(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewCompleted, domain.EntityApproved)
	nr, _, err := w.svc.Apply(ctx, w.req(domain.ActionOpenPeriodicReview, r.ID, w.decider), nil)
	if err != nil {
		t.Fatal(err)
	}
	if nr.ID == r.ID || nr.Purpose != domain.ReviewPeriodic || nr.Status != domain.ReviewOpen {
		t.Fatalf("new review = %+v", nr)
	}
	ent, _ := w.st.Entity(ctx, w.account, e.ID)
	reviews, _ := w.st.EntityReviews(ctx, w.account, e.ID, ent.ReviewsCount)
	if ent.Status != domain.EntityUnderMonitoring || ent.ReviewsCount != 2 || len(reviews) != 2 || reviews[0].ID != nr.ID {
		t.Errorf("entity %s with %d reviews (%d listed)", ent.Status, ent.ReviewsCount, len(reviews))
	}
}

func TestIdempotentActions(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	req := w.req(domain.ActionStart, r.ID, w.decider)
	first, _, err := w.svc.Apply(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := w.svc.Apply(ctx, req, nil)
	if err != nil {
		t.Fatalf("repeat: %v", err)
	}
	if again.Version != first.Version || again.Status != domain.ReviewInProgress {
		t.Errorf("repeat changed the review: v%d → v%d", first.Version, again.Version)
	}
	trail, _ := w.st.AuditTrail(ctx, w.account, e.ID)
	if len(trail) != 1 {
		t.Errorf("%d audit records, want 1", len(trail))
	}
}

// TestConcurrentDecisions: two operators decide on one review at once; one
// wins, the other is told of the conflict, and one audit record remains.
func TestConcurrentDecisions(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	for round := 0; round < 3; round++ {
		e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable)
		reqs := []decisions.Request{w.req(domain.ActionApprove, r.ID, w.decider), w.req(domain.ActionReject, r.ID, w.second)}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range reqs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, _, errs[i] = w.svc.Apply(ctx, reqs[i], nil)
			}(i)
		}
		wg.Wait()
		wins, conflicts := 0, 0
		for _, err := range errs {
			switch domain.FailureName(err) {
			case "":
				if err == nil {
					wins++
				} else {
					t.Fatalf("fault: %v", err)
				}
			case domain.FailConflict, domain.FailIllegalTransition:
				conflicts++
			default:
				t.Errorf("unexpected: %v", err)
			}
		}
		trail, _ := w.st.AuditTrail(ctx, w.account, e.ID)
		if wins != 1 || conflicts != 1 || len(trail) != 1 {
			t.Errorf("round %d: %d wins, %d conflicts, %d audit records (%v)", round, wins, conflicts, len(trail), errs)
		}
	}
}

// A decision's audit record names the execution that ran it (its ARN:
// CloudTrail's StartExecution event for it names the principal) and the
// invocation that applied it, as an admin command's names its actor and
// request; neither is the request's to say.
func TestAuditRecordNamesExecutionAndInvocation(t *testing.T) {
	w := newWorld(t)
	_, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	req := w.req(domain.ActionStart, r.ID, w.decider)
	const arn = "arn:aws:states:me-central-1:123456789012:execution:evs-dev-decision:start-1"
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-42"})
	if _, err := w.svc.HandleDocument(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req, ExecutionARN: arn})); err != nil {
		t.Fatal(err)
	}
	rec, err := w.st.AuditRecord(context.Background(), w.account, req.ActionID)
	if err != nil || rec.Actor != arn || rec.RequestID != "req-42" {
		t.Errorf("audit record actor %q, request id %q (%v); want %s and req-42", rec.Actor, rec.RequestID, err, arn)
	}
}
