package main

// The console with the keyboard alone, and a name in Arabic script: a
// subtest of TestConsoleEndToEndInABrowser (its gateway, its decision
// workflow), on a review of its own.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/shared/domain"
)

// arabicLegalName is the demo's Saudi entity whose legal name is in
// Arabic script, as the register gives it.
func arabicLegalName(t *testing.T) string {
	t.Helper()
	for _, d := range seed.Demo(domain.Now(), 120) {
		if strings.ContainsFunc(d.Entity.LegalName, func(r rune) bool { return unicode.Is(unicode.Arabic, r) }) {
			if d.Entity.CountryCode != "SA" {
				t.Fatalf("the demo's Arabic name %q is in %s", d.Entity.LegalName, d.Entity.CountryCode)
			}
			return d.Entity.LegalName
		}
	}
	t.Fatal("the demo seeds no entity with an Arabic legal name")
	return ""
}

// consoleByKeyboard: an operator, with the keyboard alone (Tab, arrows,
// typing, Enter; no click, no value set by script), enrols by link,
// creates a passkey, takes the next review, which is keyed's, adjudicates
// both its matches, assesses its risk and approves it, each decision
// signed with the passkey (Chrome's virtual authenticator, as in the rest
// of the walk). On the way, the entity's Arabic name is laid out right to
// left (its computed direction) in the queue, the review and the
// confirmation, inside their left-to-right pages.
func consoleByKeyboard(t *testing.T, base, link string, keyed domain.Review, name string) {
	k := newOperatorBrowser(t, base, 1100, 900, true)
	k.Do("open the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action$="/enrol"] button[type=submit]`)))
	k.Do("continue", k.tabTo(`form[action$="/enrol"] button[type=submit]`), k.press(kb.Enter), k.at("/console/enrol/passkey"),
		chromedp.WaitVisible(k.start()))
	k.Do("create the passkey", k.tabTo("#passkey-name"), k.press("Keyboard key"), k.tabTo("button[data-start]"), k.press(kb.Enter),
		k.at("/console/queue"), chromedp.WaitVisible(chromedp.CSS("table")))
	k.rtl("the queue", name)
	k.Screenshot("17-keyboard-queue")

	reviewPath := "/console/reviews/" + itoa(int(keyed.ID))
	k.Do("take the next one", k.tabTo(`form[action$="/queue/next"] button`), k.press(kb.Enter), k.at(reviewPath),
		chromedp.WaitVisible(chromedp.CSS("pre.dossier")))
	k.rtl("the review", name)
	k.Screenshot("18-keyboard-review")

	for _, step := range []struct {
		what, form string
		choose     func(form string) chromedp.Action[chromedp.Void]
		code, note string
	}{
		{what: "adjudicate NK-first", form: `section.match form:has(input[name="match_id"][value="NK-first"])`, choose: k.falsePositive,
			code: "name_only", note: "Different registration number"},
		{what: "adjudicate NK-second", form: `section.match form:has(input[name="match_id"][value="NK-second"])`, choose: k.falsePositive,
			code: "name_only", note: "Different address"},
		{what: "assess the risk", form: `form[data-action="assess_risk"]`,
			choose: func(form string) chromedp.Action[chromedp.Void] {
				return k.choose(form+` select[name="risk_level"]`, "low")
			},
			code: "jurisdiction", note: "Domestic counterparties only"},
		{what: "approve", form: `form[data-action="approve"]`, code: "documents_verified", note: "Checked with the keyboard"},
	} {
		k.Do(step.what+": open the review", chromedp.Navigate(base+reviewPath), chromedp.WaitVisible(chromedp.CSS(step.form)))
		steps := []chromedp.Action[chromedp.Void]{}
		if step.choose != nil {
			steps = append(steps, step.choose(step.form))
		}
		steps = append(steps, k.choose(step.form+` select[name="reason_code"]`, step.code),
			k.tabTo(step.form+` input[name="note"]`), k.press(step.note),
			k.tabTo(step.form+` button[type="submit"]`), k.press(kb.Enter),
			k.at(reviewPath+"/confirm"), chromedp.WaitVisible(k.start()))
		k.Do(step.what+": continue to sign", steps...)
		if h := k.heading(); h != "Sign your decision" {
			t.Fatalf("%s: after the form, %q: %q", step.what, h, k.text("main"))
		}
		k.rtl(step.what+": the confirmation", name)
		k.Do(step.what+": sign", k.tabTo("button[data-start]"), k.press(kb.Enter), k.under("/console/executions/"),
			k.waitHeading("Decision applied"))
	}
	if status := k.text("p.notice"); !strings.Contains(status, fmt.Sprintf("Review #%d is now completed (approved)", keyed.ID)) {
		t.Errorf("the approval by keyboard says %q", status)
	}
	k.Screenshot("19-keyboard-approved")
}

// press types keys into what has the focus: text, or kb's keys (kb.Tab,
// kb.Enter, kb.ArrowDown…).
func (o *operatorBrowser) press(keys string) chromedp.Action[chromedp.Void] {
	return chromedp.KeyEvent(keys)
}

// tabTo presses Tab until sel has the focus: it is reached with the
// keyboard, in the page's order. It fails after 250 presses.
func (o *operatorBrowser) tabTo(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		var on string
		for range 250 {
			at, err := chromedp.Evaluate[bool](fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, sel))(ctx, target)
			if err != nil || at {
				return err
			}
			if _, err := chromedp.KeyEvent(kb.Tab)(ctx, target); err != nil {
				return err
			}
		}
		on, _ = chromedp.Evaluate[string](`document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : ""`)(ctx, target)
		return fmt.Errorf("250 presses of Tab never reached %s (the focus is on %s)", sel, on)
	})
}

// choose tabs to a select and moves its choice with the arrow keys until
// it is value.
func (o *operatorBrowser) choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := o.tabTo(sel)(ctx, target); err != nil {
			return err
		}
		for range 40 {
			got, err := chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).value`, sel))(ctx, target)
			if err != nil || got == value {
				return err
			}
			if _, err := chromedp.KeyEvent(kb.ArrowDown)(ctx, target); err != nil {
				return err
			}
		}
		return fmt.Errorf("the arrow keys never chose %q in %s", value, sel)
	})
}

// falsePositive tabs into a match form's verdict (the first radio) and
// moves to "False positive" with the arrow key.
func (o *operatorBrowser) falsePositive(form string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := o.tabTo(form+` input[name="verdict"]`)(ctx, target); err != nil {
			return err
		}
		if _, err := chromedp.KeyEvent(kb.ArrowDown)(ctx, target); err != nil {
			return err
		}
		if ok, err := chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).checked`, form+` input[value="false_positive"]`))(ctx, target); err != nil || !ok {
			return fmt.Errorf("the arrow key did not choose False positive (%v)", err)
		}
		return nil
	})
}

// rtl fails the test unless the page shows name in an element laid out
// right to left (dir="auto" on a name in Arabic script), the page itself
// left to right.
func (o *operatorBrowser) rtl(where, name string) {
	o.t.Helper()
	dirs := o.eval(fmt.Sprintf(`(() => {
  const el = [...document.querySelectorAll("[dir=auto]")].find(e => e.textContent.trim() === %q);
  return getComputedStyle(document.body).direction + " " + (el ? getComputedStyle(el).direction : "none");
})()`, name))
	if dirs != "ltr rtl" {
		o.t.Errorf("%s: the page and the element showing %q are %s, want ltr rtl", where, name, dirs)
	}
}
