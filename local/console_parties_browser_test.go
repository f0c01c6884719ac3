package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/portal"
)

// TestThePeopleInTheConsole: a merchant created through the API as a
// client creates it — the simulated register lists a partner the real
// screening engine finds (تركي منصور الدوسري), a holding company with its
// own two partners, and a manager — is read in Chromium before the
// verdict: every party with its roles, share, identity and source, the
// ownership tree with the holding's holders under it, the beneficial owners
// with their basis and chains, and the partner's match labelled as the
// party's. The operator judges that match with the page's own form, signed
// and through the workflow, and brings the review to an approval; the
// approval's kept dossier names the people it was decided on. Every page
// screenshotted passes axe-core.
func TestThePeopleInTheConsole(t *testing.T) {
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
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()})
	t.Cleanup(simSrv.Close)
	serveConsole(ctx, t, f, simulatorProviders(simSrv.URL).deps(f.st, quietLogger()), ln)

	e := &env{store: f.st, names: f.names, log: quietLogger()}
	key := mustKey(t, e, f.acct, domain.PermEntityCreate, domain.PermEntityView)
	body, _ := json.Marshal(map[string]any{"entity": map[string]any{"registration_number": "7000000048", "country_code": "SA"}})
	r := send(t, "POST", base+"/api/v1/entities", key, body, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	entityID := int64(r.json(t)["id"].(float64))

	opRec, err := f.st.CreateOperator(ctx, f.acct, "Parties Reader", domain.OperatorPermissions(), domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	l, err := (&portal.Service{Store: f.st, Clock: domain.SystemClock}).Mint(ctx,
		domain.Actor{AccountID: f.acct, Admin: "browser test", ActionID: "parties-link"}, opRec.ID)
	if err != nil {
		t.Fatal(err)
	}
	link, err := portal.LinkURL(base, l.Token)
	if err != nil {
		t.Fatal(err)
	}
	op := newOperatorBrowser(t, base, 1100, 900, true)
	op.enrol(link)

	d, err := f.st.EntityDetail(ctx, f.acct, entityID)
	if err != nil {
		t.Fatal(err)
	}
	reviewPath := "/console/reviews/" + itoa(int(d.Reviews[0].ID))
	op.Do("open the review", chromedp.Navigate(base+reviewPath), chromedp.WaitVisible(chromedp.CSS("table.parties")))
	table := op.text("table.parties")
	for _, want := range []string{"تركي منصور الدوسري", "شركة الأفق القابضة", "held through 7900000048", "the register", "unified number 7900000048"} {
		if !strings.Contains(table, want) {
			t.Errorf("the parties table lacks %q:\n%s", want, table)
		}
	}
	if n := op.count(".ownership-tree li li"); n != 2 {
		t.Errorf("the ownership tree has %d holders under a company holder, want the holding's 2:\n%s", n, op.text(".ownership-tree"))
	}
	if tree := op.text(".ownership-tree"); !strings.Contains(tree, "%") {
		t.Errorf("the ownership tree shows no shares: %s", tree)
	}
	if owners := op.text("ul.owners"); !strings.Contains(owners, "ownership") {
		t.Errorf("the beneficial owners: %q", owners)
	}
	// Arabic names are set right to left where they stand.
	if dir := op.eval(`[...document.querySelectorAll("table.parties th[scope=row] span[dir]")].map(s => getComputedStyle(s).direction).join(",")`); !strings.Contains(dir, "rtl") {
		t.Errorf("the parties' names' directions: %s", dir)
	}
	match := `section.match:has(input[name="match_id"][value="evs-pe-al-dosari"])`
	if m := op.text(match); !strings.Contains(m, "تركي منصور الدوسري") {
		t.Errorf("the partner's match does not say whose it is: %q", m)
	}
	op.Screenshot("parties-review")

	// The merchant declares the partner with 700 shares; the register
	// says 600: a discrepancy, shown and in the approval's way, until the
	// operator corrects the declaration.
	partner := partyNamed(t, f, entityID, "تركي منصور الدوسري", domain.PartyFromRegister)
	recordPartyInConsole(op, reviewPath, map[string]string{"party_op": "add", "party_kind": "person", "party_name": partner.Name,
		"party_roles": "owner, manager", "party_shares": "700", "party_identity_type": partner.Identity.Type,
		"party_identity_number": partner.Identity.Number, "party_nationality": "SA", "party_source": "declared"})
	op.Do("the review after the declaration", chromedp.Navigate(base+reviewPath), chromedp.WaitVisible(chromedp.CSS("table.parties")))
	if table := op.text("table.parties"); !strings.Contains(table, "Disagrees with the register") || !strings.Contains(table, "shares: declared 700, the register 600") {
		t.Errorf("the declared party's discrepancy is not shown:\n%s", table)
	}
	// The declaration does not count in the shares beside the register's.
	if table := op.text("table.parties"); !strings.Contains(table, "60.00 % (600 shares)") || !strings.Contains(table, "700 shares declared, not counted") {
		t.Errorf("the shares after the declaration:\n%s", table)
	}
	if before := op.text("main"); !strings.Contains(before, "disagrees with the register") {
		t.Errorf("Before you decide does not list the discrepancy")
	}
	op.Screenshot("parties-discrepancy")
	declared := partyNamed(t, f, entityID, partner.Name, domain.PartyDeclared)
	recordPartyInConsole(op, reviewPath, map[string]string{"party_op": "correct", "party_id": itoa(int(declared.ID)), "party_shares": "600"})
	if d, err := f.st.Entity(ctx, f.acct, entityID); err != nil || len(checks.Discrepancies(d.Parties)) != 0 {
		t.Errorf("after the correction: %v, %v", checks.Discrepancies(d.Parties), err)
	}

	judged, rerun := 0, 0
	walkDemoReview(ctx, t, op, f, f.acct, 0, &judged, &rerun)
	if judged == 0 {
		t.Errorf("the walk judged no match: the partner's match was not in the approval's way")
	}
	trail, err := f.st.AuditTrail(ctx, f.acct, entityID)
	if err != nil {
		t.Fatal(err)
	}
	var adjudicated, approved *domain.AuditRecord
	for i, a := range trail {
		switch a.Action {
		case domain.ActionAdjudicateMatch:
			adjudicated = &trail[i]
		case domain.ActionApprove:
			approved = &trail[i]
		}
	}
	if adjudicated == nil || !strings.Contains(fmt.Sprint(adjudicated.Reason, adjudicated.Before, adjudicated.After), "evs-pe-al-dosari") {
		t.Errorf("the partner's adjudication in the trail: %+v", adjudicated)
	}
	if approved != nil { // the trail's index leaves the kept dossier out
		rec, err := f.st.AuditRecord(ctx, f.acct, approved.ActionID)
		if err != nil {
			t.Fatal(err)
		}
		approved = &rec
	}
	if approved == nil || !strings.Contains(approved.DossierMarkdown, "## People behind the business") ||
		!strings.Contains(approved.DossierMarkdown, "تركي منصور الدوسري") {
		t.Errorf("the approval's kept dossier does not name the people it was decided on: %+v", approved)
	}
}

// partyNamed is the entity's current party of that name and source.
func partyNamed(t *testing.T, f *flowFixture, entityID int64, name string, source domain.PartySource) domain.Party {
	t.Helper()
	e, err := f.st.Entity(context.Background(), f.acct, entityID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range e.Parties {
		if p.Name == name && p.Source == source && p.Current {
			return p
		}
	}
	t.Fatalf("no current %s party %s among %+v", source, name, e.Parties)
	return domain.Party{}
}

// recordPartyInConsole fills the review page's Record a party form with
// fields, continues to sign and signs with the passkey.
func recordPartyInConsole(op *operatorBrowser, reviewPath string, fields map[string]string) {
	op.t.Helper()
	form := `form[data-action="record_party"]`
	fill := []chromedp.Action[chromedp.Void]{chromedp.Navigate(op.base + reviewPath), chromedp.WaitVisible(chromedp.CSS(form))}
	for name, v := range fields {
		fill = append(fill, chromedp.SetValue(chromedp.CSS(fmt.Sprintf(`%s [name=%q]`, form, name)), v))
	}
	fill = append(fill, chromedp.SetValue(chromedp.CSS(form+` select[name="reason_code"]`), "merchant_declared"),
		chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)), op.at(reviewPath+"/confirm"), chromedp.WaitVisible(op.start()))
	op.Do("record a party: continue to sign", fill...)
	op.Do("record a party: sign and submit", chromedp.Click(op.start()), op.under("/console/executions/"), op.waitHeading("Decision applied"))
}
