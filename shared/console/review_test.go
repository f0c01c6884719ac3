package console_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

func TestReviewPage(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e, r := w.entity(t, domain.ReviewInProgress, dana)
	_, open := w.entity(t, domain.ReviewOpen, "")
	d, err := w.st.EntityDetail(ctx, w.account.ID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	tag := dossier.ETag(d.Entity, dossier.FormMarkdown)
	path := "/console/reviews/" + itoa(r.ID)

	for _, tc := range []struct {
		name    string
		who     string
		path    string
		actions []string // the decision forms offered, by data-action
	}{
		{name: "a decider with every permission, in progress", who: dana, path: path, actions: []string{
			"assign", "escalate", "escalate_to_aml", "approve", "reject", "cancel", "queue_checks", "assess_risk", "update_profile",
			"end_relationship", "adjudicate_match", "adjudicate_match", "record_party"}},
		{name: "a decider, open", who: sami, path: "/console/reviews/" + itoa(open.ID), actions: []string{
			"start", "escalate", "escalate_to_aml", "cancel", "queue_checks", "end_relationship", "adjudicate_match", "adjudicate_match", "record_party"}},
		{name: "a viewer", who: vera, path: path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.signedIn(t, tc.who).get(tc.path)
			if p.status != http.StatusOK {
				t.Fatalf("status %d\n%s", p.status, p.body)
			}
			var got []string
			ids := map[string]bool{}
			for _, f := range formsOf(p.body) {
				if f.attrs["class"] != "decision-form" {
					continue
				}
				got = append(got, f.attrs["data-action"])
				if f.hidden.Get("seen") == "" || f.hidden.Get("csrf") == "" || ids[f.hidden.Get("action_id")] {
					t.Errorf("%s form: seen %q, csrf set %v, action id %q repeated %v", f.attrs["data-action"], f.hidden.Get("seen"),
						f.hidden.Get("csrf") != "", f.hidden.Get("action_id"), ids[f.hidden.Get("action_id")])
				}
				ids[f.hidden.Get("action_id")] = true
				if strings.Contains(f.body, "checked") {
					t.Errorf("%s form preselects a choice", f.attrs["data-action"])
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.actions))
			if !slices.Equal(got, want) {
				t.Errorf("forms %v, want %v", got, want)
			}
			if len(tc.actions) == 0 && !strings.Contains(p.body, "deciding on it takes a permission you do not hold") {
				t.Error("a viewer is not told why no form shows")
			}
		})
	}

	p := w.signedIn(t, dana).get(path)
	// One row per match of the latest completed screening, none of the
	// older one's.
	if got := strings.Count(p.body, `<section class="match"`); got != 2 {
		t.Errorf("%d match rows, want 2", got)
	}
	for _, want := range []string{"Decided Trading LLC", "0.91", "us_ofac_sdn, un_sc_sanctions", "NK-second", "eu_fsf",
		"5e1d0c0ffee5e1d0c0ffee5e1d0c0ffee5e1d0c0ffee5e1d0c0ffee5e1d0c0ff"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if strings.Contains(p.body, `<span dir="auto">Old Match</span>`) || strings.Contains(p.body, `value="NK-old"`) {
		t.Error("the older screening's match is in the table")
	}
	// The dossier as the API's .md view renders it, and its ETag in
	// every form.
	md := dossier.EntityMarkdown(d, country.ISO())
	if !strings.Contains(p.body, html.EscapeString(md)) {
		t.Error("the page does not show the dossier's Markdown")
	}
	for _, f := range formsOf(p.body) {
		if f.attrs["class"] == "decision-form" && f.hidden.Get("seen") != tag {
			t.Errorf("%s form seen %q, want %q", f.attrs["data-action"], f.hidden.Get("seen"), tag)
		}
	}

	// A viewer's forged decision is refused on the server.
	viewer := w.signedIn(t, vera)
	f := formWith(t, p.body, "data-action", "approve")
	forged := url.Values{"csrf": {csrfOf(t, viewer.get(path).body)}, "reason_code": {"documents_verified"}}
	for k, vs := range f.hidden {
		if k != "csrf" {
			forged[k] = vs
		}
	}
	if got := viewer.post(f.attrs["action"], forged); got.status != http.StatusForbidden {
		t.Errorf("a viewer's decision: %d", got.status)
	}
}
