package settings_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/settings"
)

func TestSignIn(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name       string
		proto      string // X-Forwarded-Proto
		prefix     string // X-Forwarded-Prefix, as httplambda sets it
		secure     bool
		path, next string
	}{
		{name: "behind API Gateway", proto: "https", secure: true, path: "/settings/", next: "/settings/endpoints"},
		{name: "on a stage", proto: "https", prefix: "/prod", secure: true, path: "/prod/settings/", next: "/prod/settings/endpoints"},
		{name: "plain http (make local)", proto: "http", path: "/settings/", next: "/settings/endpoints"},
		{name: "a prefix that is no path", proto: "https", prefix: "//evil.example.com", secure: true, path: "/settings/", next: "/settings/endpoints"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := w.session(roleManager)
			link := w.portal.link(s, nil)
			r := httptest.NewRequest(http.MethodGet, "/settings/portal?token="+url.QueryEscape(link), nil)
			r.Header.Set("X-Forwarded-Proto", tc.proto)
			if tc.prefix != "" {
				r.Header.Set("X-Forwarded-Prefix", tc.prefix)
			}
			a := w.do(r)
			if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != tc.next {
				t.Fatalf("status %d, Location %q; want 303 to %s", a.StatusCode, a.Header.Get("Location"), tc.next)
			}
			if strings.Contains(a.Header.Get("Location"), link) {
				t.Error("the link's token is in the redirect")
			}
			cookies := a.Cookies()
			if len(cookies) != 1 {
				t.Fatalf("cookies %v", cookies)
			}
			c := cookies[0]
			if c.Name != settings.CookieName || !c.HttpOnly || c.Secure != tc.secure || c.SameSite != http.SameSiteLaxMode || c.Path != tc.path {
				t.Errorf("cookie %+v", c)
			}
			if !c.Expires.Equal(s.ExpiresAt) {
				t.Errorf("cookie expires %v, want the session's absolute end %v", c.Expires, s.ExpiresAt)
			}
			if !w.portal.live(c.Value) {
				t.Error("the cookie names no session")
			}
			// The link works once.
			if again := w.do(httptest.NewRequest(http.MethodGet, "/settings/portal?token="+url.QueryEscape(link), nil)); again.StatusCode != http.StatusGone || len(again.Cookies()) != 0 {
				t.Errorf("second use: %d, cookies %v", again.StatusCode, again.Cookies())
			}
		})
	}

	// The first page is the endpoints for who may read them, else the
	// countries, which anyone signed in may see.
	for role, next := range map[string]string{roleAll: "/settings/endpoints", roleViewer: "/settings/endpoints",
		roleReader: "/settings/countries", roleSettings: "/settings/countries"} {
		t.Run("lands "+role+" on "+next, func(t *testing.T) {
			a := w.do(httptest.NewRequest(http.MethodGet, "/settings/portal?token="+w.portal.link(w.session(role), nil), nil))
			if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != next {
				t.Fatalf("status %d, Location %q", a.StatusCode, a.Header.Get("Location"))
			}
			if page := w.get(role, next); page.StatusCode != http.StatusOK {
				t.Errorf("the first page answers %d", page.StatusCode)
			}
		})
	}

	t.Run("a new sign-in ends the browser's previous session", func(t *testing.T) {
		old := w.portal.start(w.session(roleViewer))
		r := httptest.NewRequest(http.MethodGet, "/settings/portal?token="+w.portal.link(w.session(roleViewer), nil), nil)
		r.AddCookie(&http.Cookie{Name: settings.CookieName, Value: old})
		if a := w.do(r); a.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d", a.StatusCode)
		}
		if w.portal.live(old) {
			t.Error("the previous session is still live")
		}
	})
}

func TestSignInRefused(t *testing.T) {
	w := newWorld(t)
	s := w.session(roleManager)
	tests := []struct {
		name   string
		token  string
		status int
		says   string
	}{
		{"unknown", "link_nothing", http.StatusNotFound, "not valid"},
		{"empty", "", http.StatusNotFound, "not valid"},
		{"too long", strings.Repeat("a", 600), http.StatusNotFound, "not valid"},
		{"used", w.portal.link(s, func(l *fakeLink) { l.used = true }), http.StatusGone, "already used"},
		{"expired", w.portal.link(s, func(l *fakeLink) { l.expired = true }), http.StatusGone, "expired"},
		{"operator disabled", w.portal.link(s, func(l *fakeLink) { l.disabled = true }), http.StatusForbidden, "disabled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := w.portal.count()
			a := w.do(httptest.NewRequest(http.MethodGet, "/settings/portal?token="+url.QueryEscape(tc.token), nil))
			if a.StatusCode != tc.status {
				t.Errorf("status %d, want %d", a.StatusCode, tc.status)
			}
			if len(a.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("Set-Cookie %v", a.Header.Values("Set-Cookie"))
			}
			if !strings.Contains(a.body, tc.says) || !strings.Contains(a.body, "Ask your administrator for a new sign-in link") {
				t.Errorf("page does not say %q and how to get a new link:\n%s", tc.says, a.body)
			}
			if w.portal.count() != before {
				t.Error("a session was started")
			}
			if tc.token != "" && strings.Contains(a.body, tc.token) {
				t.Error("the token is on the page")
			}
		})
	}
	if strings.Contains(w.logs.String(), "link_") {
		t.Errorf("a link token was logged:\n%s", w.logs.String())
	}
}

// TestSignedOut: without a live session every page is the signed-out page
// (401) and every form changes nothing.
func TestSignedOut(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/a", "")
	d := w.deliver(t, ep.ID, 500, "no", "receiver answered 500")
	ended := w.portal.start(w.session(roleAll))
	w.portal.End(t.Context(), ended)
	cookies := map[string]*http.Cookie{
		"no cookie":     nil,
		"empty cookie":  {Name: settings.CookieName, Value: ""},
		"ended session": {Name: settings.CookieName, Value: ended},
		"forged":        {Name: settings.CookieName, Value: "sess_forged"},
	}
	for name, ck := range cookies {
		for _, rt := range routes(w, ep, d) {
			t.Run(name+"/"+rt.method+" "+rt.path, func(t *testing.T) {
				before := w.state(t)
				var r *http.Request
				if rt.method == http.MethodGet {
					r = httptest.NewRequest(rt.method, rt.path, nil)
				} else {
					f := rt.form()
					f.Set("csrf", csrf(ended))
					f.Set("action_id", w.actionID())
					r = httptest.NewRequest(rt.method, rt.path, strings.NewReader(f.Encode()))
					r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				if ck != nil {
					r.AddCookie(ck)
				}
				a := w.do(r)
				if a.StatusCode != http.StatusUnauthorized || !strings.Contains(a.body, "Ask your administrator for a new sign-in link") {
					t.Errorf("status %d:\n%s", a.StatusCode, a.body)
				}
				if f := forms(a.body); len(f) != 0 {
					t.Errorf("forms on the signed-out page: %v", f)
				}
				if after := w.state(t); after != before {
					t.Errorf("changed:\n%+v\n%+v", before, after)
				}
			})
		}
	}
}

func TestSignOut(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name   string
		token  func(session string) string
		status int
		ends   bool
	}{
		{"with the session's token", csrf, http.StatusSeeOther, true},
		{"without a token", func(string) string { return "" }, http.StatusForbidden, false},
		{"with another session's token", func(string) string { return csrf(w.sessions[roleViewer]) }, http.StatusForbidden, false},
		{"with the session token itself", func(s string) string { return s }, http.StatusForbidden, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := w.portal.start(w.session(roleManager))
			r := httptest.NewRequest(http.MethodPost, "/settings/signout", strings.NewReader(url.Values{"csrf": {tc.token(s)}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("X-Forwarded-Proto", "https")
			r.AddCookie(&http.Cookie{Name: settings.CookieName, Value: s})
			a := w.do(r)
			if a.StatusCode != tc.status {
				t.Fatalf("status %d, want %d:\n%s", a.StatusCode, tc.status, a.body)
			}
			if w.portal.live(s) == tc.ends {
				t.Errorf("session live: %t", w.portal.live(s))
			}
			if !tc.ends {
				return
			}
			if a.Header.Get("Location") != "/settings/signed-out" {
				t.Errorf("Location %q", a.Header.Get("Location"))
			}
			// Both the area's own cookie and the console's on these
			// paths (one sign-in for both) are cleared.
			cs := a.Cookies()
			if len(cs) != 2 || cs[0].Name != settings.CookieName || cs[1].Name != portal.ConsoleCookie {
				t.Errorf("cookies at sign-out: %+v", cs)
			}
			for _, c := range cs {
				if c.Value != "" || c.MaxAge >= 0 || c.Path != "/settings/" || !c.HttpOnly || !c.Secure {
					t.Errorf("cookie not cleared: %+v", c)
				}
			}
			if out := w.get("", "/settings/signed-out"); out.StatusCode != http.StatusOK || !strings.Contains(out.body, "You signed out") {
				t.Errorf("signed-out page %d", out.StatusCode)
			}
		})
	}
}

// TestSessionEnds: a session that ends (idle, absolute, operator disabled:
// the portal says ErrNoSession) signs the browser out and drops the cookie.
func TestSessionEnds(t *testing.T) {
	w := newWorld(t)
	s := w.portal.start(portal.Session{AccountID: w.account.ID, Operator: w.ops[roleAll], ExpiresAt: t0.Add(time.Hour)})
	r := httptest.NewRequest(http.MethodGet, "/settings/endpoints", nil)
	r.AddCookie(&http.Cookie{Name: settings.CookieName, Value: s})
	if a := w.do(r); a.StatusCode != http.StatusOK {
		t.Fatalf("live session: %d", a.StatusCode)
	}
	w.portal.End(t.Context(), s)
	a := w.do(r)
	if a.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ended session: %d", a.StatusCode)
	}
	if cs := a.Cookies(); len(cs) != 1 || cs[0].Value != "" || cs[0].MaxAge >= 0 {
		t.Errorf("cookie not cleared: %+v", cs)
	}
}
