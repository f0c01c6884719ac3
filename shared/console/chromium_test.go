package console_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage/webpagetest"
)

// TestConsoleInABrowser runs static/passkey.js in Chromium, with a virtual
// authenticator standing in for the person's device: enrolment by link,
// a decision signed and applied, sign-out and sign-in with the passkey.
// Screenshots (desktop and phone) are kept as the test's artifacts: go
// test ./shared/console -run TestConsoleInABrowser -artifacts -outputdir DIR.
func TestConsoleInABrowser(t *testing.T) {
	w := newWorld(t)
	u, err := url.Parse(w.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// A passkey's origin must be on its RP id: the browser goes to
	// localhost, never to the server's IP address.
	base := "http://localhost:" + u.Port()
	w.keys.Config.Origins = append(w.keys.Config.Origins, base)
	_, r := w.entity(t, domain.ReviewInProgress, dana, judged)
	_, blocked := w.entity(t, domain.ReviewInProgress, dana) // its matches unjudged, its risk not assessed

	b := webpagetest.New(t, 1100, 900)
	b.Do("add a virtual authenticator", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := cdp.Call(ctx, target, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, target, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
		return err
	}))
	// at waits for the browser to be at a path, its page loaded: through
	// the navigation a click starts, when evaluating may fail while the
	// page is replaced.
	at := func(path string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			for {
				here, err := chromedp.Evaluate[string](`location.pathname + " " + document.readyState`)(ctx, target)
				here, loaded := strings.CutSuffix(here, " complete")
				if err == nil && loaded && strings.HasPrefix(here, path) && (path != "/console/" || here == path) {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(50 * time.Millisecond):
				}
			}
		})
	}
	heading := func() string { return webpagetest.Get(b, "heading", chromedp.Text(chromedp.CSS("h1"))) }
	start := chromedp.CSS("button[data-start]")

	// Enrolment: the link's page, Continue, then the passkey is created
	// and the person lands on the queue.
	b.Do("open the link", chromedp.Navigate(base+"/console/enrol?"+url.Values{"token": {w.link(t, dana)}}.Encode()),
		chromedp.WaitVisible(chromedp.CSS("form button[type=submit]")))
	b.Screenshot("01-enrol")
	b.Do("continue", chromedp.Click(chromedp.CSS("form button[type=submit]")), at("/console/enrol/passkey"), chromedp.WaitVisible(start))
	b.Screenshot("02-create-passkey")
	b.Do("create the passkey", chromedp.SetValue(chromedp.ID("passkey-name"), "Virtual key"), chromedp.Click(start), at("/console/queue"),
		chromedp.WaitVisible(chromedp.CSS("h1")))
	b.Screenshot("03-queue")

	// An approval the policy blocks: its blockers first, its button
	// disabled, nothing to sign.
	b.Do("open a blocked review", chromedp.Navigate(base+"/console/reviews/"+itoa(blocked.ID)), chromedp.WaitVisible(chromedp.CSS(`form[data-action="approve"]`)))
	if n := webpagetest.Get(b, "blockers", chromedp.Evaluate[int](`document.querySelectorAll("li[data-blocker]").length`)); n != 3 {
		t.Errorf("%d blockers listed, want 3 (two matches, the risk)", n)
	}
	if !webpagetest.Get(b, "approve disabled", chromedp.Evaluate[bool](`document.querySelector('form[data-action="approve"] button[type="submit"]').disabled`)) {
		t.Error("the blocked approval's button is not disabled")
	}
	b.Screenshot("04-review-blocked")

	// A decision, confirmed in words and signed.
	b.Do("open the review", chromedp.Navigate(base+"/console/reviews/"+itoa(r.ID)), chromedp.WaitVisible(chromedp.CSS(`form[data-action="approve"]`)))
	b.Screenshot("04-review")
	b.Do("approve",
		chromedp.SetValue(chromedp.CSS(`form[data-action="approve"] select[name="reason_code"]`), "documents_verified"),
		chromedp.SetValue(chromedp.CSS(`form[data-action="approve"] input[name="note"]`), "Checked in the browser"),
		chromedp.Click(chromedp.CSS(`form[data-action="approve"] button[type="submit"]`)),
		chromedp.WaitVisible(start))
	if h := heading(); h != "Sign your decision" {
		t.Fatalf("after the form: %q", h)
	}
	b.Screenshot("05-confirm")
	b.Do("sign and submit", chromedp.Click(start), at("/console/executions/"), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := heading(); h != "Decision applied" {
		t.Fatalf("after signing: %q", h)
	}
	b.Screenshot("06-applied")
	got, err := w.st.Review(context.Background(), w.account.ID, r.ID)
	if err != nil || domain.Deref(got.Outcome) != domain.OutcomeApproved || !strings.HasPrefix(domain.Deref(got.OutcomeReason), "documents_verified: Checked") {
		t.Errorf("review %+v, %v", got, err)
	}

	// Out, and in again with the passkey.
	b.Do("sign out", chromedp.Click(chromedp.CSS(".who button")), at("/console/"), chromedp.WaitVisible(start))
	b.Screenshot("07-sign-in")
	b.Do("sign in", chromedp.Click(start), at("/console/queue"), chromedp.WaitVisible(chromedp.CSS("h1")))

	// On a phone.
	b.Do("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(base+"/console/reviews/"+itoa(r.ID)),
		chromedp.WaitVisible(chromedp.CSS("h1")))
	b.Screenshot("08-review-phone")
	if wide := webpagetest.Get(b, "page width", chromedp.Evaluate[int]("document.documentElement.scrollWidth")); wide > 400 {
		t.Errorf("the review page is %d px wide on a 390 px phone", wide)
	}
}
