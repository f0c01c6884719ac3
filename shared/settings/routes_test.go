package settings_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webpage"
)

// actionIDPattern finds a form's action id.
var actionIDPattern = regexp.MustCompile(`name="action_id" value="(web-[A-Z2-7]{26})"`)

func readCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

// route is one page or form of the settings area: who may use it, what a
// permitted request answers, and, for a page, the forms it offers to an
// operator holding each form's permission.
type route struct {
	method, path string
	perms        []string // any one of them; none for anyone signed in
	form         func() url.Values
	ok           int
	offers       map[string]string // form ("post /settings/…") → its permission
}

// routes is every route but sign-out (tested on its own), around one
// endpoint and a failed delivery to it.
func routes(w *world, ep domain.Endpoint, d domain.Delivery) []route {
	e := fmt.Sprintf("/settings/endpoints/%d", ep.ID)
	manage, view, settings := domain.PermWebhookEndpointEdit, domain.PermWebhookDeliveryView, domain.PermAccountSettingsManage
	// Endpoints are read with either: who may see the deliveries may see
	// where they go.
	read := []string{manage, view}
	none := func() url.Values { return url.Values{} }
	return []route{
		{method: "GET", path: "/settings/endpoints", perms: read, ok: 200},
		{method: "GET", path: "/settings/endpoints/new", perms: []string{manage}, ok: 200, offers: map[string]string{"post /settings/endpoints": manage}},
		{method: "GET", path: e, perms: read, ok: 200, offers: map[string]string{"post " + e + "/disable": manage, "post " + e + "/test": manage, "post " + e + "/rotate": manage}},
		{method: "GET", path: e + "/edit", perms: []string{manage}, ok: 200, offers: map[string]string{"post " + e: manage}},
		{method: "GET", path: e + "/delete", perms: []string{manage}, ok: 200, offers: map[string]string{"post " + e + "/delete": manage}},
		{method: "GET", path: "/settings/deliveries", perms: []string{view}, ok: 200},
		{method: "GET", path: "/settings/deliveries/" + d.ID, perms: []string{view}, ok: 200, offers: map[string]string{"post /settings/deliveries/" + d.ID + "/redeliver": manage}},
		{method: "GET", path: "/settings/countries", ok: 200, offers: map[string]string{"post /settings/countries": settings}},

		{method: "POST", path: "/settings/endpoints", perms: []string{manage}, ok: 200, form: func() url.Values {
			return url.Values{"url": {"https://new.example.com/evs"}, "events": {string(domain.EventApproved)}, "description": {"new"}}
		}},
		{method: "POST", path: e, perms: []string{manage}, ok: 303, form: func() url.Values {
			return url.Values{"url": {"https://changed.example.com/evs"}, "events": {string(domain.EventEscalated)}, "description": {"changed"}}
		}},
		{method: "POST", path: e + "/disable", perms: []string{manage}, ok: 303, form: none},
		{method: "POST", path: e + "/enable", perms: []string{manage}, ok: 303, form: none},
		{method: "POST", path: e + "/rotate", perms: []string{manage}, ok: 200, form: func() url.Values { return url.Values{"overlap": {"1h"}} }},
		{method: "POST", path: e + "/test", perms: []string{manage}, ok: 303, form: none},
		{method: "POST", path: e + "/delete", perms: []string{manage}, ok: 303, form: none},
		{method: "POST", path: "/settings/deliveries/" + d.ID + "/redeliver", perms: []string{manage}, ok: 303, form: func() url.Values { return url.Values{"reason": {"receiver fixed"}} }},
		{method: "POST", path: "/settings/countries", perms: []string{settings}, ok: 303, form: func() url.Values {
			return url.Values{"code": {w.newCountry()}, "active": {"true"}}
		}},
	}
}

// newCountry is a country the account has not enabled, so enabling it is
// a change.
func (w *world) newCountry() string {
	cs, _ := w.st.CountryConfigs(context.Background(), w.account.ID)
	for _, code := range []string{"AE", "BH", "KW", "OM", "QA", "EG", "JO", "GB", "FR", "DE", "US", "IN"} {
		if !slices.ContainsFunc(cs, func(c domain.CountryConfig) bool { return c.CountryCode == code && c.Active }) {
			return code
		}
	}
	panic("every test country is enabled")
}

func (w *world) can(role, perm string) bool {
	return perm == "" || slices.Contains(w.ops[role].Permissions, perm)
}

// canAny reports whether the role holds one of perms (none: anyone may).
func (w *world) canAny(role string, perms []string) bool {
	return len(perms) == 0 || slices.ContainsFunc(perms, func(p string) bool { return w.can(role, p) })
}

func (w *world) request(role string, rt route) answer {
	if rt.method == http.MethodGet {
		return w.get(role, rt.path)
	}
	return w.post(role, rt.path, rt.form())
}

// TestPermissions: every route for every role. A permitted request does
// its work; a forbidden one answers 403 with a page and changes nothing;
// a page offers exactly the forms of the permissions held: a view-only
// operator sees no form at all but sign-out (and the deliveries filter).
func TestPermissions(t *testing.T) {
	w := newWorld(t)
	n := len(routes(w, domain.Endpoint{}, domain.Delivery{}))
	for i := range n {
		for _, role := range roles() {
			// Each request on an endpoint and delivery of its own: a
			// permitted delete must not take another's.
			ep := w.endpoint(t, "https://hooks.example.com/evs", "perm")
			rt := routes(w, ep, w.deliver(t, ep.ID, 500, "down", "receiver answered 500"))[i]
			if strings.HasSuffix(rt.path, "/enable") {
				w.deactivate(t, ep) // enabling an active endpoint changes nothing
			}
			t.Run(role+"/"+rt.method+" "+strings.Replace(rt.path, fmt.Sprint(ep.ID), "{id}", 1), func(t *testing.T) {
				before := w.state(t)
				a := w.request(role, rt)
				if !w.canAny(role, rt.perms) {
					named := strings.Join(rt.perms, " or ")
					if a.StatusCode != http.StatusForbidden || !strings.Contains(a.body, "Not permitted") || !strings.Contains(a.body, named) {
						t.Errorf("status %d, want 403 naming %s:\n%s", a.StatusCode, named, a.body)
					}
					if f := changeForms(a.body); len(f) != 0 {
						t.Errorf("forms on the refusal: %v", f)
					}
					if after := w.state(t); after != before {
						t.Errorf("changed:\n%+v\n%+v", before, after)
					}
					return
				}
				if a.StatusCode != rt.ok {
					t.Fatalf("status %d, want %d:\n%s", a.StatusCode, rt.ok, a.body)
				}
				if rt.method == http.MethodPost {
					if after := w.state(t); after == before {
						t.Error("nothing changed")
					}
					return
				}
				var want []string
				for f, perm := range rt.offers {
					if w.can(role, perm) {
						want = append(want, f)
					}
				}
				slices.Sort(want)
				got := slices.Compact(slices.Sorted(slices.Values(changeForms(a.body))))
				if !slices.Equal(got, want) {
					t.Errorf("forms %v, want %v", got, want)
				}
				if !slices.Contains(forms(a.body), "post /settings/signout") {
					t.Error("no sign-out form")
				}
			})
		}
	}
}

// TestNavigation: the deliveries tab only for who may see deliveries, the
// endpoints tab only for who may read endpoints.
func TestNavigation(t *testing.T) {
	w := newWorld(t)
	for _, role := range roles() {
		a := w.get(role, "/settings/countries")
		has := strings.Contains(a.body, `href="/settings/deliveries"`)
		if has != w.can(role, domain.PermWebhookDeliveryView) {
			t.Errorf("%s: deliveries link %t", role, has)
		}
		has = strings.Contains(a.body, `href="/settings/endpoints"`)
		if has != w.canAny(role, []string{domain.PermWebhookEndpointEdit, domain.PermWebhookDeliveryView}) {
			t.Errorf("%s: endpoints link %t", role, has)
		}
	}
}

// TestCSRF: every form refuses a POST without the session's own token (in
// the body), from another site, or of another kind, and changes nothing.
func TestCSRF(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "csrf")
	d := w.deliver(t, ep.ID, 500, "down", "receiver answered 500")
	session := w.sessions[roleAll]
	cases := []struct {
		name   string
		edit   func(f url.Values, r *http.Request)
		status int
	}{
		{"no token", func(f url.Values, _ *http.Request) { f.Del("csrf") }, http.StatusForbidden},
		{"empty token", func(f url.Values, _ *http.Request) { f.Set("csrf", "") }, http.StatusForbidden},
		{"wrong token", func(f url.Values, _ *http.Request) { f.Set("csrf", csrf("sess_other")) }, http.StatusForbidden},
		{"another session's token", func(f url.Values, _ *http.Request) { f.Set("csrf", csrf(w.sessions[roleManager])) }, http.StatusForbidden},
		{"the session token itself", func(f url.Values, _ *http.Request) { f.Set("csrf", session) }, http.StatusForbidden},
		{"token cut short", func(f url.Values, _ *http.Request) { f.Set("csrf", csrf(session)[:20]) }, http.StatusForbidden},
		{"token in the query only", func(f url.Values, r *http.Request) {
			f.Del("csrf")
			r.URL.RawQuery = "csrf=" + url.QueryEscape(csrf(session))
		}, http.StatusForbidden},
		{"token twice, the first wrong", func(f url.Values, _ *http.Request) { f["csrf"] = []string{"x", csrf(session)} }, http.StatusForbidden},
		{"from another site", func(_ url.Values, r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden},
		{"from another origin", func(_ url.Values, r *http.Request) { r.Header.Set("Origin", "https://evil.example.com") }, http.StatusForbidden},
		{"neither Origin nor Sec-Fetch-Site", func(_ url.Values, r *http.Request) { r.Header.Del("Origin") }, http.StatusForbidden},
		{"no action id", func(f url.Values, _ *http.Request) { f.Del("action_id") }, http.StatusBadRequest},
		{"a made-up action id", func(f url.Values, _ *http.Request) { f.Set("action_id", "read") }, http.StatusBadRequest},
		{"a form over 64 KB", func(f url.Values, _ *http.Request) { f.Set("pad", strings.Repeat("x", 70<<10)) }, http.StatusBadRequest},
		{"as JSON", func(_ url.Values, r *http.Request) { r.Header.Set("Content-Type", "application/json") }, http.StatusUnsupportedMediaType},
		{"as multipart", func(_ url.Values, r *http.Request) { r.Header.Set("Content-Type", "multipart/form-data; boundary=x") }, http.StatusUnsupportedMediaType},
	}
	for _, rt := range routes(w, ep, d) {
		if rt.method != http.MethodPost {
			continue
		}
		for _, tc := range cases {
			t.Run(rt.path+"/"+tc.name, func(t *testing.T) {
				before := w.state(t)
				f := rt.form()
				f.Set("csrf", csrf(session))
				f.Set("action_id", w.actionID())
				r := httptest.NewRequest(http.MethodPost, rt.path, nil)
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				r.Host = "settings.example.com"
				r.Header.Set("Origin", "https://settings.example.com")
				tc.edit(f, r)
				r.Body = readCloser(f.Encode())
				r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: session})
				a := w.do(r)
				if a.StatusCode != tc.status {
					t.Errorf("status %d, want %d:\n%s", a.StatusCode, tc.status, a.body)
				}
				if !strings.Contains(a.body, "Nothing was changed") {
					t.Errorf("the page does not say nothing changed:\n%s", a.body)
				}
				if after := w.state(t); after != before {
					t.Errorf("changed:\n%+v\n%+v", before, after)
				}
			})
		}
	}
	t.Run("same-origin with a token", func(t *testing.T) {
		f := url.Values{"csrf": {csrf(session)}, "action_id": {w.actionID()}}
		r := httptest.NewRequest(http.MethodPost, fmt.Sprintf("/settings/endpoints/%d/disable", ep.ID), readCloser(f.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: session})
		if a := w.do(r); a.StatusCode != http.StatusSeeOther {
			t.Errorf("status %d", a.StatusCode)
		}
	})
}

// TestFormsCarryTokens: every POST form on every page carries the
// session's CSRF token, and every change form a fresh action id.
func TestFormsCarryTokens(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "tokens")
	d := w.deliver(t, ep.ID, 500, "down", "receiver answered 500")
	token := csrf(w.sessions[roleAll])
	seen := map[string]bool{}
	for _, rt := range routes(w, ep, d) {
		if rt.method != http.MethodGet {
			continue
		}
		a := w.get(roleAll, rt.path)
		for _, block := range strings.Split(a.body, "<form ")[1:] {
			block = block[:strings.Index(block, "</form>")]
			if !strings.HasPrefix(block, `method="post"`) {
				continue
			}
			if !strings.Contains(block, `name="csrf" value="`+token+`"`) {
				t.Errorf("%s: a form without the CSRF token:\n%s", rt.path, block)
			}
			if strings.Contains(block, `action="/settings/signout"`) {
				continue
			}
			m := actionIDPattern.FindStringSubmatch(block)
			if m == nil {
				t.Errorf("%s: a form without an action id:\n%s", rt.path, block)
				continue
			}
			if seen[m[1]] {
				t.Errorf("%s: action id %s used by two forms", rt.path, m[1])
			}
			seen[m[1]] = true
		}
	}
	if len(seen) < 8 {
		t.Errorf("only %d change forms seen", len(seen))
	}
}

// TestMethods: only GET and POST; no method override.
func TestMethods(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "methods")
	e := fmt.Sprintf("/settings/endpoints/%d", ep.ID)
	for _, m := range []string{"PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT"} {
		for _, p := range []string{e, e + "/delete", "/settings/endpoints", "/settings/countries", "/settings/portal"} {
			t.Run(m+" "+p, func(t *testing.T) {
				before := w.state(t)
				r := httptest.NewRequest(m, p, readCloser(url.Values{"csrf": {csrf(w.sessions[roleAll])}, "action_id": {w.actionID()}}.Encode()))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: w.sessions[roleAll]})
				a := w.do(r)
				if a.StatusCode != http.StatusMethodNotAllowed || a.Header.Get("Allow") != "GET, POST" {
					t.Errorf("status %d, Allow %q", a.StatusCode, a.Header.Get("Allow"))
				}
				if after := w.state(t); after != before {
					t.Errorf("changed")
				}
			})
		}
	}
	t.Run("override", func(t *testing.T) {
		f := url.Values{"_method": {"DELETE"}, "url": {ep.URL}, "events": {string(domain.EventApproved)}}
		r := httptest.NewRequest(http.MethodPost, e+"?_method=DELETE", nil)
		f.Set("csrf", csrf(w.sessions[roleAll]))
		f.Set("action_id", w.actionID())
		r.Body = readCloser(f.Encode())
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", "http://example.com")
		r.Header.Set("X-HTTP-Method-Override", "DELETE")
		r.Header.Set("X-Method-Override", "DELETE")
		r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: w.sessions[roleAll]})
		if a := w.do(r); a.StatusCode != http.StatusSeeOther {
			t.Errorf("status %d:\n%s", a.StatusCode, a.body)
		}
		if _, err := w.st.Endpoint(t.Context(), w.account.ID, ep.ID); err != nil {
			t.Errorf("the endpoint went: %v", err)
		}
	})
	t.Run("unknown paths", func(t *testing.T) {
		for _, p := range []string{"/settings/nothing", "/settings/endpoints/abc", "/settings/endpoints/-1", "/settings/endpoints/0/edit",
			"/settings/deliveries/not-a-delivery", "/settings/static/none.css", "/settings/static/"} {
			if a := w.get(roleAll, p); a.StatusCode != http.StatusNotFound || !strings.Contains(a.body, "Not found") {
				t.Errorf("%s: %d", p, a.StatusCode)
			}
		}
	})
	t.Run("root", func(t *testing.T) {
		// The endpoints for who may read them, else the countries, which
		// anyone signed in may see; signed out, the signed-out page.
		lands := map[string]string{roleAll: "/settings/endpoints", roleManager: "/settings/endpoints", roleViewer: "/settings/endpoints",
			roleReader: "/settings/countries", roleSettings: "/settings/countries"}
		for _, p := range []string{"/settings", "/settings/"} {
			for _, role := range roles() {
				if a := w.get(role, p); a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != lands[role] {
					t.Errorf("%s %s: %d %q, want %s", role, p, a.StatusCode, a.Header.Get("Location"), lands[role])
				}
			}
			if a := w.get("", p); a.StatusCode != http.StatusUnauthorized || !strings.Contains(a.body, "not signed in") {
				t.Errorf("signed out %s: %d", p, a.StatusCode)
			}
		}
	})
	t.Run("another account's endpoint", func(t *testing.T) {
		other, err := w.st.CreateAccount(t.Context(), "Other", t0)
		if err != nil {
			t.Fatal(err)
		}
		svc := &subscriptions.Service{Store: w.st, Clock: domain.FixedClock(t0)}
		oep, err := svc.Create(t.Context(), domain.Actor{AccountID: other.ID, Admin: "test", ActionID: "other-1"}, "https://other.example.com/evs", domain.EventTypes(), "theirs")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{fmt.Sprintf("/settings/endpoints/%d", oep.ID), fmt.Sprintf("/settings/endpoints/%d/edit", oep.ID)} {
			if a := w.get(roleAll, p); a.StatusCode != http.StatusNotFound || strings.Contains(a.body, "other.example.com") {
				t.Errorf("%s: %d", p, a.StatusCode)
			}
		}
		for _, p := range []string{"/disable", "/delete", "/rotate", "/test"} {
			a := w.post(roleAll, fmt.Sprintf("/settings/endpoints/%d%s", oep.ID, p), url.Values{"overlap": {"1h"}})
			if a.StatusCode != http.StatusNotFound {
				t.Errorf("%s: %d", p, a.StatusCode)
			}
		}
		if after, err := w.st.Endpoint(t.Context(), other.ID, oep.ID); err != nil || after.Version != oep.Version || after.Secret != oep.Secret {
			t.Errorf("the other account's endpoint changed: %v", err)
		}
	})
}

// TestHeaders: every answer, page or refusal, carries the security
// headers; pages are never stored; no page holds inline script or style.
func TestHeaders(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "headers")
	d := w.deliver(t, ep.ID, 500, "down", "receiver answered 500")
	type got struct {
		name string
		a    answer
	}
	var answers []got
	for _, rt := range routes(w, ep, d) {
		answers = append(answers, got{rt.method + " " + rt.path, w.request(roleAll, rt)})
	}
	put := httptest.NewRequest(http.MethodPut, "/settings/endpoints", nil)
	answers = append(answers,
		got{"signed out", w.get("", "/settings/endpoints")},
		got{"forbidden", w.get(roleReader, "/settings/endpoints/new")},
		got{"not found", w.get(roleAll, "/settings/nowhere")},
		got{"unknown link", w.get("", "/settings/portal?token=link_unknown")},
		got{"sign-in", w.get("", "/settings/portal?token="+w.portal.link(w.session(roleAll), nil))},
		got{"signed-out page", w.get("", "/settings/signed-out")},
		got{"csrf refusal", w.post(roleAll, "/settings/endpoints", url.Values{"csrf": {"x"}})},
		got{"PUT", w.do(put)},
	)
	for _, g := range answers {
		t.Run(g.name, func(t *testing.T) {
			h := g.a.Header
			for k, v := range map[string]string{
				"Content-Security-Policy": webpage.CSP,
				"X-Frame-Options":         "DENY",
				"Referrer-Policy":         "no-referrer",
				"X-Content-Type-Options":  "nosniff",
				"Cache-Control":           "no-store",
			} {
				if h.Get(k) != v {
					t.Errorf("%s: %q, want %q", k, h.Get(k), v)
				}
			}
			csp := h.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP lacks %s", want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP allows inline: %s", csp)
			}
			if g.a.StatusCode == http.StatusSeeOther {
				return
			}
			if ct := h.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			checkMarkup(t, g.a.body)
		})
	}
	for _, f := range []struct{ name, ctype string }{{"style.css", "text/css; charset=utf-8"}, {"copy.js", "text/javascript; charset=utf-8"}} {
		t.Run(f.name, func(t *testing.T) {
			a := w.get("", "/settings/static/"+f.name+"?v=1")
			if a.StatusCode != 200 || a.Header.Get("Content-Type") != f.ctype || a.Header.Get("X-Content-Type-Options") != "nosniff" ||
				a.Header.Get("Content-Security-Policy") != webpage.CSP || !strings.HasPrefix(a.Header.Get("Cache-Control"), "public") {
				t.Errorf("%d %v", a.StatusCode, a.Header)
			}
		})
	}
	t.Run("HSTS over https only", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodGet, "/settings/signed-out", nil)
		r.Header.Set("X-Forwarded-Proto", "https")
		if a := w.do(r); a.Header.Get("Strict-Transport-Security") == "" {
			t.Error("no HSTS over https")
		}
		if a := w.get("", "/settings/signed-out"); a.Header.Get("Strict-Transport-Security") != "" {
			t.Error("HSTS over http")
		}
	})
}

// tagPattern is a tag of the page: every "<" of text is escaped, and so is
// every ">" inside an attribute's value.
var tagPattern = regexp.MustCompile(`<[a-zA-Z][^>]*>`)

// Attributes that would run or style something inline; values are
// quoted (html/template quotes them), so names are read with the values
// blanked.
var (
	valuePattern  = regexp.MustCompile(`="[^"]*"`)
	inlinePattern = regexp.MustCompile(`(?i)\s(style|on[a-z]+)=`)
	schemePattern = regexp.MustCompile(`(?i)\s(href|src|action)="\s*javascript:`)
)

// checkMarkup holds a page to the CSP: no inline script, handler or style,
// scripts and stylesheets only from the app.
func checkMarkup(t *testing.T, body string) {
	t.Helper()
	for _, tag := range tagPattern.FindAllString(body, -1) {
		lower := strings.ToLower(tag)
		if inlinePattern.MatchString(valuePattern.ReplaceAllString(tag, `=""`)) || schemePattern.MatchString(tag) || strings.HasPrefix(lower, "<style") {
			t.Errorf("inline style or script: %s", tag)
		}
		if strings.HasPrefix(lower, "<script") && !strings.HasPrefix(lower, `<script src="/settings/static/copy.js?v=`) {
			t.Errorf("a script that is not the app's file: %s", tag)
		}
	}
	if !strings.Contains(body, `<link rel="stylesheet" href="/settings/static/style.css?v=`) {
		t.Error("no stylesheet")
	}
	if !strings.HasPrefix(body, "<!doctype html>") || !strings.Contains(body, `<meta name="viewport"`) {
		t.Error("not a full page")
	}
	if n := strings.Count(body, "<form"); n != strings.Count(body, "</form>") {
		t.Errorf("%d forms opened, %d closed", n, strings.Count(body, "</form>"))
	}
}
