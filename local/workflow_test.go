package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/etag"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/verify"
)

// TestDecisionWorkflow runs operator actions through the decision state
// machine (infra/statemachine/decision.asl.json) in aws-local-stepfunctions,
// its Lambda tasks calling the decision handler over DynamoDB Local: what
// the ASL does with the handler's answers (results, refusals caught into
// Fail states, the four-eyes wait) and what ends up in the store.
func TestDecisionWorkflow(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the decision workflow runs in aws-local-stepfunctions on Node.js 20 or later")
	}
	ctx := logging.WithLogger(context.Background(), quietLogger())
	st := devstacktest.Store(t)
	e := &env{store: st, log: quietLogger()}
	decide, err := decisionService(e, "") // no provider: every check fails
	if err != nil {
		t.Fatal(err)
	}

	acct := mustAccount(t, e, "Workflow", "SA")
	decider := wfOperator(t, st, acct, "Dana Decider", domain.PermReviewDecide)
	review := wfReview(t, st, acct, "7000000810")

	run := func(t *testing.T, req decisions.Request, approval json.RawMessage) WorkflowResult {
		t.Helper()
		start := time.Now()
		res, err := runWorkflow(ctx, decide, req, approval)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: %s %s in %v via %v", req.Action, res.Execution, res.Status, res.Error, time.Since(start).Round(time.Millisecond), res.States)
		return res
	}
	// unchanged asserts that a refused execution wrote nothing: the review
	// is as it was, and no audit record names the action.
	unchanged := func(t *testing.T, acctID int64, before domain.Review, actionID string) {
		t.Helper()
		after, err := st.Review(ctx, acctID, before.ID)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != before.Version || after.Status != before.Status {
			t.Errorf("review changed: version %d → %d, %s → %s", before.Version, after.Version, before.Status, after.Status)
		}
		if _, err := st.AuditRecord(ctx, acctID, actionID); err == nil {
			t.Errorf("an audit record names refused action %s", actionID)
		}
	}

	t.Run("start then approve", func(t *testing.T) {
		// No action id: the execution's name names the action.
		res := run(t, decisions.Request{Action: domain.ActionStart, AccountID: acct, ReviewID: review, OperatorID: decider}, nil)
		wfStates(t, res, "Keep", "Validate", "NeedsSecondApproval", "Apply", "Decided")
		if got := wfOutput(t, res); got.Status != string(domain.ReviewInProgress) {
			t.Errorf("started review = %+v", got)
		}
		if rec, err := st.AuditRecord(ctx, acct, res.Execution); err != nil || rec.Action != domain.ActionStart {
			t.Errorf("audit record of %s = %+v, %v", res.Execution, rec, err)
		}

		res = run(t, decisions.Request{Action: domain.ActionApprove, AccountID: acct, ReviewID: review, OperatorID: decider,
			ActionID: "wf-approve", Reason: "registry and screening clear"}, nil)
		wfStates(t, res, "Keep", "Validate", "NeedsSecondApproval", "Apply", "Decided")
		got := wfOutput(t, res)
		stored, err := st.Review(ctx, acct, review)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != string(domain.ReviewCompleted) || stored.Status != domain.ReviewCompleted || got.Version != stored.Version ||
			stored.Outcome == nil || *stored.Outcome != domain.OutcomeApproved ||
			stored.OutcomeReason == nil || *stored.OutcomeReason != "registry and screening clear" {
			t.Errorf("approved review: output %+v, stored %+v", got, stored)
		}
	})

	t.Run("illegal transition", func(t *testing.T) {
		before, _ := st.Review(ctx, acct, review) // completed by the subtest above
		res := run(t, decisions.Request{Action: domain.ActionStart, AccountID: acct, ReviewID: review, OperatorID: decider, ActionID: "wf-restart"}, nil)
		wfStates(t, res, "Keep", "Validate", "IllegalTransition")
		wfFailure(t, res, domain.FailIllegalTransition, "cannot start review")
		unchanged(t, acct, before, "wf-restart")
	})

	// seen passes through the workflow's input to both tasks: a stale view
	// is refused at Validate, the current one is applied and recorded.
	t.Run("seen", func(t *testing.T) {
		review := wfReview(t, st, acct, "7000000830")
		before, _ := st.Review(ctx, acct, review)
		detail, err := st.EntityDetail(ctx, acct, before.EntityID)
		if err != nil {
			t.Fatal(err)
		}
		current := dossier.ETag(detail.Entity, dossier.FormMarkdown)
		start := func(id, seen string) decisions.Request {
			return decisions.Request{Action: domain.ActionStart, AccountID: acct, ReviewID: review, OperatorID: decider, ActionID: id, Seen: seen}
		}
		res := run(t, start("wf-stale", etag.Of([]byte("an older dossier"))), nil)
		wfStates(t, res, "Keep", "Validate", "StaleView")
		wfFailure(t, res, domain.FailStaleView, strings.Trim(current, `"`)) // the cause is JSON: its quotes escaped
		unchanged(t, acct, before, "wf-stale")

		res = run(t, start("wf-seen", current), nil)
		wfStates(t, res, "Keep", "Validate", "NeedsSecondApproval", "Apply", "Decided")
		if rec, err := st.AuditRecord(ctx, acct, "wf-seen"); err != nil || rec.SeenETag != current || rec.DossierETag != current {
			t.Errorf("audit record = %+v, %v; want seen and dossier %s", rec, err, current)
		}
	})

	t.Run("four eyes", func(t *testing.T) {
		acct := mustAccount(t, e, "Workflow four eyes", "SA")
		// Signed decisions only, and four eyes to approve.
		if err := st.PutAccountSettings(ctx, acct, domain.AccountSettings{FourEyes: []string{string(domain.ActionApprove)}}); err != nil {
			t.Fatal(err)
		}
		keys := &passkey.Service{Store: st, Clock: domain.SystemClock, Config: localPasskeys()}
		decider := wfSigner(t, keys, st, acct, "Dana Decider")
		second := wfSigner(t, keys, st, acct, "Sami Second")
		makersOtherKey, err := passkeytest.Enrol(ctx, keys, decider.Operator)
		if err != nil {
			t.Fatal(err)
		}
		review := wfReview(t, st, acct, "7000000820")
		reviewed, err := st.Review(ctx, acct, review)
		if err != nil {
			t.Fatal(err)
		}
		entity := reviewed.EntityID // a signed document names it
		sign := func(o *passkeytest.Operator, purpose string, req decisions.Request) *passkey.Assertion {
			t.Helper()
			a, err := o.Sign(ctx, purpose, decisions.Digest(req))
			if err != nil {
				t.Fatal(err)
			}
			return &a
		}
		startReq := decisions.Request{Action: domain.ActionStart, AccountID: acct, EntityID: entity, ReviewID: review, OperatorID: decider.ID, ActionID: "wf4-start"}

		// Unsigned where the account takes no declared decision: refused at
		// Validate, by name.
		res := run(t, startReq, nil)
		wfStates(t, res, "Keep", "Validate", "SignatureRequired")
		wfFailure(t, res, domain.FailSignatureRequired, "declared_decisions")

		startReq.Signature = sign(decider, passkey.PurposeDecision, startReq)
		if res := run(t, startReq, nil); res.Status != "SUCCEEDED" {
			t.Fatalf("signed start: %+v", res)
		}
		before, _ := st.Review(ctx, acct, review)
		approve := func(id string) decisions.Request {
			req := decisions.Request{Action: domain.ActionApprove, AccountID: acct, EntityID: entity, ReviewID: review, OperatorID: decider.ID, ActionID: id, Reason: "four eyes"}
			req.Signature = sign(decider, passkey.PurposeDecision, req)
			return req
		}
		answer := func(v any) json.RawMessage {
			b, _ := json.Marshal(v)
			return b
		}
		waits := []string{"Keep", "Validate", "NeedsSecondApproval", "NotifySecondApproval", "AwaitSecondApproval"}

		// Nobody approves: the wait fails into SecondApprovalRefused.
		res = run(t, approve("wf4-refused"), nil)
		wfStates(t, res, append(waits, "SecondApprovalRefused")...)
		wfFailure(t, res, "SecondApprovalRefused", "No second operator")
		unchanged(t, acct, before, "wf4-refused")

		// A declared approver (SendTaskSuccess naming a colleague) is never
		// enough.
		res = run(t, approve("wf4-declared"), answer(map[string]any{"second_approver_id": second.ID}))
		wfStates(t, res, append(waits, "Apply", "SignatureRequired")...)
		wfFailure(t, res, domain.FailSignatureRequired, "declared second_approver_id")
		unchanged(t, acct, before, "wf4-declared")

		// The maker approving their own decision with another passkey.
		req := approve("wf4-self")
		res = run(t, req, answer(decisions.Approval{Signature: sign(makersOtherKey, passkey.PurposeApproval, req)}))
		wfStates(t, res, append(waits, "Apply", "SecondApproverRequired")...)
		wfFailure(t, res, domain.FailSecondApprover, "another operator")
		unchanged(t, acct, before, "wf4-self")

		req = approve("wf4-approved")
		res = run(t, req, answer(decisions.Approval{Signature: sign(second, passkey.PurposeApproval, req)}))
		wfStates(t, res, append(waits, "Apply", "Decided")...)
		if got := wfOutput(t, res); got.Status != string(domain.ReviewCompleted) {
			t.Errorf("approved review = %+v", got)
		}
		rec, err := st.AuditRecord(ctx, acct, "wf4-approved")
		if err != nil || rec.SecondApproverID == nil || *rec.SecondApproverID != second.ID || rec.Identity != domain.IdentityPasskey || len(rec.Signatures) != 2 {
			t.Errorf("audit record = %+v, %v; want second approver %d and two signatures", rec, err, second.ID)
		}
		// The record names the execution (CloudTrail's StartExecution for
		// it names who started it) and the invocation that applied it.
		if wantARN := "arn:aws:states:us-east-1:000000000000:execution:decision:wf4-approved"; rec.Actor != wantARN || rec.RequestID == "" {
			t.Errorf("audit record actor %q, request id %q; want %s and the invocation's id", rec.Actor, rec.RequestID, wantARN)
		}
		// audit --verify: the chain holds, and both signatures verify
		// against the public keys the account's own chain recorded.
		adm, err := localAdmin(e)
		if err != nil {
			t.Fatal(err)
		}
		var view admin.AuditChainView
		if err := runAdmin(ctx, inProcess{handle: adm}, "test", map[string]any{"command": "audit.verify", "account_id": acct, "entity_id": before.EntityID}, &view); err != nil {
			t.Fatal(err)
		}
		if !view.Intact || !view.SignaturesValid || len(view.Signatures) != 3 { // the start's, and the approval's maker and second
			t.Errorf("audit.verify: intact %v, signatures valid %v, %+v", view.Intact, view.SignaturesValid, view.Signatures)
		}
		// The approved decision took its pending approval with it.
		if _, err := st.PendingApproval(ctx, acct, "wf4-approved"); domain.ErrorCode(err) != domain.ECodeNotFound {
			t.Errorf("the applied decision still waits: %v", err)
		}

		// The relationship ends, signed: its locked closure record is
		// believed with the relying party's passkeys, as the account's
		// locked chain recorded them — and with no other relying party's.
		end := decisions.Request{Action: domain.ActionEndRelationship, AccountID: acct, EntityID: entity, ReviewID: review, OperatorID: decider.ID, ActionID: "wf4-end", Reason: "customer left"}
		end.Signature = sign(decider, passkey.PurposeDecision, end)
		if res := run(t, end, nil); res.Status != "SUCCEEDED" {
			t.Fatalf("signed end_relationship: %s %s: %s", res.Status, res.Error, res.Cause)
		}
		rec2, err := st.AuditRecord(ctx, acct, "wf4-end")
		if err != nil {
			t.Fatal(err)
		}
		dir := records.Dir{Root: t.TempDir()}
		x := &auditexport.Exporter{Source: st, Records: dir, Clock: domain.SystemClock, Passkeys: localPasskeys()}
		if _, _, err := x.RunAccount(ctx, acct); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name     string
			closures verify.Closures
			ended    bool
		}{
			{"signed, this relying party", verify.Closures{Passkeys: localPasskeys()}, true},
			{"signed, another relying party", verify.Closures{Passkeys: passkey.Config{RPID: "elsewhere.example", RPDisplayName: "EVS", Origins: []string{"https://elsewhere.example"}}}, false},
		} {
			until, ended, err := verify.LockedClosure(ctx, dir, acct, before.EntityID, tc.closures)
			if err != nil || ended != tc.ended || (ended && domain.FormatTime(until) != rec2.After["retain_until"]) {
				t.Errorf("%s: closure ended %t until %v, %v; want ended %t until %v", tc.name, ended, until, err, tc.ended, rec2.After["retain_until"])
			}
		}
	})
}

// wfSigner is an operator who may decide, holding a passkey.
func wfSigner(t *testing.T, keys *passkey.Service, st *store.Store, acct int64, name string) *passkeytest.Operator {
	t.Helper()
	op, err := st.Operator(context.Background(), acct, wfOperator(t, st, acct, name, domain.PermReviewDecide))
	if err != nil {
		t.Fatal(err)
	}
	o, err := passkeytest.Enrol(context.Background(), keys, op)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func wfOperator(t *testing.T, st *store.Store, acct int64, name string, perms ...string) int64 {
	t.Helper()
	op, err := st.CreateOperator(context.Background(), acct, name, perms, domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	return op.ID
}

// wfReview creates approvable's entity, changed by each prep before it is
// written, and returns its review.
func wfReview(t *testing.T, st *store.Store, acct int64, number string, prep ...func(*domain.EntityDetail)) int64 {
	t.Helper()
	d := approvable(acct, number, "Workflow Co", domain.Now())
	for _, p := range prep {
		p(&d)
	}
	created, err := st.CreateEntity(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return created.Reviews[0].ID
}

// approvable is a Saudi entity ready for review with an open initial
// review, which the decision policy lets an operator approve once started:
// its risk assessed low, and the registry lookup and the screening Saudi
// Arabia's intake requires completed, clear, with no match.
func approvable(acct int64, number, name string, now time.Time) domain.EntityDetail {
	check := func(typ domain.CheckType, provider string, result map[string]any) domain.Check {
		return domain.Check{Type: typ, ProviderKey: provider, Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake,
			Result: result, CheckedAt: &now, CreatedAt: now, UpdatedAt: now}
	}
	return domain.EntityDetail{
		Entity: domain.Entity{AccountID: acct, RegistrationNumber: number, LegalName: name, CountryCode: "SA", CountryID: 682,
			Status: domain.EntityReadyForReview, RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsClear,
			Risk: &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: now}, CreatedAt: now, UpdatedAt: now},
		Checks: []domain.Check{
			check(domain.CheckRegistryLookup, "wathq", map[string]any{"status": "active"}),
			check(domain.CheckOrganizationScreening, "opensanctions", map[string]any{"status": "clear", "matched": false, "matches_count": 0, "matches": []any{}}),
		},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: now, UpdatedAt: now}},
	}
}

func wfStates(t *testing.T, res WorkflowResult, states ...string) {
	t.Helper()
	if !slices.Equal(res.States, states) {
		t.Errorf("states = %v, want %v (%s %s: %s)", res.States, states, res.Status, res.Error, res.Cause)
	}
}

// wfFailure checks a FAILED execution's error and that its cause says why.
func wfFailure(t *testing.T, res WorkflowResult, name, causeHas string) {
	t.Helper()
	if res.Status != "FAILED" || res.Error != name || !strings.Contains(res.Cause, causeHas) {
		t.Errorf("result = %s %s: %s; want FAILED %s with %q in the cause", res.Status, res.Error, res.Cause, name, causeHas)
	}
}

func wfOutput(t *testing.T, res WorkflowResult) decisions.ReviewOut {
	t.Helper()
	if res.Status != "SUCCEEDED" {
		t.Fatalf("execution %s: %s %s: %s", res.Execution, res.Status, res.Error, res.Cause)
	}
	var r decisions.ReviewOut
	if err := json.Unmarshal(res.Output, &r); err != nil {
		t.Fatal(fmt.Errorf("output %s: %w", res.Output, err))
	}
	return r
}
