package settings_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webhooks"
)

var secretPattern = regexp.MustCompile(regexp.QuoteMeta(subscriptions.SecretPrefix) + `[0-9a-f]{64}`)

// TestEndpointCreate: the secret is in the POST's own answer, once, never
// stored by the browser, never again on any page, never logged; the
// change is audited naming the operator and the request.
func TestEndpointCreate(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	form := url.Values{"url": {"https://hooks.example.com/evs"}, "events": {string(domain.EventApproved), string(domain.EventEscalated)},
		"description": {"  Payments  "}, "action_id": {w.actionID()}}
	a := w.do(withRequestID(w.formRequest(roleAll, "/settings/endpoints", form), "req-create-1"))
	if a.StatusCode != http.StatusOK || a.Header.Get("Cache-Control") != "no-store" || a.Header.Get("Location") != "" {
		t.Fatalf("status %d, Cache-Control %q, Location %q", a.StatusCode, a.Header.Get("Cache-Control"), a.Header.Get("Location"))
	}
	shown := secretPattern.FindAllString(a.body, -1)
	if len(shown) != 1 {
		t.Fatalf("secret shown %d times", len(shown))
	}
	eps, err := w.st.Endpoints(ctx, w.account.ID, domain.ReadStrong)
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints %v %v", eps, err)
	}
	ep := eps[0]
	if ep.Secret != shown[0] || ep.URL != "https://hooks.example.com/evs" || ep.Description != "Payments" || len(ep.Events) != 2 || !ep.Active {
		t.Errorf("stored %+v", ep)
	}
	rec, err := w.st.AuditRecord(ctx, w.account.ID, form.Get("action_id"))
	if err != nil || rec.Action != domain.ActionEndpointCreate || rec.OperatorID != w.ops[roleAll].ID || rec.OperatorName != w.ops[roleAll].Name || rec.RequestID != "req-create-1" {
		t.Errorf("audit %+v %v", rec, err)
	}
	for _, p := range []string{"/settings/endpoints", fmt.Sprintf("/settings/endpoints/%d", ep.ID), fmt.Sprintf("/settings/endpoints/%d/edit", ep.ID),
		fmt.Sprintf("/settings/endpoints/%d/delete", ep.ID), "/settings/deliveries"} {
		if b := w.get(roleAll, p).body; strings.Contains(b, ep.Secret) || secretPattern.MatchString(b) {
			t.Errorf("%s shows a secret", p)
		}
	}

	// The same form again (a double click, a reload): one endpoint, no secret.
	again := w.post(roleAll, "/settings/endpoints", form)
	if again.StatusCode != http.StatusConflict || secretPattern.MatchString(again.body) || !strings.Contains(again.body, "cannot be shown again") {
		t.Errorf("repeat: %d\n%s", again.StatusCode, again.body)
	}
	if eps, _ := w.st.Endpoints(ctx, w.account.ID, domain.ReadStrong); len(eps) != 1 {
		t.Errorf("%d endpoints after a repeat", len(eps))
	}
	if strings.Contains(w.logs.String(), subscriptions.SecretPrefix) || strings.Contains(w.logs.String(), w.sessions[roleAll]) {
		t.Errorf("a secret or a session token was logged:\n%s", w.logs.String())
	}
}

// TestEndpointFormRefused: the service's validation messages (and the
// description's) beside their fields, the form filled again with the same
// action id, nothing changed.
func TestEndpointFormRefused(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "before")
	approved := []string{string(domain.EventApproved)}
	tests := []struct {
		name  string
		form  url.Values
		field string
		says  string
	}{
		{"loopback", url.Values{"url": {"http://127.0.0.1/x"}, "events": approved}, "url", "internal address"},
		{"metadata service", url.Values{"url": {"https://169.254.169.254/latest"}, "events": approved}, "url", "internal address"},
		{"not https", url.Values{"url": {"ftp://files.example.com/x"}, "events": approved}, "url", "must use https"},
		{"no URL", url.Values{"url": {" "}, "events": approved}, "url", "required"},
		{"a password in the URL", url.Values{"url": {"https://u:p@hooks.example.com/x"}, "events": approved}, "url", "user name or password"},
		{"no events", url.Values{"url": {"https://hooks.example.com/x"}}, "events", "subscribe to at least one"},
		{"an unknown event", url.Values{"url": {"https://hooks.example.com/x"}, "events": {"entity_review.nope"}}, "events", "is not an event"},
		{"a long description", url.Values{"url": {"https://hooks.example.com/x"}, "events": approved, "description": {strings.Repeat("d", 501)}}, "description", "longer than 500"},
		{"a control character", url.Values{"url": {"https://hooks.example.com/x"}, "events": approved, "description": {"bell\a"}}, "description", "control characters"},
	}
	for _, path := range []string{"/settings/endpoints", fmt.Sprintf("/settings/endpoints/%d", ep.ID)} {
		for _, tc := range tests {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				before := w.state(t)
				tc.form.Set("action_id", w.actionID())
				a := w.post(roleAll, path, tc.form)
				if a.StatusCode != http.StatusUnprocessableEntity {
					t.Fatalf("status %d:\n%s", a.StatusCode, a.body)
				}
				// The message sits in its field's block.
				block := fieldBlock(a.body, tc.field)
				if !strings.Contains(block, `class="error"`) || !strings.Contains(block, tc.says) {
					t.Errorf("no %q beside %s:\n%s", tc.says, tc.field, block)
				}
				if !strings.Contains(a.body, `name="action_id" value="`+tc.form.Get("action_id")+`"`) {
					t.Error("the form lost its action id")
				}
				if u := strings.TrimSpace(tc.form.Get("url")); u != "" && !strings.Contains(a.body, `value="`+u+`"`) {
					t.Errorf("the URL %q is not filled in again", u)
				}
				if after := w.state(t); after != before {
					t.Errorf("changed:\n%+v\n%+v", before, after)
				}
			})
		}
	}
}

// fieldBlock is the markup of a form field, from its label to the next.
func fieldBlock(body, field string) string {
	start := strings.Index(body, `name="`+field+`"`)
	if start < 0 {
		return ""
	}
	start = strings.LastIndex(body[:start], `class="field`)
	end := strings.Index(body[start+1:], `class="field`)
	if end < 0 {
		return body[start:]
	}
	return body[start : start+1+end]
}

// TestEndpointChanges: each change answers 303 to a page that says what
// was done (POST-redirect-GET), and is audited naming the operator.
func TestEndpointChanges(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ep := w.endpoint(t, "https://hooks.example.com/evs", "before")
	e := fmt.Sprintf("/settings/endpoints/%d", ep.ID)
	steps := []struct {
		name   string
		path   string
		form   url.Values
		next   string
		says   string
		action domain.Action
		check  func(domain.Endpoint) bool
	}{
		{"edit", e, url.Values{"url": {"https://hooks.example.com/v2"}, "events": {string(domain.EventAssigned)}, "description": {"after"}},
			e + "?done=updated", "was updated", domain.ActionEndpointUpdate,
			func(got domain.Endpoint) bool {
				return got.URL == "https://hooks.example.com/v2" && got.Description == "after" && len(got.Events) == 1 && got.Events[0] == domain.EventAssigned
			}},
		{"disable", e + "/disable", nil, e + "?done=disabled", "was disabled", domain.ActionEndpointUpdate, func(got domain.Endpoint) bool { return !got.Active }},
		{"enable", e + "/enable", nil, e + "?done=enabled", "was enabled", domain.ActionEndpointUpdate, func(got domain.Endpoint) bool { return got.Active }},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			f := url.Values{"action_id": {w.actionID()}}
			for k, v := range s.form {
				f[k] = v
			}
			a := w.post(roleManager, s.path, f)
			if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != s.next {
				t.Fatalf("status %d, Location %q:\n%s", a.StatusCode, a.Header.Get("Location"), a.body)
			}
			got, err := w.st.Endpoint(ctx, w.account.ID, ep.ID)
			if err != nil || !s.check(got) {
				t.Errorf("stored %+v %v", got, err)
			}
			if got.Secret != ep.Secret {
				t.Error("the secret changed")
			}
			rec, err := w.st.AuditRecord(ctx, w.account.ID, f.Get("action_id"))
			if err != nil || rec.Action != s.action || rec.OperatorID != w.ops[roleManager].ID || rec.OperatorName != w.ops[roleManager].Name {
				t.Errorf("audit %+v %v", rec, err)
			}
			if page := w.get(roleManager, s.next); page.StatusCode != http.StatusOK || !strings.Contains(page.body, s.says) {
				t.Errorf("the page after does not say %q", s.says)
			}
			// The same form again changes nothing more.
			before := w.state(t)
			if again := w.post(roleManager, s.path, f); again.StatusCode != http.StatusConflict {
				t.Errorf("repeat: %d", again.StatusCode)
			}
			if after := w.state(t); after != before {
				t.Error("a repeat changed something")
			}
		})
	}

	t.Run("delete", func(t *testing.T) {
		confirm := w.get(roleManager, e+"/delete")
		if confirm.StatusCode != http.StatusOK || !strings.Contains(confirm.body, "cannot be undone") ||
			!strings.Contains(strings.Join(changeForms(confirm.body), " "), "post "+e+"/delete") {
			t.Fatalf("confirmation %d:\n%s", confirm.StatusCode, confirm.body)
		}
		a := w.post(roleManager, e+"/delete", nil)
		if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != "/settings/endpoints?done=deleted" {
			t.Fatalf("status %d, Location %q", a.StatusCode, a.Header.Get("Location"))
		}
		if _, err := w.st.Endpoint(ctx, w.account.ID, ep.ID); domain.ErrorCode(err) != domain.ECodeNotFound {
			t.Errorf("still there: %v", err)
		}
		if list := w.get(roleManager, "/settings/endpoints?done=deleted"); !strings.Contains(list.body, "was deleted") {
			t.Error("the list does not say it was deleted")
		}
		for _, p := range []string{e, e + "/edit", e + "/delete"} {
			if a := w.get(roleManager, p); a.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s: %d", p, a.StatusCode)
			}
		}
		for _, p := range []string{e, e + "/disable", e + "/delete", e + "/rotate", e + "/test"} {
			if a := w.post(roleManager, p, url.Values{"overlap": {"1h"}, "url": {"https://x.example.com"}, "events": {"entity_review.approved"}}); a.StatusCode != http.StatusNotFound {
				t.Errorf("POST %s: %d", p, a.StatusCode)
			}
		}
	})

	t.Run("only what the form changes is checked", func(t *testing.T) {
		// Made while loopback was allowed; the settings area allows none.
		allow, err := webhooks.ParseAllowList("127.0.0.0/8")
		if err != nil {
			t.Fatal(err)
		}
		svc := &subscriptions.Service{Store: w.st, Allow: allow, Clock: domain.FixedClock(t0)}
		old, err := svc.Create(ctx, domain.Actor{AccountID: w.account.ID, Admin: "test", ActionID: w.actionID()}, "http://127.0.0.1:9/evs", []domain.EventType{domain.EventApproved}, "")
		if err != nil {
			t.Fatal(err)
		}
		p := fmt.Sprintf("/settings/endpoints/%d", old.ID)
		a := w.post(roleManager, p, url.Values{"url": {old.URL}, "events": {string(domain.EventRejected), string(domain.EventApproved)}, "description": {"legacy"}})
		if a.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d:\n%s", a.StatusCode, a.body)
		}
		if got, _ := w.st.Endpoint(ctx, w.account.ID, old.ID); got.Description != "legacy" || len(got.Events) != 2 || got.URL != old.URL {
			t.Errorf("stored %+v", got)
		}
		if a := w.post(roleManager, p, url.Values{"url": {"http://127.0.0.1:10/evs"}, "events": {string(domain.EventApproved)}}); a.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("a new loopback URL: %d", a.StatusCode)
		}
	})

	t.Run("notices are fixed sentences", func(t *testing.T) {
		a := w.get(roleManager, "/settings/endpoints?done=<script>alert(1)</script>")
		if strings.Contains(a.body, "alert(1)") || strings.Contains(a.body, `class="notice"`) {
			t.Error("the query's text reached the page")
		}
	})
}

// TestEndpointRotate: the new secret shown once, the old one signing for
// the overlap chosen; only the offered overlaps.
func TestEndpointRotate(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	now := t0.Add(time.Hour) // the handler's clock
	for _, bad := range []string{"", "2h", "0", "-1h", "169h", "24"} {
		t.Run("overlap "+bad, func(t *testing.T) {
			ep := w.endpoint(t, "https://hooks.example.com/evs", "")
			before := w.state(t)
			a := w.post(roleAll, fmt.Sprintf("/settings/endpoints/%d/rotate", ep.ID), url.Values{"overlap": {bad}})
			if a.StatusCode != http.StatusUnprocessableEntity || secretPattern.MatchString(a.body) {
				t.Errorf("status %d", a.StatusCode)
			}
			if after := w.state(t); after != before {
				t.Error("changed")
			}
		})
	}
	for value, d := range map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "168h": 7 * 24 * time.Hour} {
		t.Run("overlap "+value, func(t *testing.T) {
			ep := w.endpoint(t, "https://hooks.example.com/evs", "")
			form := url.Values{"overlap": {value}, "action_id": {w.actionID()}}
			a := w.post(roleAll, fmt.Sprintf("/settings/endpoints/%d/rotate", ep.ID), form)
			shown := secretPattern.FindAllString(a.body, -1)
			if a.StatusCode != http.StatusOK || len(shown) != 1 || shown[0] == ep.Secret {
				t.Fatalf("status %d, secrets shown %v", a.StatusCode, shown)
			}
			got, err := w.st.Endpoint(ctx, w.account.ID, ep.ID)
			if err != nil || got.Secret != shown[0] || got.PreviousSecret != ep.Secret || got.PreviousExpiresAt == nil || !got.PreviousExpiresAt.Equal(now.Add(d)) {
				t.Errorf("stored %+v %v", got, err)
			}
			if !strings.Contains(a.body, "keeps signing until "+now.Add(d).Format("2006-01-02 15:04:05 UTC")) {
				t.Error("the answer does not say until when the old secret signs")
			}
			page := w.get(roleAll, fmt.Sprintf("/settings/endpoints/%d", ep.ID))
			if secretPattern.MatchString(page.body) || !strings.Contains(page.body, "previous secret also signs until") {
				t.Errorf("endpoint page after rotation:\n%s", page.body)
			}
			again := w.post(roleAll, fmt.Sprintf("/settings/endpoints/%d/rotate", ep.ID), form)
			if again.StatusCode != http.StatusConflict || secretPattern.MatchString(again.body) {
				t.Errorf("repeat: %d", again.StatusCode)
			}
			if after, _ := w.st.Endpoint(ctx, w.account.ID, ep.ID); after.Secret != got.Secret {
				t.Error("a repeat rotated again")
			}
		})
	}
}
