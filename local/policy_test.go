package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// TestDecidePolicy: go run ./local decide approve, on the local store and
// through the decision workflow (--workflow), refuses an approval the
// decision policy blocks with DecisionBlocked naming the blocker, the same
// sentence both ways, and writes nothing: the review, the entity (so no
// review event reaches a subscriber: events follow the reviews' changes)
// and the audit trail are as they were.
func TestDecidePolicy(t *testing.T) {
	needNode(t)
	st, acct, op := cliDecider(t, domain.AccountSettings{DeclaredDecisions: true}, domain.PermReviewDecide)
	started := func(d *domain.EntityDetail) { d.Reviews[0].Status = domain.ReviewInProgress }
	hit := func(confirmed bool) func(*domain.EntityDetail) {
		return func(d *domain.EntityDetail) {
			d.Checks[1].Result = map[string]any{"status": "hit", "matched": true, "matches_count": 1,
				"matches": []any{map[string]any{"id": "NK-ofac-1", "score": 0.97, "caption": "Listed Trading"}}}
			d.Entity.SanctionsStatus = domain.SanctionsHit
			if confirmed {
				d.Entity.ConfirmedMatches = []string{"NK-ofac-1"}
			}
		}
	}
	for i, tc := range []struct {
		name string
		prep func(*domain.EntityDetail)
		want string
	}{
		{"over an open hit", hit(false), "is not adjudicated"},
		{"over a confirmed hit", hit(true), "is confirmed a true positive"},
		{"without a risk assessment", func(d *domain.EntityDetail) { d.Entity.Risk = nil }, "the entity's risk is not assessed"},
		{"with a required check failed", func(d *domain.EntityDetail) {
			d.Checks[0].Status, d.Checks[0].Result = domain.CheckFailed, map[string]any{"status": "failed", "error": "provider_timeout"}
		}, "the latest registry_lookup check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			review := wfReview(t, st, acct.ID, "70000008"+strconv.Itoa(50+i), started, tc.prep)
			before := policySnapshot(t, st, acct.ID, review)
			approve := []string{"decide", "approve", "--account", strconv.FormatInt(acct.ID, 10), "--review", strconv.FormatInt(review, 10),
				"--operator", strconv.FormatInt(op.ID, 10), "--reason", "documents verified"}

			_, _, err := runCaptured(t, append(approve, "--action-id", "policy-cli-"+strconv.Itoa(i))...)
			if err == nil || !strings.HasPrefix(err.Error(), domain.FailDecisionBlocked+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decide approve: %v; want DecisionBlocked naming %q", err, tc.want)
			}
			refusal := strings.TrimPrefix(err.Error(), domain.FailDecisionBlocked+": ")

			stdout, _, err := runCaptured(t, append(approve, "--action-id", "policy-wf-"+strconv.Itoa(i), "--workflow")...)
			var res WorkflowResult
			if jerr := json.Unmarshal([]byte(stdout), &res); jerr != nil {
				t.Fatalf("--workflow printed %q: %v (%v)", stdout, jerr, err)
			}
			wfStates(t, res, "Keep", "Validate", "DecisionBlocked")
			wfFailure(t, res, domain.FailDecisionBlocked, tc.want)
			if err == nil || err.Error() != domain.FailDecisionBlocked+": "+res.Cause || !strings.Contains(res.Cause, refusal) {
				t.Errorf("--workflow: %v, cause %q; want the same refusal as on the local store: %q", err, res.Cause, refusal)
			}
			if after := policySnapshot(t, st, acct.ID, review); after != before {
				t.Errorf("a refused approval wrote:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// TestDecideHighRiskFourEyes: on an account with four eyes on
// approve_high_risk, the maker of a high-risk entity can neither lower its
// risk alone nor then approve alone, on the command line or through the
// workflow; nothing is written.
func TestDecideHighRiskFourEyes(t *testing.T) {
	needNode(t)
	st, acct, op := cliDecider(t, domain.AccountSettings{DeclaredDecisions: true, FourEyes: []string{domain.FourEyesApproveHighRisk}},
		domain.PermReviewDecide, domain.PermRiskAssess)
	review := wfReview(t, st, acct.ID, "7000000860", func(d *domain.EntityDetail) {
		d.Reviews[0].Status = domain.ReviewInProgress
		d.Entity.Risk.Level = domain.RiskHigh
	})
	before := policySnapshot(t, st, acct.ID, review)
	ids := []string{"--account", strconv.FormatInt(acct.ID, 10), "--review", strconv.FormatInt(review, 10), "--operator", strconv.FormatInt(op.ID, 10)}
	lower := append([]string{"decide", "assess-risk", "--level", "low"}, ids...)
	approve := append([]string{"decide", "approve", "--reason", "documents verified"}, ids...)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"lower the risk alone", lower, domain.FailSecondApprover},
		{"approve alone", approve, domain.FailSecondApprover},
		{"lower the risk alone, through the workflow", append(lower, "--workflow"), "SecondApprovalRefused"},
		{"approve alone, through the workflow", append(approve, "--workflow"), "SecondApprovalRefused"},
		{"lower the risk with a declared second operator, through the workflow", append(lower, "--workflow", "--second-approver", strconv.FormatInt(op.ID, 10)), domain.FailSignatureRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCaptured(t, tc.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+": ") {
				t.Fatalf("%v; want %s", err, tc.want)
			}
			if after := policySnapshot(t, st, acct.ID, review); after != before {
				t.Errorf("a refused decision wrote:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// policySnapshot is what a refused decision must leave as it was: the
// review, its entity and the entity's audit trail.
func policySnapshot(t *testing.T, st *store.Store, acct, review int64) string {
	t.Helper()
	ctx := context.Background()
	r, err := st.Review(ctx, acct, review)
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.Entity(ctx, acct, r.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	trail, err := st.AuditTrail(ctx, acct, r.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"review": r, "entity": e, "audit_records": len(trail)})
	return string(b)
}

func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: --workflow runs in aws-local-stepfunctions on Node.js 20 or later")
	}
}

// cliDecider is an account with the settings on the store the command line
// uses, and an operator of it with the permissions.
func cliDecider(t *testing.T, settings domain.AccountSettings, perms ...string) (*store.Store, domain.Account, domain.Operator) {
	t.Helper()
	ctx := context.Background()
	st, _ := cliStore(t)
	acct, err := st.CreateAccount(ctx, t.Name(), domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutAccountSettings(ctx, acct.ID, settings); err != nil {
		t.Fatal(err)
	}
	op, err := st.CreateOperator(ctx, acct.ID, "Dana Decider", perms, domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st, acct, op
}
