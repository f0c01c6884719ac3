package main

// The operator console end to end in a real browser (Debian's Chromium
// through chromedp), over what make local runs: the gateway, DynamoDB
// Local, the local event flow over ElasticMQ, and the console's decision
// workflow on this machine (stageWorkflow: the real decision ASL in
// aws-local-stepfunctions, the decision function's own handler behind it).
// Each operator has a Chromium of their own, holding one virtual
// authenticator: their device. Screenshots of every page are kept as the
// test's artifacts: go test ./local -run TestConsoleEndToEndInABrowser
// -artifacts -outputdir DIR.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
	"github.com/evs-kyb/evs/shared/webpage/webpagetest"
)

// TestConsoleEndToEndInABrowser: an operator enrols by link, signs out and
// in with the passkey, takes the next review, adjudicates a screening
// match, assesses the entity's risk as high and approves it, each decision
// confirmed in words and signed; the approval waits for a second operator,
// which its maker cannot be; a second operator approves it with their own
// passkey, the review completes, the approved webhook is delivered, and
// the audit trail holds the signed records, verified by the admin
// function. Then what must fail does: a form on a dossier that moved shows
// the stale view, a view-only operator is offered no decision, a device
// that does not verify its user enrols and signs in no one, and a forged
// UV bit is refused. A third operator walks with the keyboard alone
// (consoleByKeyboard). Every page screenshotted passes axe-core's WCAG 2.1
// A/AA rules (webpagetest.Screenshot).
func TestConsoleEndToEndInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test (-short)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the console's decisions run the decision ASL in aws-local-stepfunctions on Node.js 20 or later")
	}
	began := time.Now()
	ln, base := passkeyListener(t)

	f := newFlowFixture(t)
	ctx := logging.WithLogger(context.Background(), quietLogger())
	// A real account's settings: no declared decision (every one is
	// signed), and four eyes to approve a high-risk entity.
	if err := f.st.PutAccountSettings(ctx, f.acct, domain.AccountSettings{FourEyes: []string{domain.FourEyesApproveHighRisk}}); err != nil {
		t.Fatal(err)
	}
	// operator and link take the t of the (sub)test they serve: they fail it.
	operator := func(t *testing.T, name string, perms ...string) domain.Operator {
		t.Helper()
		op, err := f.st.CreateOperator(ctx, f.acct, name, perms, domain.Now())
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	danaOp := operator(t, "Dana Decider", domain.PermReviewDecide, domain.PermRiskAssess)
	samiOp := operator(t, "Sami Second", domain.PermReviewDecide)
	// The oldest open review is the one "Take the next one" claims; the
	// other stays open for the stale view and the view-only operator.
	taken := consoleReview(t, f, "7000000910", "Decided Trading", 72*time.Hour)
	other := consoleReview(t, f, "7000000920", "Second Trading", time.Hour)
	// The walk with the keyboard alone takes this one, once the first is
	// decided: an entity whose legal name is in Arabic script, as the demo's.
	arabic := arabicLegalName(t)
	keyed := consoleReview(t, f, "7000000930", arabic, 48*time.Hour)
	rcv := newTestReceiver(t, "")
	ep := f.endpoint(rcv.url(), domain.EventApproved)
	rcv.setSecret(ep.Secret)

	decide := serveConsole(ctx, t, f, providers{}.deps(f.st, quietLogger()), ln)

	links := &portal.Service{Store: f.st, Clock: domain.SystemClock}
	link := func(t *testing.T, op domain.Operator) string {
		t.Helper()
		l, err := links.Mint(ctx, domain.Actor{AccountID: f.acct, Admin: "browser test", ActionID: "console-mint-" + itoa(int(op.ID))}, op.ID)
		if err != nil {
			t.Fatal(err)
		}
		u, err := portal.LinkURL(base, l.Token)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	reviewPath := func(r domain.Review) string { return "/console/reviews/" + itoa(int(r.ID)) }

	// 1. Dana enrols by link, signs out, and signs in with the passkey.
	dana := newOperatorBrowser(t, base, 1100, 900, true)
	dana.enrol(link(t, danaOp), "01-enrol", "02-create-passkey")
	if who := dana.text(".who"); !strings.Contains(who, "Dana Decider") {
		t.Errorf("signed in as %q", who)
	}
	dana.signOut()
	dana.Screenshot("03-sign-in")
	dana.signIn()
	// One sign-in for both: the passkey session opens the settings area
	// without a link of its own.
	dana.Do("the settings area", chromedp.Navigate(base+"/settings/countries"), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := dana.text("h1"); !strings.Contains(h, "Countries") {
		t.Errorf("the settings area with the console's session: %q", h)
	}
	dana.Do("back to the queue", chromedp.Navigate(base+"/console/queue"), chromedp.WaitVisible(chromedp.CSS("table")))

	// 2. The queue shows both reviews; Take the next one claims the
	// oldest, and its page shows the dossier and a row per match.
	if rows := dana.text("table"); !strings.Contains(rows, "Decided Trading") || !strings.Contains(rows, "Second Trading") {
		t.Errorf("the queue's reviews: %q", rows)
	}
	dana.Screenshot("04-queue")
	dana.Do("take the next one", chromedp.Click(chromedp.CSS(`form[action$="/queue/next"] button`)), dana.at(reviewPath(taken)),
		chromedp.WaitVisible(chromedp.CSS("pre.dossier")))
	if h := dana.heading(); h != fmt.Sprintf("Review %d: Decided Trading", taken.ID) {
		t.Errorf("the review taken: %q", h)
	}
	if dossier := dana.text("pre.dossier"); !strings.Contains(dossier, "Decided Trading") || !strings.Contains(dossier, "7000000910") {
		t.Errorf("the dossier shown: %q", dossier)
	}
	if n := dana.count("section.match"); n != 2 {
		t.Errorf("%d match rows, want one per match of the latest screening (2)", n)
	}
	if n := dana.count("section.match table.compare"); n != 2 {
		t.Errorf("%d matches set beside the entity, want 2", n)
	}
	if compare := dana.text("section.match table.compare"); !strings.Contains(compare, "Jumeirah Lake Towers") || !strings.Contains(compare, "program SDGT") {
		t.Errorf("the first match beside the entity: %q", compare)
	}
	dana.Screenshot("05-review")
	// The screening's answer, value by value, verified against its hash.
	dana.Do("read the screening's answer", chromedp.Click(chromedp.CSS(`a[href*="/answer?review="]`)), chromedp.WaitVisible(chromedp.CSS("table.answer")))
	if v := dana.text("p[data-verified]"); !strings.HasPrefix(v, "Verified") {
		t.Errorf("the answer page says %q", v)
	}
	dana.Screenshot("05-answer")
	dana.Do("back to the review", chromedp.Navigate(base+reviewPath(taken)), chromedp.WaitVisible(chromedp.CSS("pre.dossier")))

	// 2–3. Three decisions, each confirmed in words, signed with the
	// passkey and run through the workflow; the last, approving a now
	// high-risk entity, waits for a second operator.
	var waiting string // the approval's execution, named by its action id
	for _, step := range []struct {
		what, form string
		fill       []chromedp.Action[chromedp.Void]
		code, note string
		// words are what the confirmation must say; then is the execution
		// page's heading once the workflow is done with it.
		words []string
		then  string
	}{
		{
			what: "adjudicate-first", form: `section.match form:has(input[name="match_id"][value="NK-first"])`,
			fill: []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS(`section.match form:has(input[name="match_id"][value="NK-first"]) input[value="false_positive"]`))},
			code: "name_only", note: "Another company of a similar name",
			words: []string{"Adjudicate a match", "NK-first", "name_only: Another company"}, then: "Decision applied",
		},
		{
			what: "adjudicate", form: `section.match form:has(input[name="match_id"][value="NK-second"])`,
			fill: []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS(`section.match form:has(input[name="match_id"][value="NK-second"]) input[value="false_positive"]`))},
			code: "name_only", note: "Different registration number and address",
			words: []string{"Adjudicate a match", "NK-second", "name_only: Different registration number"}, then: "Decision applied",
		},
		{
			what: "assess-risk", form: `form[data-action="assess_risk"]`,
			fill: []chromedp.Action[chromedp.Void]{chromedp.SetValue(chromedp.CSS(`form[data-action="assess_risk"] select[name="risk_level"]`), "high")},
			code: "jurisdiction", note: "Counterparties in a high-risk jurisdiction",
			words: []string{"Assess the risk", "high", "jurisdiction: Counterparties"}, then: "Decision applied",
		},
		{
			what: "approve", form: `form[data-action="approve"]`, code: "documents_verified", note: "Registry and screening checked",
			words: []string{"Approve", "documents_verified: Registry and screening checked"}, then: "Waiting for a second operator",
		},
	} {
		dana.Do("open the review to "+step.what, chromedp.Navigate(base+reviewPath(taken)), chromedp.WaitVisible(chromedp.CSS(step.form)))
		fill := slices.Concat(step.fill, []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.CSS(step.form+` select[name="reason_code"]`), step.code),
			chromedp.SetValue(chromedp.CSS(step.form+` input[name="note"]`), step.note),
			chromedp.Click(chromedp.CSS(step.form + ` button[type="submit"]`)),
			dana.at(reviewPath(taken) + "/confirm"), chromedp.WaitVisible(dana.start()),
		})
		dana.Do(step.what+": continue to sign", fill...)
		if h := dana.heading(); h != "Sign your decision" {
			t.Fatalf("%s: after the form, %q: %q", step.what, h, dana.text("main"))
		}
		facts := dana.text("dl.facts")
		for _, w := range step.words {
			if !strings.Contains(facts, w) {
				t.Errorf("%s: the confirmation lacks %q: %q", step.what, w, facts)
			}
		}
		dana.Screenshot(fmt.Sprintf("06-%s-confirm", step.what))
		dana.Do(step.what+": sign and submit", chromedp.Click(dana.start()), dana.under("/console/executions/"), dana.waitHeading(step.then))
		dana.Screenshot(fmt.Sprintf("07-%s-%s", step.what, strings.ToLower(strings.ReplaceAll(step.then, " ", "-"))))
		if step.what == "approve" {
			waiting = path.Base(dana.eval("location.pathname"))
		}
	}
	ent, err := f.st.Entity(ctx, f.acct, taken.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ent.DismissedMatches, []string{"NK-first", "NK-second"}) || ent.SanctionsStatus != domain.SanctionsClear || ent.Risk == nil || ent.Risk.Level != domain.RiskHigh {
		t.Errorf("the entity after the adjudication and the assessment: dismissed %v, sanctions %s, risk %+v", ent.DismissedMatches, ent.SanctionsStatus, ent.Risk)
	}
	if r, err := f.st.Review(ctx, f.acct, taken.ID); err != nil || r.Status != domain.ReviewInProgress {
		t.Errorf("the review while its approval waits: %s, %v", r.Status, err)
	}

	// 4. The maker cannot approve their own decision: the queue offers
	// them no link to it, and its page refuses them.
	dana.Do("queue", chromedp.Navigate(base+"/console/queue"), chromedp.WaitVisible(chromedp.CSS("tr.pending-row")))
	if row := dana.text("tr.pending-row"); !strings.Contains(row, "yours: another operator approves") {
		t.Errorf("the maker's waiting row: %q", row)
	}
	if n := dana.count(`tr.pending-row a[href*="/approvals/"]`); n != 0 {
		t.Errorf("the maker is offered %d links to approve", n)
	}
	dana.Do("the maker opens the approval", chromedp.Navigate(base+"/console/approvals/"+waiting), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := dana.heading(); h != "Not yours to approve" || dana.count(`[data-ceremony="approve"]`) != 0 {
		t.Errorf("the maker on their own approval: %q, %d approve ceremonies", h, dana.count(`[data-ceremony="approve"]`))
	}
	dana.Screenshot("08-maker-refused")

	// 5. Sami, in a browser of their own with a device of their own,
	// enrols, signs in, and approves from "Waiting for a second operator".
	sami := newOperatorBrowser(t, base, 1100, 900, true)
	sami.enrol(link(t, samiOp))
	sami.signOut()
	sami.signIn()
	sami.Do("open the waiting decision", chromedp.Click(chromedp.CSS(`tr.pending-row a[href$="/approvals/`+waiting+`"]`)),
		sami.at("/console/approvals/"+waiting), chromedp.WaitVisible(sami.start()))
	if h, doc := sami.heading(), sami.text("pre.document"); h != "Second approval: Approve" || !strings.Contains(doc, "documents_verified") {
		t.Errorf("the approval page: %q, document %q", h, doc)
	}
	sami.Screenshot("09-approval")
	sami.Do("sign and approve", chromedp.Click(sami.start()), sami.at("/console/executions/"+waiting))
	// What the second operator is shown at once, before the workflow has
	// applied the decision: logged, not asserted, as it races the
	// workflow.
	t.Logf("the second operator first sees %q", sami.eval(`document.querySelector("h1") ? document.querySelector("h1").textContent : ""`))
	sami.Do("applied", sami.waitHeading("Decision applied"))
	if status := sami.text("p.notice"); !strings.Contains(status, fmt.Sprintf("Review #%d is now completed (approved)", taken.ID)) {
		t.Errorf("the applied approval says %q", status)
	}
	sami.Screenshot("10-approved")
	done, err := f.st.Review(ctx, f.acct, taken.ID)
	if err != nil || done.Status != domain.ReviewCompleted || domain.Deref(done.Outcome) != domain.OutcomeApproved ||
		domain.Deref(done.OutcomeReason) != "documents_verified: Registry and screening checked" {
		t.Errorf("the review approved: %+v, %v", done, err)
	}

	// 6. The approval reaches the subscriber, signed.
	select {
	case ev := <-rcv.notify:
		if ev.EventType != string(domain.EventApproved) || ev.EntityReviewID != taken.ID || domain.Deref(ev.Outcome) != "approved" {
			t.Errorf("the webhook delivered: %+v", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no approved event reached the subscriber")
	}
	if ds := f.deliveries(1, domain.DeliveryFilter{EndpointID: ep.ID}); ds[0].Status != domain.DeliveryDelivered {
		t.Errorf("the delivery: %s %d", ds[0].Status, ds[0].ResponseStatus)
	}

	// 7. The audit trail: each decision signed with a passkey, the
	// approval twice (maker and second operator); the admin function finds
	// the chain intact and every signature valid against the keys the
	// account's own chain recorded.
	trail, err := f.st.AuditTrail(ctx, f.acct, taken.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		action     domain.Action
		signatures int
		second     *int64
	}{
		{domain.ActionAdjudicateMatch, 1, nil},
		{domain.ActionAssessRisk, 1, nil},
		{domain.ActionApprove, 2, &samiOp.ID},
	} {
		i := slices.IndexFunc(trail, func(r domain.AuditRecord) bool { return r.Action == want.action })
		if i < 0 {
			t.Errorf("no %s in the audit trail", want.action)
			continue
		}
		rec := trail[i]
		if rec.Identity != domain.IdentityPasskey || rec.OperatorID != danaOp.ID || len(rec.Signatures) != want.signatures ||
			(want.second == nil) != (rec.SecondApproverID == nil) || (want.second != nil && *rec.SecondApproverID != *want.second) {
			t.Errorf("%s recorded as %s by operator %d with %d signatures, second approver %v; want passkey, %d, %d, %v",
				want.action, rec.Identity, rec.OperatorID, len(rec.Signatures), rec.SecondApproverID, danaOp.ID, want.signatures, want.second)
		}
	}
	var view admin.AuditChainView
	adm, err := localAdmin(&env{store: f.st, names: f.names, log: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := runAdmin(ctx, inProcess{handle: adm}, "browser test", map[string]any{"command": "audit.verify", "account_id": f.acct, "entity_id": taken.EntityID}, &view); err != nil {
		t.Fatal(err)
	}
	if !view.Intact || !view.SignaturesValid || len(view.Signatures) != 5 {
		t.Errorf("audit.verify: intact %v, signatures valid %v, %d signatures (want 5: two adjudications, assessment, approval twice): %+v",
			view.Intact, view.SignaturesValid, len(view.Signatures), view.Signatures)
	}
	dana.Do("the review, completed", chromedp.Navigate(base+reviewPath(taken)), chromedp.WaitVisible(chromedp.CSS("pre.dossier")))
	if audit := dana.text("main"); !strings.Contains(audit, "Passkey-signed, four eyes") || !strings.Contains(audit, "Second operator "+strconv.FormatInt(samiOp.ID, 10)+", passkey") {
		t.Errorf("the review page's audit trail does not show the approval's four eyes: %q", audit)
	}
	dana.Screenshot("11-review-completed")

	// (c) A stale dossier: Dana opens the other review; meanwhile another
	// operator's signed decision, through the decision function, changes
	// its entity; Dana's form, posted as it was rendered, shows what
	// changed instead of a confirmation.
	dana.Do("open the other review", chromedp.Navigate(base+reviewPath(other)), chromedp.WaitVisible(chromedp.CSS(`form[data-action="start"]`)))
	rami := consoleSignedDecision(ctx, t, f, decide, decisions.Request{Action: domain.ActionAssessRisk, AccountID: f.acct, EntityID: other.EntityID, ReviewID: other.ID,
		ActionID: "api-risk-" + itoa(int(other.ID)), RiskLevel: string(domain.RiskMedium), Reason: "risk_model: quarterly model run"})
	dana.Do("post the old form", chromedp.Click(chromedp.CSS(`form[data-action="start"] button[type="submit"]`)),
		dana.at(reviewPath(other)+"/confirm"), chromedp.WaitVisible(chromedp.CSS("p.warning")))
	if h, page := dana.heading(), dana.text("main"); h != "The dossier changed" || !strings.Contains(page, "Assess the risk") || !strings.Contains(page, rami.Name) {
		t.Errorf("a form on a moved dossier: %q: %q", h, page)
	}
	dana.Screenshot("12-stale-view")
	if r, err := f.st.Review(ctx, f.acct, other.ID); err != nil || r.Status != domain.ReviewOpen {
		t.Errorf("the other review after the stale form: %s, %v", r.Status, err)
	}

	// (d) The keyboard alone: enrol, take the next one, adjudicate, assess
	// and approve; the Arabic name laid out right to left on the way.
	t.Run("keyboard only", func(t *testing.T) {
		consoleByKeyboard(t, base, link(t, operator(t, "Kira Keys", domain.PermReviewDecide, domain.PermRiskAssess)), keyed, arabic)
	})

	// (b) A view-only operator, on a phone: the review's page, and the
	// queue, offer no decision.
	t.Run("view only", func(t *testing.T) {
		vera := newOperatorBrowser(t, base, 1100, 900, true)
		// Headless Chromium keeps its window at least 500 px wide: the
		// phone's viewport is emulated.
		vera.Do("a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		vera.enrol(link(t, operator(t, "Vera Viewer", domain.PermWebhookDeliveryView)))
		if n := vera.count(`form[action$="/queue/next"]`); n != 0 {
			t.Errorf("a view-only operator may take reviews")
		}
		vera.Do("open the review", chromedp.Navigate(base+reviewPath(other)), chromedp.WaitVisible(chromedp.CSS("pre.dossier")))
		if forms := vera.eval(`[...document.querySelectorAll("form[method=post]")].map(f => f.getAttribute("action")).filter(a => !a.endsWith("/signout")).join(" ")`); forms != "" {
			t.Errorf("a view-only operator is offered forms: %s", forms)
		}
		if page := vera.text("main"); !strings.Contains(page, "deciding on it takes a permission you do not hold") {
			t.Errorf("a view-only operator is not told why no form shows: %q", page)
		}
		if wide := webpagetest.Get(vera.Browser, "page width", chromedp.Evaluate[int]("document.documentElement.scrollWidth")); wide > 390 {
			t.Errorf("the review page is %d px wide on a 390 px phone", wide)
		}
		vera.Screenshot("13-view-only-phone")
	})

	// (a) A device that does not verify its user (IsUserVerified false)
	// enrols no one and signs no one in: Chrome refuses the ceremony the
	// console requires user verification for, and nothing is sent.
	t.Run("no user verification", func(t *testing.T) {
		carlOp := operator(t, "Carl Unverified", domain.PermReviewDecide)
		carl := newOperatorBrowser(t, base, 1100, 900, false)
		unverified := "Nothing was sent"
		carl.Do("open the link", chromedp.Navigate(link(t, carlOp)), chromedp.Click(chromedp.CSS(`form[action$="/enrol"] button[type=submit]`)),
			carl.at("/console/enrol/passkey"), chromedp.WaitVisible(carl.start()))
		carl.Do("create a passkey unverified", chromedp.Click(carl.start()), carl.statusSays(unverified))
		carl.Screenshot("14-unverified-enrolment-refused")
		if keys, err := f.st.Passkeys(ctx, f.acct, carlOp.ID); err != nil || len(keys) != 0 {
			t.Errorf("an unverified device enrolled %d passkeys (%v)", len(keys), err)
		}
		uv := func(on bool) {
			t.Helper()
			carl.authenticator(fmt.Sprintf("user verified: %v", on), func(ctx context.Context, s cdp.Session, id webauthn.AuthenticatorID) error {
				_, err := cdp.Call(ctx, s, webauthn.SetUserVerified, webauthn.SetUserVerifiedParams{AuthenticatorID: id, IsUserVerified: on})
				return err
			})
		}
		// Verified, the same enrolment session makes the passkey; then the
		// device stops verifying Carl, and his passkey signs him in no more.
		uv(true)
		carl.Do("create the passkey verified", chromedp.Click(carl.start()), carl.at("/console/queue"), chromedp.WaitVisible(chromedp.CSS("h1")))
		carl.signOut()
		uv(false)
		carl.Do("sign in unverified", chromedp.Click(carl.start()), carl.statusSays(unverified))
		carl.Screenshot("15-unverified-sign-in-refused")
		carl.signedOut()

		// A forged UV bit: the authenticator verifies Carl, but Chrome
		// clears the UV flag of its answer (isBadUV), as a tampered client
		// would. The assertion reaches the console, whose check refuses
		// it. (shared/passkey tests the same refusal with a software
		// authenticator, passkeytest.ForgeFlags, without a browser.)
		uv(true)
		carl.authenticator("clear UV in the answer", func(ctx context.Context, s cdp.Session, id webauthn.AuthenticatorID) error {
			forged := true
			_, err := cdp.Call(ctx, s, webauthn.SetResponseOverrideBits, webauthn.SetResponseOverrideBitsParams{AuthenticatorID: id, IsBadUV: &forged})
			return err
		})
		refused := "The passkey's sign-in does not verify"
		carl.Do("sign in with a forged UV bit", chromedp.Click(carl.start()), carl.statusSays(refused))
		carl.Screenshot("16-forged-uv-refused")
		carl.signedOut()
	})
	t.Logf("the whole scenario took %v", time.Since(began).Round(time.Millisecond))
}

// consoleReview creates an entity ready for review, age old, with its
// initial review open, a registry check and a completed screening listing
// two matches, both under the hit score (0.9): the sanctions status needs
// review, as yente's reading would have it, and stays so when one match is
// dismissed.
func consoleReview(t *testing.T, f *flowFixture, number, name string, age time.Duration) domain.Review {
	t.Helper()
	at := domain.Now().Add(-age)
	// Each check keeps its provider's answer as the simulator gives it,
	// the review page setting each match beside the entity from it.
	check := func(typ domain.CheckType, result map[string]any, answer any) domain.Check {
		body, _ := json.Marshal(answer)
		ev := domain.NewEvidence("test", "POST", "http://provider.test/", http.StatusOK, body, at)
		result["evidence"] = ev.ResultMap()
		return domain.Check{Type: typ, ProviderKey: "test", Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake,
			Result: result, Evidence: ev, CheckedAt: &at, CreatedAt: at, UpdatedAt: at}
	}
	listed := func(o sim.Outcome, id, caption string, score float64) map[string]any {
		m := sim.Matches(o, caption)[0]
		m["id"], m["score"] = id, score
		return m
	}
	first, second := listed(sim.Hit, "NK-first", name+" LLC", 0.86), listed(sim.NeedsReview, "NK-second", name+" Holdings", 0.72)
	d, err := f.st.CreateEntity(f.ctx, domain.EntityDetail{
		Entity: domain.Entity{AccountID: f.acct, RegistrationNumber: number, LegalName: name, CountryCode: "SA", CountryID: 682,
			Status: domain.EntityReadyForReview, RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsNeedsReview,
			CreatedAt: at, UpdatedAt: at},
		Checks: []domain.Check{
			check(domain.CheckRegistryLookup, map[string]any{"status": "active", "registration_status": "valid_status", "legal_name": name,
				"unified_number": number}, sim.WathqAnswer(sim.WathqCurrent, number, name, sim.RegisterActive)),
			check(domain.CheckOrganizationScreening, map[string]any{"status": "needs_review", "matched": true, "matches_count": 2,
				"matches": []any{
					map[string]any{"id": "NK-first", "caption": name + " LLC", "schema": "Company", "score": 0.86, "datasets": []any{"us_ofac_sdn", "eu_fsf"}},
					map[string]any{"id": "NK-second", "caption": name + " Holdings", "schema": "Company", "score": 0.72, "datasets": []any{"gb_hmt_sanctions"}},
				}}, map[string]any{"responses": map[string]any{"q1": map[string]any{"status": 200, "results": []any{first, second}}}}),
		},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d.Reviews[0]
}

// serveConsole serves on ln the gateway of make local over f's store with
// the functions' deps d, its console deciding through the local stand-in of
// Step Functions (the real ASL), wired as up wires it; it returns the
// decision function the workflow runs.
func serveConsole(ctx context.Context, t *testing.T, f *flowFixture, d boot.Deps, ln net.Listener) boot.DecisionHandler {
	t.Helper()
	decide, err := boot.As[boot.DecisionHandler]("decision", d)
	if err != nil {
		t.Fatal(err)
	}
	adm, err := localAdmin(&env{store: f.st, names: f.names, log: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	wfCtx, stopWorkflow := context.WithCancel(ctx)
	t.Cleanup(stopWorkflow) // ends the executions still waiting (run.mjs is killed with it)
	stage := newStageAPI(wfCtx, adm, decide)
	if err := serveStageAPI(wfCtx, stage); err != nil {
		t.Fatal(err)
	}
	d.Workflow = stageWorkflow{api: stage}
	gw, err := buildGateway(d)
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, ln, gw)
	return decide
}

// consoleSignedDecision applies req through the decision function as the
// workflow's Apply task does, made and signed by a new operator holding a
// software passkey: a change to the dossier from outside the browser.
func consoleSignedDecision(ctx context.Context, t *testing.T, f *flowFixture, decide boot.DecisionHandler, req decisions.Request) domain.Operator {
	t.Helper()
	op, err := f.st.CreateOperator(ctx, f.acct, "Rami Risk", []string{domain.PermRiskAssess}, domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	o, err := passkeytest.Enrol(ctx, &passkey.Service{Store: f.st, Clock: domain.SystemClock, Config: localPasskeys()}, op)
	if err != nil {
		t.Fatal(err)
	}
	req.OperatorID = op.ID
	a, err := o.Sign(ctx, passkey.PurposeDecision, decisions.Digest(req))
	if err != nil {
		t.Fatal(err)
	}
	req.Signature = &a
	if _, err := decide(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req})); err != nil {
		t.Fatalf("%s by %s: %v", req.Action, op.Name, err)
	}
	return op
}

// operatorBrowser is one operator's own Chromium (its own profile: its own
// cookies) with one virtual authenticator standing in for their device.
type operatorBrowser struct {
	*webpagetest.Browser
	t    *testing.T
	base string
	auth webauthn.AuthenticatorID
}

// passkeyListener takes a port on loopback for a gateway whose console
// takes passkeys, and names it as the relying party's origin. A passkey is
// bound to a host name, and go-webauthn refuses an IP address as one: the
// browser goes to localhost. The port is taken first so the relying party
// names it before anything reads it — the console, and the decision
// function, which checks every signature again.
func passkeyListener(t *testing.T) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() }) // served, the server closes it first
	base := fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)
	t.Setenv("PASSKEY_RP_ID", "localhost")
	t.Setenv("PASSKEY_ORIGINS", base)
	return ln, base
}

// serveOn serves h on ln until the test ends.
func serveOn(t *testing.T, ln net.Listener, h http.Handler) {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
}

// newOperatorBrowser starts the browser with an authenticator of the kind
// a laptop's platform authenticator is: CTAP 2.1, internal, holding
// discoverable credentials, verifying its user (uv) and its presence
// simulated, every option said rather than left to Chrome's defaults.
func newOperatorBrowser(t *testing.T, base string, width, height int, uv bool) *operatorBrowser {
	t.Helper()
	o := &operatorBrowser{Browser: webpagetest.New(t, width, height), t: t, base: base}
	o.Do("add a virtual authenticator", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := cdp.Call(ctx, target, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		res, err := cdp.Call(ctx, target, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: uv, AutomaticPresenceSimulation: true,
		}})
		o.auth = res.AuthenticatorID
		return err
	}))
	return o
}

// authenticator runs a WebAuthn domain command on the browser's
// authenticator.
func (o *operatorBrowser) authenticator(what string, do func(ctx context.Context, s cdp.Session, id webauthn.AuthenticatorID) error) {
	o.t.Helper()
	o.Do(what, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error { return do(ctx, target, o.auth) }))
}

// start is the button that starts a page's passkey ceremony.
func (o *operatorBrowser) start() chromedp.CSS { return chromedp.CSS("button[data-start]") }

// at waits until the browser shows path, loaded; under, a path below
// prefix. Both see through the navigation a click starts, while the old
// page may still answer or evaluating fail as it is replaced.
func (o *operatorBrowser) at(path string) chromedp.Action[chromedp.Void] {
	return o.waitPath(path, func(here string) bool { return here == path })
}

func (o *operatorBrowser) under(prefix string) chromedp.Action[chromedp.Void] {
	return o.waitPath(prefix, func(here string) bool { return strings.HasPrefix(here, prefix) })
}

func (o *operatorBrowser) waitPath(want string, ok func(string) bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		var last string
		for {
			here, err := chromedp.Evaluate[string](`location.pathname + " " + document.readyState`)(ctx, target)
			if here, loaded := strings.CutSuffix(here, " complete"); err == nil && loaded && ok(here) {
				return nil
			}
			last = here
			select {
			case <-ctx.Done():
				return fmt.Errorf("at %q, want %s: %w", last, want, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// waitHeading waits until the page's heading says want. An execution's
// page reloads itself while the workflow runs, but only every 15 s while
// it waits for a person: it is reloaded here each second, as the page's
// "Refresh now" would be.
func (o *operatorBrowser) waitHeading(want string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		var last string
		reloaded := time.Now()
		for {
			h, err := chromedp.Evaluate[string](`document.readyState === "complete" && document.querySelector("h1") ? document.querySelector("h1").textContent : ""`)(ctx, target)
			if err == nil && h == want {
				return nil
			}
			if err == nil && h != "" {
				last = h
				if time.Since(reloaded) > time.Second {
					if _, err := chromedp.Reload()(ctx, target); err != nil && ctx.Err() == nil {
						return err
					}
					reloaded = time.Now()
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the heading says %q, want %q: %w", last, want, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
}

// statusSays waits until the ceremony's status line shows a problem
// saying want.
func (o *operatorBrowser) statusSays(want string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		var last string
		for {
			s, err := chromedp.Evaluate[string](`(document.querySelector("[data-status].problem") || {}).textContent || ""`)(ctx, target)
			if err == nil && strings.Contains(s, want) {
				return nil
			}
			last = s
			select {
			case <-ctx.Done():
				return fmt.Errorf("the status says %q, want %q: %w", last, want, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

func (o *operatorBrowser) heading() string { return o.text("h1") }

func (o *operatorBrowser) text(sel string) string {
	o.t.Helper()
	return webpagetest.Get(o.Browser, "read "+sel, chromedp.Text(chromedp.CSS(sel)))
}

func (o *operatorBrowser) count(sel string) int {
	o.t.Helper()
	return webpagetest.Get(o.Browser, "count "+sel, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
}

func (o *operatorBrowser) eval(js string) string {
	o.t.Helper()
	return webpagetest.Get(o.Browser, js, chromedp.Evaluate[string](js))
}

// enrol opens an enrolment link, continues, and creates the passkey: the
// operator lands on the queue, signed in with it. shots names the two
// pages' screenshots, if they are wanted.
func (o *operatorBrowser) enrol(link string, shots ...string) {
	o.t.Helper()
	shoot := func(i int) {
		if i < len(shots) {
			o.Screenshot(shots[i])
		}
	}
	o.Do("open the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action$="/enrol"] button[type=submit]`)))
	shoot(0)
	o.Do("continue", chromedp.Click(chromedp.CSS(`form[action$="/enrol"] button[type=submit]`)), o.at("/console/enrol/passkey"),
		chromedp.WaitVisible(o.start()))
	shoot(1)
	o.Do("create the passkey", chromedp.SetValue(chromedp.ID("passkey-name"), "Virtual authenticator"), chromedp.Click(o.start()),
		o.at("/console/queue"), chromedp.WaitVisible(chromedp.CSS("h1")))
	if loc := o.eval("location.href"); strings.Contains(loc, "token=") {
		o.t.Errorf("the link's token stays in the address bar: %s", loc)
	}
}

// signOut signs out, onto the sign-in page.
func (o *operatorBrowser) signOut() {
	o.t.Helper()
	o.Do("sign out", chromedp.Click(chromedp.CSS(".who button")), o.at("/console/"), chromedp.WaitVisible(o.start()))
	o.signedOut()
}

// signIn signs in with the passkey from the sign-in page, onto the queue.
func (o *operatorBrowser) signIn() {
	o.t.Helper()
	o.Do("sign in", chromedp.Click(o.start()), o.at("/console/queue"), chromedp.WaitVisible(chromedp.CSS("h1")))
}

// signedOut asserts the browser holds no session: no session cookie, and
// the queue sends it to sign in.
func (o *operatorBrowser) signedOut() {
	o.t.Helper()
	o.Do("no session cookie", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		res, err := cdp.Call(ctx, target, network.GetCookies, network.GetCookiesParams{URLs: []string{o.base + "/console/"}})
		if err != nil {
			return err
		}
		for _, c := range res.Cookies {
			if c.Name == webpage.CookieName {
				return fmt.Errorf("a session cookie is set (%d bytes)", len(c.Value))
			}
		}
		return nil
	}))
	o.Do("the queue, signed out", chromedp.Navigate(o.base+"/console/queue"), o.at("/console/"), chromedp.WaitVisible(o.start()))
	if h := o.heading(); h != "Sign in" {
		o.t.Errorf("signed out, the queue shows %q", h)
	}
}
