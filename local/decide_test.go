package main

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestQueueChecksThroughTheTaskHandler re-runs an entity's checks against
// the simulator through the decision function's handler: new checks with
// the operator's triggering reason, dismissed matches excluded, the review
// marked.
func TestQueueChecksThroughTheTaskHandler(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	e := &env{store: st, log: quietLogger()}
	acct := mustAccount(t, e, "Queue", "SA")
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()})
	defer simSrv.Close()
	p := simulatorProviders(simSrv.URL)
	cfg, _ := st.CountryConfig(ctx, acct, "SA")
	created, err := st.CreateEntity(ctx, p.intake.Intake(ctx, intakeInput(acct, "7000000501", cfg)))
	if err != nil {
		t.Fatal(err)
	}
	if created.Entity.SanctionsStatus != domain.SanctionsHit {
		t.Fatalf("setup: sanctions %s", created.Entity.SanctionsStatus)
	}
	op, err := st.CreateOperator(ctx, acct, "Dana", []string{domain.PermReviewDecide}, domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := decisionService(e, simSrv.URL)
	if err != nil {
		t.Fatal(err)
	}
	review := created.Reviews[0].ID
	apply := func(action domain.Action, id string, edit func(*decisions.Request)) (decisions.TaskOutput, error) {
		req := decisions.Request{Action: action, AccountID: acct, ReviewID: review, OperatorID: op.ID, ActionID: id}
		if edit != nil {
			edit(&req)
		}
		return svc(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req}))
	}
	// Dismiss the simulator's hit, then queue checks: the new screening
	// excludes it and comes back clear.
	if _, err := apply(domain.ActionStart, "a1", nil); err != nil {
		t.Fatal(err)
	}
	// The engine's matches for the register's listed name: all but the
	// last dismissed first.
	var ids []string
	for _, c := range created.Checks {
		if c.Type != domain.CheckOrganizationScreening {
			continue
		}
		ms, _ := c.Result["matches"].([]any)
		for _, m := range ms {
			ids = append(ids, m.(map[string]any)["id"].(string))
		}
	}
	if len(ids) == 0 {
		t.Fatalf("setup: no match in %+v", created.Checks)
	}
	for i, id := range ids[:len(ids)-1] {
		if _, err := apply(domain.ActionAdjudicateMatch, fmt.Sprintf("a2-%d", i), func(r *decisions.Request) { r.MatchID, r.Verdict = id, domain.VerdictFalsePositive }); err != nil {
			t.Fatal(err)
		}
	}
	last := ids[len(ids)-1]
	// What the verdict changed is in the output (the review alone does not
	// show it), the same when the action is applied again.
	for range 2 {
		out, err := apply(domain.ActionAdjudicateMatch, "a2", func(r *decisions.Request) { r.MatchID, r.Verdict = last, domain.VerdictFalsePositive })
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Changed["sanctions_status"]; got.From != string(domain.SanctionsHit) || got.To != string(domain.SanctionsClear) {
			t.Errorf("adjudicate-match's changes: %+v", out.Changed)
		}
	}
	out, err := apply(domain.ActionQueueChecks, "a3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Review == nil || out.Review.ChecksQueuedAt == nil || out.Review.ChecksCount != 4 {
		t.Fatalf("review after queue_checks = %+v", out.Review)
	}
	cs, _ := st.EntityChecks(ctx, acct, created.Entity.ID, 4)
	if len(cs) != 4 || cs[0].TriggeringReason != domain.TriggerOperatorRequested || cs[0].ReviewID == nil || *cs[0].ReviewID != review {
		t.Fatalf("checks = %+v", cs)
	}
	ent, _ := st.Entity(ctx, acct, created.Entity.ID)
	if ent.SanctionsStatus != domain.SanctionsClear || ent.ChecksCount != 4 {
		t.Errorf("entity after re-screening: %s, %d checks", ent.SanctionsStatus, ent.ChecksCount)
	}
	// A refusal comes back as a named failure, as Step Functions sees it.
	_, err = apply(domain.ActionStart, "a4", nil)
	var ie messages.InvokeResponse_Error
	if !errors.As(err, &ie) || ie.Type != domain.FailIllegalTransition {
		t.Errorf("refusal = %#v", err)
	}
	if _, err := svc(ctx, decisions.Document(decisions.TaskInput{Phase: "later", Request: decisions.Request{}})); !errors.As(err, &ie) || ie.Type != domain.FailInvalid {
		t.Errorf("bad phase = %#v", err)
	}
}

func intakeInput(acct int64, number string, cfg domain.CountryConfig) checks.IntakeInput {
	return checks.IntakeInput{AccountID: acct, RegistrationNumber: number, CountryCode: "SA", CountryID: 682, DeclaredName: "Queue Co", Config: cfg}
}
