package console_test

import (
	"context"
	"net/url"
	"slices"
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
	b.Do("enable WebAuthn's virtual authenticators", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, webauthn.Enable, webauthn.EnableParams{})
		return err
	}))
	// device adds a virtual authenticator, a device of the person's own:
	// CTAP 2.1, internal, discoverable credentials, verifying its user.
	device := func() webauthn.AuthenticatorID {
		var id webauthn.AuthenticatorID
		b.Do("add a virtual authenticator", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			res, err := cdp.Call(ctx, target, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
				Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
				HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
			}})
			id = res.AuthenticatorID
			return err
		}))
		return id
	}
	laptop := device()
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

	// Another passkey: the session alone (its cookie and its page's CSRF
	// token, as any script of the page holds them) gets no registration.
	b.Do("desktop", chromedp.EmulateViewport(1100, 900), chromedp.Navigate(base+"/console/passkeys"), chromedp.WaitVisible(start))
	b.Screenshot("09-passkeys")
	alone := webpagetest.Get(b, "registration options without a step-up", chromedp.Evaluate[int](`(async () => {
		const el = document.querySelector("[data-ceremony]");
		const res = await fetch(el.dataset.options, {method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": el.dataset.csrf}, body: "{}"});
		return res.status;
	})()`, chromedp.EvalAwaitPromise))
	if alone != 403 {
		t.Errorf("registration options without a step-up: %d, want 403", alone)
	}
	// Confirmed with the laptop's passkey, then created on a second device
	// (the laptop's authenticator, holding a passkey of the operator's
	// already, would refuse the excluded credential).
	b.Do("confirm with the passkey", chromedp.SetValue(chromedp.ID("passkey-name"), "Second key"), chromedp.Click(start),
		chromedp.WaitVisible(chromedp.CSS("button[data-create]")))
	b.Screenshot("10-passkey-confirmed")
	b.Do("put the laptop away", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, webauthn.RemoveVirtualAuthenticator, webauthn.RemoveVirtualAuthenticatorParams{AuthenticatorID: laptop})
		return err
	}))
	device() // Chrome takes one internal authenticator at a time
	b.Do("create the new passkey", chromedp.Click(chromedp.CSS("button[data-create]")),
		chromedp.WaitVisible(chromedp.CSS(`tbody tr:nth-of-type(2) td[data-label="Name"]`)))
	b.Screenshot("11-passkeys-two")
	keys, err := w.st.Passkeys(context.Background(), w.account.ID, w.ops[dana].ID)
	if err != nil || len(keys) != 2 || !slices.ContainsFunc(keys, func(p domain.Passkey) bool { return p.Name == "Second key" }) {
		t.Errorf("passkeys after adding one in the browser: %+v, %v", keys, err)
	}
	// The new one, on the second device, signs in.
	b.Do("sign out and in with the new passkey", chromedp.Click(chromedp.CSS(".who button")), at("/console/"), chromedp.WaitVisible(start),
		chromedp.Click(start), at("/console/queue"))
}
