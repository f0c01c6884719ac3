package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/portal"
)

// TestDemoQueueInTheConsole: the demo as make local seeds it, walked in
// Chromium as the console README tells it: the Demo Operator enrols by
// link, presses Take the next one, and brings the review handed out to an
// approval with the page's own forms, each decision signed with the
// passkey and run through the workflow — every match judged, the risk
// assessed, the checks run again where one did not complete (the
// simulated register, the real screening engine) — whatever the review
// needs, read from the page's Before you decide.
func TestDemoQueueInTheConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test (-short)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the console's decisions run the decision ASL in aws-local-stepfunctions on Node.js 20 or later")
	}
	engineStack(t)
	ln, base := passkeyListener(t)
	f := newFlowFixture(t)
	ctx := logging.WithLogger(context.Background(), quietLogger())
	e := &env{store: f.st, names: f.names, log: quietLogger()}
	demo, err := seedDemo(ctx, e, 150)
	if err != nil {
		t.Fatal(err)
	}
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(),
		Known: seed.RegisterBook(150)})
	t.Cleanup(simSrv.Close)
	serveConsole(ctx, t, f, simulatorProviders(simSrv.URL).deps(f.st, quietLogger()), ln)

	l, err := (&portal.Service{Store: f.st, Clock: domain.SystemClock}).Mint(ctx,
		domain.Actor{AccountID: demo.AccountID, Admin: "make local", ActionID: "demo-walk-link"}, demo.OperatorID)
	if err != nil {
		t.Fatal(err)
	}
	link, err := portal.LinkURL(base, l.Token)
	if err != nil {
		t.Fatal(err)
	}
	op := newOperatorBrowser(t, base, 1100, 900, true)
	op.enrol(link)
	// Reviews are taken one after the other until the walk has judged a
	// match and run the checks again (the demo's first reviews need
	// those), each brought to an approval.
	judged, rerun := 0, 0
	for taken := 0; judged == 0 || rerun == 0; taken++ {
		if taken == 8 {
			t.Fatalf("after %d reviews, %d matches judged and %d checks run again", taken, judged, rerun)
		}
		r := walkDemoReview(ctx, t, op, f, demo.AccountID, taken, &judged, &rerun)
		done, err := f.st.Review(ctx, demo.AccountID, r.ID)
		if err != nil || done.Status != domain.ReviewCompleted || domain.Deref(done.Outcome) != domain.OutcomeApproved {
			t.Errorf("review %d, after the walk: %+v, %v", r.ID, done, err)
		}
	}
}

// walkDemoReview takes the next review and brings it to an approval: each
// round reads what the page's Before you decide lists (the policy's
// blockers, decisions.ApproveBlockers) and clears the first with the
// page's own form.
func walkDemoReview(ctx context.Context, t *testing.T, op *operatorBrowser, f *flowFixture, account int64, taken int, judged, rerun *int) domain.Review {
	t.Helper()
	base := op.base
	op.Do("take the next one", chromedp.Navigate(base+"/console/queue"), chromedp.Click(chromedp.CSS(`form[action$="/queue/next"] button`)),
		op.under("/console/reviews/"), chromedp.WaitVisible(chromedp.CSS("pre.dossier")))
	reviewPath := op.eval("location.pathname")
	var reviewID int64
	if _, err := fmt.Sscanf(reviewPath, "/console/reviews/%d", &reviewID); err != nil {
		t.Fatalf("the review taken: %s", reviewPath)
	}
	r, err := f.st.Review(ctx, account, reviewID)
	if err != nil {
		t.Fatal(err)
	}
	// Who is behind it comes before the matches: the parties the demo's
	// register lists, or a sentence saying there are none.
	if who := op.text("main"); !strings.Contains(who, "Who is behind it") {
		t.Errorf("review %d: no parties section", r.ID)
	}
	op.Screenshot(fmt.Sprintf("demo-%d-taken", taken+1))
	for step := 0; ; step++ {
		if step == 8 {
			t.Fatalf("review %d is still not approvable after %d decisions: %q", r.ID, step, op.text("main"))
		}
		d, err := f.st.EntityDetail(ctx, account, r.EntityID)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := f.st.CountryConfig(ctx, account, d.Entity.CountryCode)
		if err != nil {
			t.Fatal(err)
		}
		var form, code string
		var fill []chromedp.Action[chromedp.Void]
		blockers := decisions.ApproveBlockers(d.Entity, d.Checks, cfg)
		if len(blockers) == 0 {
			form, code = `form[data-action="approve"]`, "documents_verified"
		} else {
			switch b := blockers[0]; b.Kind {
			case decisions.BlockOpenMatch:
				form = fmt.Sprintf(`section.match form:has(input[name="match_id"][value=%q])`, b.About)
				code, fill = "name_only", []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS(form + ` input[value="false_positive"]`))}
				*judged++
			case decisions.BlockRiskNotAssessed:
				form, code = `form[data-action="assess_risk"]`, "risk_model"
				fill = []chromedp.Action[chromedp.Void]{chromedp.SetValue(chromedp.CSS(form+` select[name="risk_level"]`), "low")}
			case decisions.BlockCheckNotCompleted, decisions.BlockCheckNeverRun, decisions.BlockPartialScreening, decisions.BlockPartyUnscreened:
				form, code = `form[data-action="queue_checks"]`, "provider_failed"
				*rerun++
			default:
				t.Fatalf("review %d: %s", r.ID, b.Text)
			}
		}
		what := strings.TrimPrefix(form, "form")
		t.Logf("review %d: %s", r.ID, what)
		op.Do("open the review for "+what, chromedp.Navigate(base+reviewPath), chromedp.WaitVisible(chromedp.CSS(form)))
		op.Do(what+": continue to sign", append(fill,
			chromedp.SetValue(chromedp.CSS(form+` select[name="reason_code"]`), code),
			chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)),
			op.at(reviewPath+"/confirm"), chromedp.WaitVisible(op.start()))...)
		op.Do(what+": sign and submit", chromedp.Click(op.start()), op.under("/console/executions/"), op.waitHeading("Decision applied"))
		if len(blockers) == 0 {
			break
		}
	}
	op.Screenshot(fmt.Sprintf("demo-%d-approved", taken+1))
	return r
}
