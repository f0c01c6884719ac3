package decisions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// TestApprovePolicy: an approval the decision policy blocks is refused by
// Validate and by Apply with DecisionBlocked naming every blocker (the
// match, the check, the risk), and writes nothing.
func TestApprovePolicy(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	for _, tc := range []struct {
		name string
		prep func(*domain.EntityDetail)
		want []string // in the refusal, each
	}{
		{"an open hit: a match not adjudicated", func(d *domain.EntityDetail) {
			d.Entity.DismissedMatches = []string{"NK-weak"}
			d.Entity.SanctionsStatus = domain.SanctionsNeedsReview
		}, []string{"match NK-other of screening check", "is not adjudicated"}},
		{"a confirmed hit", func(d *domain.EntityDetail) {
			d.Entity.DismissedMatches, d.Entity.ConfirmedMatches = []string{"NK-weak"}, []string{"NK-other"}
			d.Entity.SanctionsStatus = domain.SanctionsHit
		}, []string{"match NK-other of screening check", "is confirmed a true positive: reject the review, or escalate it to AML"}},
		{"no risk assessment", func(d *domain.EntityDetail) { d.Entity.Risk = nil },
			[]string{"the entity's risk is not assessed (assess_risk)"}},
		{"a required check failed", func(d *domain.EntityDetail) { d.Checks[1].Status = domain.CheckFailed },
			[]string{"the latest registry_lookup check", "which SA's intake requires, is failed"}},
		{"a newer screening still running", func(d *domain.EntityDetail) {
			d.Checks = append(d.Checks, domain.Check{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckRunning,
				TriggeringReason: domain.TriggerOperatorRequested, CreatedAt: t0.Add(time.Hour), UpdatedAt: t0.Add(time.Hour)})
		}, []string{"the latest organization_screening check", "is running"}},
		{"the screening ran without the register's names", func(d *domain.EntityDetail) {
			d.Checks[0].Result["names_partial"] = true
			d.Checks[0].Result["names_partial_reason"] = "the register lookup (check 7) failed: the provider could not be reached"
		}, []string{"the latest screening (check", "screened a partial set of names: the register lookup (check 7) failed", "run the checks again once the register answers"}},
		{"a required check never run", func(d *domain.EntityDetail) { d.Checks = d.Checks[:1] },
			[]string{"no registry_lookup check, which SA's intake requires, has run"}},
		{"a party's newer screening hides nothing of the entity's, nor the other way round", func(d *domain.EntityDetail) {
			d.Entity.DismissedMatches = []string{"NK-weak"} // the entity's NK-other still open
			d.Checks = append(d.Checks, partyScreening("evs-pe-al-dosari"))
		}, []string{"match NK-other of screening check", "match evs-pe-al-dosari of screening check", "of party Turki Mansour Al-Dosari", "is not adjudicated"}},
		{"no beneficial owner on any basis", func(d *domain.EntityDetail) {
			d.Entity.Ownership = &domain.Ownership{Determined: false, ThresholdPc: "25.00 %", At: t0}
		}, []string{"the beneficial owners are not determined", "no owner at 25.00 % or more and no manager"}},
		{"everything at once", func(d *domain.EntityDetail) {
			d.Entity.DismissedMatches, d.Entity.ConfirmedMatches, d.Entity.Risk = nil, []string{"NK-other"}, nil
			d.Checks[1].Status = domain.CheckPending
		}, []string{"match NK-weak of screening check", "match NK-other of screening check", "confirmed a true positive",
			"risk is not assessed", "registry_lookup check", "is pending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, tc.prep)
			req := w.req(domain.ActionApprove, r.ID, w.decider)
			_, verr := w.svc.Validate(ctx, req)
			_, _, aerr := w.svc.Apply(ctx, req, nil)
			for phase, err := range map[string]error{"validate": verr, "apply": aerr} {
				if domain.FailureName(err) != domain.FailDecisionBlocked {
					t.Fatalf("%s: %v, want DecisionBlocked", phase, err)
				}
				for _, s := range tc.want {
					if !strings.Contains(domain.Refusal(err), s) {
						t.Errorf("%s: %q does not name %q", phase, domain.Refusal(err), s)
					}
				}
			}
			assertUnchanged(t, w, e, r)
		})
	}
}

// partyScreening is a completed screening of a party, newer than the
// entity's, with one open match.
func partyScreening(match string) domain.Check {
	at := t0.Add(2 * time.Hour)
	return domain.Check{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted,
		TriggeringReason: domain.TriggerIntake, SubjectType: new("party"), SubjectID: new(int64(77)), SubjectDisplayName: new("Turki Mansour Al-Dosari"),
		Result: map[string]any{"status": "hit", "matched": true, "matches_count": 1, "matches": []any{
			map[string]any{"id": match, "score": 1.0, "class": "sanction"}}},
		CheckedAt: &at, CreatedAt: at, UpdatedAt: at}
}

// TestEachSubjectsScreeningIsJudged: a match of a party's screening is
// adjudicated like the entity's; the entity's sanctions status follows
// its own screening alone; once both are judged the approval goes through.
func TestEachSubjectsScreeningIsJudged(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, func(d *domain.EntityDetail) {
		d.Checks = append(d.Checks, partyScreening("evs-pe-al-dosari"))
	})
	approve := w.req(domain.ActionApprove, r.ID, w.decider)
	if _, _, err := w.svc.Apply(ctx, approve, nil); domain.FailureName(err) != domain.FailDecisionBlocked || !strings.Contains(domain.Refusal(err), "of party Turki Mansour Al-Dosari") {
		t.Fatalf("approval over an open party match: %v", err)
	}
	adj := w.req(domain.ActionAdjudicateMatch, r.ID, w.decider)
	adj.MatchID, adj.Verdict = "evs-pe-al-dosari", domain.VerdictFalsePositive
	if _, _, err := w.svc.Apply(ctx, adj, nil); err != nil {
		t.Fatalf("adjudicating the party's match: %v", err)
	}
	ent, _ := w.st.Entity(ctx, w.account, e.ID)
	if ent.SanctionsStatus != domain.SanctionsClear {
		t.Errorf("the entity's sanctions status %s: its own screening's matches are judged", ent.SanctionsStatus)
	}
	if _, _, err := w.svc.Apply(ctx, w.req(domain.ActionApprove, r.ID, w.decider), nil); err != nil {
		t.Errorf("approval once every subject's matches are judged: %v", err)
	}
}

// TestAConfirmedPEPPartyMakesTheEntityHighRisk: a party's PEP match judged
// a true positive stands in the file, not in the approval's way, and makes
// the entity high risk (four eyes where the account asks for them); the
// entity's sanctions status stays its own screening's.
func TestAConfirmedPEPPartyMakesTheEntityHighRisk(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, func(d *domain.EntityDetail) {
		pep := partyScreening("evs-pe-al-rashid")
		pep.Result["matches"] = []any{map[string]any{"id": "evs-pe-al-rashid", "score": 1.0, "class": "pep", "topics": []any{"role.pep"}}}
		pep.Result["status"] = "clear"
		d.Checks = append(d.Checks, pep)
	})
	adj := w.req(domain.ActionAdjudicateMatch, r.ID, w.decider)
	adj.MatchID, adj.Verdict = "evs-pe-al-rashid", domain.VerdictTruePositive
	if _, _, err := w.svc.Apply(ctx, adj, nil); err != nil {
		t.Fatal(err)
	}
	ent, _ := w.st.Entity(ctx, w.account, e.ID)
	if ent.Risk == nil || ent.Risk.Level != domain.RiskHigh || ent.SanctionsStatus != domain.SanctionsClear {
		t.Errorf("after a party's confirmed PEP: risk %+v, sanctions %s", ent.Risk, ent.SanctionsStatus)
	}
	for _, b := range decisions.ApproveBlockers(ent, mustChecks(t, w, ent), domain.DefaultCountryConfig(w.account, "SA", 682, t0)) {
		if b.About == "evs-pe-al-rashid" {
			t.Errorf("the confirmed PEP blocks: %s", b.Text)
		}
	}
}

func mustChecks(t *testing.T, w *world, e domain.Entity) []domain.Check {
	t.Helper()
	cs, err := w.st.EntityChecks(context.Background(), w.account, e.ID, e.ChecksCount)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// assertUnchanged fails unless the review and the entity are as created,
// with no audit record.
func assertUnchanged(t *testing.T, w *world, e domain.Entity, r domain.Review) {
	t.Helper()
	ctx := context.Background()
	after, _ := w.st.Review(ctx, w.account, r.ID)
	ent, _ := w.st.Entity(ctx, w.account, e.ID)
	trail, _ := w.st.AuditTrail(ctx, w.account, e.ID)
	if after.Status != r.Status || after.Version != r.Version || ent.Version != e.Version || ent.DossierRev != e.DossierRev || len(trail) != 0 {
		t.Errorf("a refused decision wrote: review %s v%d, entity v%d rev %d, %d audit records", after.Status, after.Version, ent.Version, ent.DossierRev, len(trail))
	}
}

// TestAdjudicationKeepsConfirmedMatches: a verdict puts the match in one
// list, the latest verdict's; approving needs every match in one of them
// and none confirmed.
func TestAdjudicationKeepsConfirmedMatches(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, func(d *domain.EntityDetail) {
		d.Entity.DismissedMatches, d.Entity.SanctionsStatus = nil, domain.SanctionsNeedsReview
	})
	adjudicate := func(match, verdict string) domain.Entity { return w.adjudicate(t, r, e, match, verdict) }
	adjudicate("NK-weak", domain.VerdictFalsePositive)
	got := adjudicate("NK-other", domain.VerdictTruePositive)
	if strings.Join(got.DismissedMatches, ",") != "NK-weak" || strings.Join(got.ConfirmedMatches, ",") != "NK-other" || got.SanctionsStatus != domain.SanctionsHit {
		t.Fatalf("dismissed %v, confirmed %v, sanctions %s", got.DismissedMatches, got.ConfirmedMatches, got.SanctionsStatus)
	}
	if _, err := w.svc.Validate(ctx, w.req(domain.ActionApprove, r.ID, w.decider)); domain.FailureName(err) != domain.FailDecisionBlocked {
		t.Errorf("approve over a confirmed match: %v", err)
	}
	// Judged again, a false positive: the confirmation is gone.
	got = adjudicate("NK-other", domain.VerdictFalsePositive)
	if len(got.ConfirmedMatches) != 0 || len(got.DismissedMatches) != 2 || got.SanctionsStatus != domain.SanctionsClear {
		t.Fatalf("dismissed %v, confirmed %v, sanctions %s", got.DismissedMatches, got.ConfirmedMatches, got.SanctionsStatus)
	}
	if _, _, err := w.svc.Apply(ctx, w.req(domain.ActionApprove, r.ID, w.decider), nil); err != nil {
		t.Errorf("approve once every match is dismissed: %v", err)
	}
}

// TestHighRiskCannotBeClearedAlone: on an account with four eyes on
// approve_high_risk, lowering a high risk needs a second operator too, so
// the maker can neither approve alone nor lower the risk alone and then
// approve alone; once a second operator signs the lowering, the maker
// approves alone.
func TestHighRiskCannotBeClearedAlone(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	if err := w.st.PutAccountSettings(ctx, w.account, domain.AccountSettings{FourEyes: []string{domain.FourEyesApproveHighRisk}}); err != nil {
		t.Fatal(err)
	}
	op, err := w.st.CreateOperator(ctx, w.account, "Maya Maker", []string{domain.PermReviewDecide, domain.PermRiskAssess}, t0)
	if err != nil {
		t.Fatal(err)
	}
	maker, err := passkeytest.Enrol(ctx, w.keys, op)
	if err != nil {
		t.Fatal(err)
	}
	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, func(d *domain.EntityDetail) {
		d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskHigh, AssessedAt: t0}
	})
	assess := func(level string) decisions.Request {
		req := w.req(domain.ActionAssessRisk, r.ID, maker.ID)
		req.RiskLevel = level
		return signed(t, maker, passkey.PurposeDecision, req)
	}
	approve := func() decisions.Request {
		return signed(t, maker, passkey.PurposeDecision, w.req(domain.ActionApprove, r.ID, maker.ID))
	}
	for _, tc := range []struct {
		name string
		req  decisions.Request
		four bool // needs a second operator
	}{
		{"lower high to low", assess("low"), true},
		{"lower high to medium", assess("medium"), true},
		{"approve at high", approve(), true},
		{"assess high again", assess("high"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := w.svc.Validate(ctx, tc.req)
			if err != nil || v.RequiresSecondApproval != tc.four {
				t.Fatalf("validate = %+v, %v; want requires_second_approval %v", v, err, tc.four)
			}
			if !tc.four {
				return
			}
			if _, _, err := w.svc.Apply(ctx, tc.req, nil); domain.FailureName(err) != domain.FailSecondApprover {
				t.Errorf("apply alone: %v, want SecondApproverRequired", err)
			}
			assertUnchanged(t, w.world, e, r)
		})
	}

	// The second operator signs the lowering (holding entity.risk.assess);
	// the maker's approval then stands alone, at low risk.
	lower := assess("low")
	a, err := w.sibling.Sign(ctx, passkey.PurposeApproval, decisions.Digest(lower))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.svc.Apply(ctx, lower, &decisions.Approval{Signature: &a}); err != nil {
		t.Fatalf("the lowering, with a second operator: %v", err)
	}
	if rec, _ := w.st.AuditRecord(ctx, w.account, lower.ActionID); rec.SecondApproverID == nil || *rec.SecondApproverID != w.sibling.ID {
		t.Errorf("the lowering's record names second approver %v, want %d", rec.SecondApproverID, w.sibling.ID)
	}
	req := approve()
	if v, err := w.svc.Validate(ctx, req); err != nil || v.RequiresSecondApproval {
		t.Fatalf("approve at low: %+v, %v", v, err)
	}
	if got, _, err := w.svc.Apply(ctx, req, nil); err != nil || got.Status != domain.ReviewCompleted {
		t.Fatalf("approve at low: %+v, %v", got, err)
	}
}
