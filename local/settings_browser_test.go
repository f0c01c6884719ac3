package main

// The settings area in a real browser (Debian's Chromium through chromedp):
// the gateway of make local over DynamoDB Local, the local event flow over
// ElasticMQ, and a subscriber on loopback. Screenshots of every page are
// kept as the test's artifacts: go test ./local -run TestSettingsInABrowser
// -artifacts -outputdir DIR.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage/webpagetest"
)

// TestSettingsInABrowser: an operator enrols a passkey on the console by
// the administrator's link, and that sign-in opens the settings area; adds an
// endpoint pointing at a local receiver (its secret shown once), a decision
// is delivered and shows in the deliveries view; the receiver fails and the
// failure shows with its status and body; a redelivery succeeds; a test
// event arrives; a form posted without its CSRF token is refused; a reused
// link fails; signing out here ends the console's session; a view-only
// operator sees no forms.
func TestSettingsInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test (-short)")
	}
	ln, origin := passkeyListener(t)
	f := newFlowFixture(t)
	d := providers{}.deps(f.st, quietLogger())
	d.Deliveries = &delivery.SQSQueue{Client: f.flow.SQS, URL: f.flow.QueueURLs[deploy.QueueDeliveries]}
	d.Allow = f.eps.Allow
	gw, err := buildGateway(d)
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, ln, gw)
	admin := domain.Actor{AccountID: f.acct, Admin: "browser test", ActionID: "browser-mint-1"}
	p := &portal.Service{Store: f.st, Clock: domain.SystemClock}
	mint := func(operatorID int64, action string) string {
		t.Helper()
		admin.ActionID = action
		l, err := p.Mint(f.ctx, admin, operatorID)
		if err != nil {
			t.Fatal(err)
		}
		u, err := portal.LinkURL(origin, l.Token)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	rcv := newTestReceiver(t, "")
	review := f.review()
	base := origin + "/settings"

	// The operator enrols a passkey on the console by the administrator's
	// link; that sign-in opens the settings area too.
	o := newOperatorBrowser(t, origin, 1100, 800, true)
	b := o.Browser
	text := func(sel string) string { return webpagetest.Get(b, "read "+sel, chromedp.Text(chromedp.CSS(sel))) }
	link := mint(f.op.ID, "browser-mint-1")
	o.enrol(link)
	b.Do("settings", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := text("h1"); h != "Webhook endpoints" && !strings.Contains(h, "ndpoints") {
		t.Fatalf("the settings area after a passkey sign-in: %q", h)
	}
	b.Screenshot("01-endpoints-empty")

	// Add an endpoint: the secret is shown once.
	b.Do("add endpoint",
		chromedp.Navigate(base+"/endpoints/new"), chromedp.WaitVisible(chromedp.ID("url")),
		chromedp.SetValue(chromedp.ID("url"), rcv.url()),
		chromedp.Click(chromedp.CSS(`input[value="entity_review.assigned"]`)),
		chromedp.Click(chromedp.CSS(`input[value="entity_review.escalated"]`)),
		chromedp.SetValue(chromedp.ID("description"), "Browser test receiver"),
	)
	b.Screenshot("02-endpoint-form")
	b.Do("submit", chromedp.Click(chromedp.CSS("button.primary")), chromedp.WaitVisible(chromedp.ID("secret")))
	secret := text("#secret")
	if !strings.HasPrefix(secret, "evs_whsk_") {
		t.Fatalf("secret shown: %q", secret)
	}
	rcv.setSecret(secret)
	b.Screenshot("03-secret-once")
	eps, err := f.st.Endpoints(f.ctx, f.acct, domain.ReadStrong)
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints: %v %v", eps, err)
	}
	ep := eps[0]
	b.Do("endpoint page", chromedp.Navigate(fmt.Sprintf("%s/endpoints/%d", base, ep.ID)), chromedp.WaitVisible(chromedp.CSS("h1")))
	if html := webpagetest.Get(b, "page", chromedp.OuterHTML(chromedp.CSS("main"))); strings.Contains(html, secret) {
		t.Error("the secret is shown again on the endpoint's page")
	}

	// A decision is delivered and shows.
	f.decide(domain.ActionAssign, review.ID, func(q *decisions.Request) { q.AssigneeID = f.op.ID })
	waitUntil(t, "the assignment reaches the receiver", func() bool { return slices.Contains(rcv.kinds(), "entity_review.assigned") })
	waitForDeliveries(t, f, 1, domain.DeliveryDelivered)
	b.Do("deliveries", chromedp.Navigate(base+"/deliveries"), chromedp.WaitVisible(chromedp.CSS("table")))
	if list := text("table"); !strings.Contains(list, "delivered") || !strings.Contains(list, "entity_review.assigned") {
		t.Errorf("deliveries view: %q", list)
	}
	b.Screenshot("04-deliveries")

	// The receiver fails: the failure shows with its status and body,
	// escaped.
	rcv.answer(http.StatusBadGateway, `<b>receiver down</b> for maintenance`)
	f.decide(domain.ActionEscalate, review.ID, nil)
	failed := waitForDeliveries(t, f, 2, domain.DeliveryFailed)
	b.Do("failed delivery", chromedp.Navigate(base+"/deliveries/"+failed.ID), chromedp.WaitVisible(chromedp.ID("reason")))
	page := text("main")
	for _, want := range []string{"502", "<b>receiver down</b> for maintenance", "failed", "entity_review.escalated"} {
		if !strings.Contains(page, want) {
			t.Errorf("the failed delivery's page lacks %q: %q", want, page)
		}
	}
	b.Screenshot("05-delivery-failed")

	// Redeliver once the receiver is back.
	rcv.answer(0, "")
	b.Do("redeliver", chromedp.SetValue(chromedp.ID("reason"), "receiver back after maintenance"), chromedp.Click(chromedp.CSS("button.primary")),
		chromedp.WaitVisible(chromedp.CSS("h1")))
	waitUntil(t, "the redelivery reaches the receiver", func() bool { return slices.Contains(rcv.kinds(), "entity_review.escalated") })
	again := waitForDeliveries(t, f, 3, domain.DeliveryDelivered)
	if again.OriginalID != failed.OriginalID || again.Attempt != 2 {
		t.Errorf("redelivery %+v is not attempt 2 of %s", again, failed.OriginalID)
	}
	b.Do("redelivered", chromedp.Navigate(base+"/deliveries/"+again.ID), chromedp.WaitVisible(chromedp.CSS("h1")))
	if page := text("main"); !strings.Contains(page, "delivered") || !strings.Contains(page, failed.ID) {
		t.Errorf("the redelivery's page: %q", page)
	}
	b.Screenshot("06-delivery-redelivered")

	// A test event, from the endpoint's page.
	b.Do("send test event", chromedp.Navigate(fmt.Sprintf("%s/endpoints/%d", base, ep.ID)),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/test"] button`)),
		chromedp.Click(chromedp.CSS(`form[action$="/test"] button`)),
		// The old page's h1 stays visible until the POST's redirect lands:
		// wait for what only the test event's delivery page has.
		chromedp.WaitVisible(`//h2[normalize-space()="Request"]`))
	waitUntil(t, "the ping reaches the receiver", func() bool { return slices.Contains(rcv.kinds(), string(domain.EventPing)) })
	b.Screenshot("07-test-event")

	// A form without its CSRF token is refused, and changes nothing.
	b.Do("disable without a token", chromedp.Navigate(fmt.Sprintf("%s/endpoints/%d", base, ep.ID)),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/disable"] button`)))
	webpagetest.Get(b, "drop the token", chromedp.Evaluate[bool](`(() => { document.querySelector('form[action$="/disable"] input[name=csrf]').remove(); return true })()`))
	b.Do("post it", chromedp.Click(chromedp.CSS(`form[action$="/disable"] button`)),
		chromedp.WaitNotPresent(chromedp.CSS(`form[action$="/disable"]`)), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := text("h1"); h != "Form refused" {
		t.Errorf("a form without its token: %q, %q", h, text("main"))
	}
	b.Screenshot("08-csrf-refused")
	if now, err := f.st.Endpoint(f.ctx, f.acct, ep.ID); err != nil || !now.Active {
		t.Errorf("the endpoint after a refused form: %+v %v", now, err)
	}

	// Countries, read-only without account.settings.manage.
	b.Do("countries", chromedp.Navigate(base+"/countries"), chromedp.WaitVisible(chromedp.CSS("h1")))
	if page := text("main"); !strings.Contains(page, "SA") {
		t.Errorf("countries: %q", page)
	}
	b.Screenshot("09-countries")

	// The link again: it shows Continue (a GET uses no link), which says
	// the link was used.
	b.Do("reuse the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action$="/enrol"] button[type=submit]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/enrol"] button[type=submit]`)), chromedp.WaitNotPresent(chromedp.CSS(`form[action$="/enrol"]`)),
		chromedp.WaitVisible(chromedp.CSS("h1")))
	if page := strings.ToLower(text("main")); !strings.Contains(page, "already") {
		t.Errorf("a reused link: %q", page)
	}
	b.Screenshot("10-link-used")

	// Signed out of the settings area, the console's session ends too.
	b.Do("sign out", chromedp.Navigate(base+"/countries"), chromedp.WaitVisible(chromedp.CSS(".who button, form[action$=\"/signout\"] button")),
		chromedp.Click(chromedp.CSS(`form[action$="/signout"] button`)), o.at("/settings/signed-out"))
	o.signedOut()

	// A view-only operator, in a browser of their own, on a phone: no forms
	// but signing out.
	viewer, err := f.st.CreateOperator(f.ctx, f.acct, "Omar Viewer", []string{domain.PermWebhookDeliveryView}, domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	viewerBrowser := newOperatorBrowser(t, origin, 390, 844, true)
	phone := viewerBrowser.Browser
	viewerBrowser.enrol(mint(viewer.ID, "browser-mint-2"))
	for _, page := range []string{"/endpoints", fmt.Sprintf("/endpoints/%d", ep.ID), "/deliveries", "/deliveries/" + failed.ID, "/countries"} {
		phone.Do("viewer "+page, chromedp.Navigate(base+page), chromedp.WaitVisible(chromedp.CSS("h1")))
		phone.Accessible("viewer " + page)
		actions := webpagetest.Get(phone, "forms", chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('form[method=post]')].map(f => f.getAttribute('action')).filter(a => !a.endsWith('/signout'))`))
		if len(actions) > 0 {
			t.Errorf("a view-only operator sees forms on %s: %v", page, actions)
		}
	}
	phone.Do("viewer endpoints", chromedp.Navigate(base+"/endpoints"), chromedp.WaitVisible(chromedp.CSS("h1")))
	phone.Screenshot("11-view-only-phone")
}

// waitForDeliveries waits until the account has n attempts and the newest
// has the status, and returns it.
func waitForDeliveries(t *testing.T, f *flowFixture, n int, status domain.DeliveryStatus) domain.Delivery {
	t.Helper()
	var newest domain.Delivery
	waitUntil(t, fmt.Sprintf("%d deliveries, the newest %s", n, status), func() bool {
		ds, err := f.st.Deliveries(f.ctx, f.acct, domain.DeliveryFilter{Limit: 100})
		if err != nil || len(ds) != n {
			return false
		}
		newest = ds[0]
		return newest.Status == status
	})
	return newest
}
