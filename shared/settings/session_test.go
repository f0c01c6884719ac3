package settings_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// TestLinksGoToTheConsole: links are for enrolment only. One minted
// before (…/settings/portal?token=…) goes, unused, to the console's
// enrolment page behind the same stage prefix; the settings area starts
// no session and sets no cookie of its own.
func TestLinksGoToTheConsole(t *testing.T) {
	w := newWorld(t)
	link := w.portal.link(w.session(roleManager), nil)
	tests := []struct {
		name, prefix, token string
		status              int
		next                string
	}{
		{name: "behind API Gateway", token: link, status: http.StatusSeeOther, next: "/console/enrol?token=" + url.QueryEscape(link)},
		{name: "on a stage", prefix: "/prod", token: link, status: http.StatusSeeOther, next: "/prod/console/enrol?token=" + url.QueryEscape(link)},
		{name: "a prefix that is no path", prefix: "//evil.example.com", token: link, status: http.StatusSeeOther, next: "/console/enrol?token=" + url.QueryEscape(link)},
		{name: "a token to escape", token: "a&b=<c>", status: http.StatusSeeOther, next: "/console/enrol?token=a%26b%3D%3Cc%3E"},
		{name: "empty", token: "", status: http.StatusNotFound},
		{name: "too long", token: strings.Repeat("a", 600), status: http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := w.portal.count()
			r := httptest.NewRequest(http.MethodGet, "/settings/portal?token="+url.QueryEscape(tc.token), nil)
			r.Header.Set("X-Forwarded-Proto", "https")
			if tc.prefix != "" {
				r.Header.Set("X-Forwarded-Prefix", tc.prefix)
			}
			a := w.do(r)
			if a.StatusCode != tc.status || a.Header.Get("Location") != tc.next {
				t.Errorf("status %d, Location %q; want %d to %q", a.StatusCode, a.Header.Get("Location"), tc.status, tc.next)
			}
			if len(a.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("Set-Cookie %v", a.Header.Values("Set-Cookie"))
			}
			if w.portal.count() != before {
				t.Error("a session was started")
			}
			if tc.status == http.StatusNotFound && (!strings.Contains(a.body, "not valid") || !strings.Contains(a.body, "Sign in on the console with your passkey")) {
				t.Errorf("page does not say the link is not valid and how to sign in:\n%s", a.body)
			}
		})
	}
	if !w.portal.unused(link) {
		t.Error("forwarding used the link")
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
		"empty cookie":  {Name: webpage.CookieName, Value: ""},
		"ended session": {Name: webpage.CookieName, Value: ended},
		"forged":        {Name: webpage.CookieName, Value: "sess_forged"},
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
				if a.StatusCode != http.StatusUnauthorized || !strings.Contains(a.body, "Sign in on the console with your passkey") {
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
			r.Header.Set("Origin", "https://example.com")
			r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: s})
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
			// The session's cookie is cleared on every area's path the
			// server mounts (here the settings area alone; the shell's
			// tests clear it on two areas' paths, as the web function has).
			cs := a.Cookies()
			if len(cs) != 1 || cs[0].Path != "/settings/" {
				t.Errorf("cookies at sign-out: %+v", cs)
			}
			for _, c := range cs {
				if c.Name != portal.ConsoleCookie || c.Value != "" || c.MaxAge >= 0 || !c.HttpOnly || !c.Secure {
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
	s := w.portal.start(portal.Session{AccountID: w.account.ID, Operator: w.ops[roleAll], CredentialID: []byte("passkey"), ExpiresAt: t0.Add(time.Hour)})
	r := httptest.NewRequest(http.MethodGet, "/settings/endpoints", nil)
	r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: s})
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
