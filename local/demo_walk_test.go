package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
)

// TestDemoQueueWalksToApprovals: in the demo as make local seeds it, every
// review "Take the next one" hands out (queue.ClaimNext, which the console
// calls) can be brought to an approval with the decisions an operator has —
// each match adjudicated, the risk assessed, the checks run again where one
// the country requires did not complete, against the simulated register
// and the real screening engine — or the decision policy says in words why
// not. The reviews the front page decides from the command line are handed
// out after every other of their kind (a hit; a clear screening the policy
// lets an operator approve), so a reader who walks the console first
// leaves them to the front page.
func TestDemoQueueWalksToApprovals(t *testing.T) {
	engineStack(t)
	ctx := context.Background()
	st, names := cliStore(t)
	e := &env{store: st, names: names, log: quietLogger()}
	demo, err := seedDemo(ctx, e, 150)
	if err != nil {
		t.Fatal(err)
	}
	picks, err := findDemoPicks(ctx, e, demo.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	frontPage := []int64{picks.Review.Review.ID, picks.Other.Review.ID, picks.HitReview.Review.ID}
	if slices.Contains(frontPage, 0) {
		t.Fatalf("the front page's picks: %+v", picks)
	}
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(),
		Known: seed.RegisterBook(150)})
	t.Cleanup(simSrv.Close)
	w := &demoWalker{st: e, account: demo.AccountID, operator: demo.OperatorID,
		svc: &decisions.Service{Store: st, Checker: simulatorProviders(simSrv.URL).intake, Clock: domain.SystemClock, Countries: country.ISO()}}
	op, err := st.Operator(ctx, demo.AccountID, demo.OperatorID)
	if err != nil {
		t.Fatal(err)
	}
	claims := &queue.Service{Store: st, Clock: domain.SystemClock}
	var approved, refused, picksSeen int
	// kindsSeen counts, by kind, the reviews handed out that are not the
	// front page's; a pick must come when all of its kind have.
	kindsSeen, kindsAll := map[string]int{}, map[string]int{}
	kinds, err := w.kinds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, k := range kinds {
		if !slices.Contains(frontPage, id) {
			kindsAll[k]++
		}
	}
	for n := 0; ; n++ {
		r, err := claims.ClaimNext(ctx, domain.Actor{AccountID: demo.AccountID, OperatorID: op.ID, ActionID: fmt.Sprintf("walk-claim-%d", n),
			SessionCredential: "walk-passkey"}, op, queue.Filter{})
		if domain.ErrorCode(err) == domain.ECodeNotFound {
			break
		}
		if err != nil {
			t.Fatalf("take the next one (%d): %v", n, err)
		}
		if k := kinds[r.ID]; slices.Contains(frontPage, r.ID) {
			picksSeen++
			if kindsSeen[k] != kindsAll[k] {
				t.Errorf("the front page's review %d (%s) was handed out before %d others of its kind", r.ID, k, kindsAll[k]-kindsSeen[k])
			}
		} else {
			kindsSeen[k]++
		}
		why, err := w.walk(ctx, r)
		switch {
		case err != nil:
			t.Errorf("review %d (entity %d): %v", r.ID, r.EntityID, err)
		case why == "":
			approved++
		default:
			refused++
			t.Logf("review %d (entity %d) cannot be approved: %s", r.ID, r.EntityID, why)
		}
	}
	if approved == 0 || picksSeen != len(frontPage) {
		t.Errorf("%d reviews approved, %d refused in words; %d of the front page's %d handed out", approved, refused, picksSeen, len(frontPage))
	}
	t.Logf("Take the next one handed out %d reviews: %d brought to an approval, %d refused in words", approved+refused, approved, refused)
}

// demoWalker decides as an operator would who means to approve.
type demoWalker struct {
	st                *env
	svc               *decisions.Service
	account, operator int64
	seq               int
}

// kinds are the open reviews of the queue by the kind the front page picks
// from: "hit", "approvable" (clear, nothing in an approval's way), "other".
func (w *demoWalker) kinds(ctx context.Context) (map[int64]string, error) {
	out := map[int64]string{}
	q := domain.QueueQuery{AccountID: w.account, Limit: 50, Status: domain.ReviewOpen}
	for {
		page, err := w.st.store.QueuePage(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, en := range page.Entries {
			d, err := w.st.store.EntityDetail(ctx, w.account, en.Review.EntityID)
			if err != nil {
				return nil, err
			}
			cfg, err := w.st.store.CountryConfig(ctx, w.account, d.Entity.CountryCode)
			if err != nil {
				return nil, err
			}
			switch {
			case d.Entity.SanctionsStatus == domain.SanctionsHit:
				out[en.Review.ID] = "hit"
			case d.Entity.SanctionsStatus == domain.SanctionsClear && len(decisions.ApproveBlockers(d.Entity, d.Checks, cfg)) == 0:
				out[en.Review.ID] = "approvable"
			default:
				out[en.Review.ID] = "other"
			}
		}
		if page.Next == "" {
			return out, nil
		}
		q.After = page.Next
	}
}

func (w *demoWalker) apply(ctx context.Context, r domain.Review, action domain.Action, reason string, set func(*decisions.Request)) error {
	w.seq++
	req := decisions.Request{Action: action, AccountID: w.account, EntityID: r.EntityID, ReviewID: r.ID, OperatorID: w.operator,
		ActionID: fmt.Sprintf("walk-%d", w.seq), Reason: reason}
	if set != nil {
		set(&req)
	}
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		return fmt.Errorf("%s: %w", action, err)
	}
	return nil
}

// walk clears what stands in an approval's way and approves: "" when
// approved, else the policy's words for what no operator's decision
// clears.
func (w *demoWalker) walk(ctx context.Context, r domain.Review) (string, error) {
	var last []decisions.Blocker
	for round := 0; round < 4; round++ {
		d, err := w.st.store.EntityDetail(ctx, w.account, r.EntityID)
		if err != nil {
			return "", err
		}
		cfg, err := w.st.store.CountryConfig(ctx, w.account, d.Entity.CountryCode)
		if err != nil {
			return "", err
		}
		blockers := decisions.ApproveBlockers(d.Entity, d.Checks, cfg)
		last = blockers
		if len(blockers) == 0 {
			return "", w.apply(ctx, r, domain.ActionApprove, "documents_verified", nil)
		}
		rerun := false
		for _, b := range blockers {
			switch b.Kind {
			case decisions.BlockOpenMatch:
				err = w.apply(ctx, r, domain.ActionAdjudicateMatch, "different_dates: the walk's operator", func(q *decisions.Request) {
					q.MatchID, q.Verdict = b.About, "false_positive"
				})
			case decisions.BlockRiskNotAssessed:
				err = w.apply(ctx, r, domain.ActionAssessRisk, "risk_model", func(q *decisions.Request) { q.RiskLevel = string(domain.RiskLow) })
			case decisions.BlockCheckNotCompleted, decisions.BlockCheckNeverRun, decisions.BlockPartialScreening:
				rerun = true
			default:
				return b.Text, nil
			}
			if err != nil {
				return "", err
			}
		}
		if rerun {
			if err := w.apply(ctx, r, domain.ActionQueueChecks, "provider_failed", nil); err != nil {
				return "", err
			}
		}
	}
	return "", fmt.Errorf("still blocked after four rounds of decisions: %+v", last)
}
