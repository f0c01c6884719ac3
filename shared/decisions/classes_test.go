package decisions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// withMatches gives the entity's screening these classified matches, none
// judged yet, its sanctions status what they leave.
func withMatches(status domain.SanctionsStatus, ms ...map[string]any) func(*domain.EntityDetail) {
	return func(d *domain.EntityDetail) {
		list := make([]any, len(ms))
		for i, m := range ms {
			list[i] = m
		}
		d.Checks[0].Result = map[string]any{"status": string(status), "matched": true, "matches_count": len(ms), "matches": list}
		d.Entity.DismissedMatches, d.Entity.SanctionsStatus = nil, status
	}
}

// TestEachMatchIsJudgedByItsClass: a PEP-only match leaves sanctions clear
// yet blocks approval until judged; confirmed, it makes the entity high
// risk and no longer stands in the way (the approval is then high-risk:
// four eyes where the account asks); a match through ownership or control
// is a sanctions match like any other, and confirmed it blocks.
func TestEachMatchIsJudgedByItsClass(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	pep := map[string]any{"id": "NK-pep", "score": 0.95, "class": "pep", "topics": []any{"role.pep"}}
	control := map[string]any{"id": "NK-control", "score": 0.93, "class": "sanction", "topics": []any{"sanction.control"}, "by_control": true}

	adjudicate := func(r domain.Review, e domain.Entity, match, verdict string) domain.Entity {
		return w.adjudicate(t, r, e, match, verdict)
	}
	approve := func(r domain.Review) error {
		_, err := w.svc.Validate(ctx, w.req(domain.ActionApprove, r.ID, w.decider))
		return err
	}

	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, withMatches(domain.SanctionsClear, pep))
	if err := approve(r); domain.FailureName(err) != domain.FailDecisionBlocked || !strings.Contains(domain.Refusal(err), "match NK-pep of screening check") {
		t.Fatalf("approve over an unjudged PEP: %v", err)
	}
	got := adjudicate(r, e, "NK-pep", domain.VerdictTruePositive)
	if got.SanctionsStatus != domain.SanctionsClear || got.Risk == nil || got.Risk.Level != domain.RiskHigh {
		t.Fatalf("a confirmed PEP: sanctions %s, risk %+v; want clear and high", got.SanctionsStatus, got.Risk)
	}
	if err := approve(r); err != nil {
		t.Errorf("approve over a confirmed PEP: %v", err)
	}
	// The trail says what was judged.
	trail, err := w.st.AuditTrail(ctx, w.account, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := trail[len(trail)-1]; last.Action != domain.ActionAdjudicateMatch || last.After["match_class"] != "pep" {
		t.Errorf("the adjudication's record: %s %v", last.Action, last.After)
	}

	e, r = w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, withMatches(domain.SanctionsHit, control))
	got = adjudicate(r, e, "NK-control", domain.VerdictTruePositive)
	if got.SanctionsStatus != domain.SanctionsHit {
		t.Fatalf("a confirmed match through control: sanctions %s, want hit", got.SanctionsStatus)
	}
	if err := approve(r); domain.FailureName(err) != domain.FailDecisionBlocked || !strings.Contains(domain.Refusal(err), "is confirmed a true positive") {
		t.Errorf("approve over a confirmed match through control: %v", err)
	}

	// A PEP dismissed beside a sanctions match: the sanctions status
	// follows the sanctions match alone.
	e, r = w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, withMatches(domain.SanctionsNeedsReview, pep,
		map[string]any{"id": "NK-weak", "score": 0.75, "class": "sanction", "topics": []any{"sanction"}}))
	if got = adjudicate(r, e, "NK-pep", domain.VerdictFalsePositive); got.SanctionsStatus != domain.SanctionsNeedsReview {
		t.Errorf("after the PEP's dismissal: sanctions %s, want needs_review (the sanctions match stands)", got.SanctionsStatus)
	}
	if got = adjudicate(r, e, "NK-weak", domain.VerdictFalsePositive); got.SanctionsStatus != domain.SanctionsClear {
		t.Errorf("after both dismissals: sanctions %s, want clear", got.SanctionsStatus)
	}
}

// adjudicate applies the decider's verdict on a match of r and returns the
// entity as it then stands.
func (w *world) adjudicate(t *testing.T, r domain.Review, e domain.Entity, match, verdict string) domain.Entity {
	t.Helper()
	ctx := context.Background()
	req := w.req(domain.ActionAdjudicateMatch, r.ID, w.decider)
	req.MatchID, req.Verdict = match, verdict
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := w.st.Entity(ctx, w.account, e.ID)
	return got
}
