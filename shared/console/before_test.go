package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// The review page says what stands in a decision's way, and which
// decisions wait for a second operator, before its first form; an
// approval the policy blocks is shown disabled and never offered to sign.
func TestBeforeYouDecide(t *testing.T) {
	w := newWorld(t)
	_, open := w.entity(t, domain.ReviewInProgress, dana)          // two matches unjudged, risk not assessed
	_, clear := w.entity(t, domain.ReviewInProgress, dana, judged) // nothing in the way
	dan := w.signedIn(t, dana)

	confirm := func(t *testing.T, page, action string) page {
		t.Helper()
		f := formWith(t, page, "data-action", action)
		v := url.Values{"reason_code": {"documents_verified"}}
		if action == "escalate_to_aml" {
			v.Set("reason_code", "suspicious_activity")
		}
		for k, vs := range f.hidden {
			v[k] = vs
		}
		return dan.post(f.attrs["action"], v)
	}

	tests := []struct {
		name        string
		review      domain.Review
		blockers    []string // data-blocker kinds, in order
		approveOpen bool
	}{
		{"open matches and no risk assessment", open, []string{"open_match", "open_match", "risk_not_assessed"}, false},
		{"every match judged, risk assessed", clear, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := dan.get("/console/reviews/" + itoa(tc.review.ID))
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			summary, form := strings.Index(p.body, "Before you decide"), strings.Index(p.body, `class="decision-form"`)
			if summary < 0 || form < 0 || summary > form {
				t.Errorf("the summary at %d, the first form at %d: the summary must come first", summary, form)
			}
			// Why first, then the evidence, then the forms.
			at := -1
			for _, h := range []string{"Before you decide", "Screening matches", "Checks, newest first", "Dossier</h2>", "Audit trail, newest first", `id="decide"`} {
				i := strings.Index(p.body, h)
				if i <= at {
					t.Errorf("%q is at %d, not after what comes before it (%d)", h, i, at)
				}
				at = i
			}
			var kinds []string
			for _, part := range strings.Split(p.body, `data-blocker="`)[1:] {
				kinds = append(kinds, part[:strings.Index(part, `"`)])
			}
			if strings.Join(kinds, " ") != strings.Join(tc.blockers, " ") {
				t.Errorf("blockers %v, want %v", kinds, tc.blockers)
			}
			if !strings.Contains(p.body, "Four eyes: Escalate to AML") {
				t.Error("the summary does not say that escalating to AML needs a second operator")
			}
			approve := formWith(t, p.body, "data-action", "approve")
			if disabled := strings.Contains(approve.body, "disabled"); disabled == tc.approveOpen {
				t.Errorf("the approve form disabled: %v", disabled)
			}
			signing := confirm(t, p.body, "approve")
			switch {
			case tc.approveOpen && (signing.status != http.StatusOK || !strings.Contains(signing.body, "Sign and submit")):
				t.Errorf("an allowed approval is not offered to sign: %d", signing.status)
			case !tc.approveOpen && (signing.status != http.StatusUnprocessableEntity || !strings.Contains(signing.body, "match NK-first of screening check") ||
				strings.Contains(signing.body, "Sign and submit")):
				t.Errorf("a blocked approval: %d\n%s", signing.status, signing.body)
			}
			if strings.Contains(signing.body, "data-four-eyes") {
				t.Error("an approval the account does not hold to four eyes says it does")
			}
			if four := confirm(t, p.body, "escalate_to_aml"); four.status != http.StatusOK || !strings.Contains(four.body, "data-four-eyes") {
				t.Errorf("escalating to AML (four eyes): %d, the signing page does not say a second operator is needed", four.status)
			}
		})
	}
}
