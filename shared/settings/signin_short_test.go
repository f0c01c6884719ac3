package settings_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/settings"
	"github.com/evs-kyb/evs/shared/webpage"
)

// TestSignInShort runs without DynamoDB Local (under -short too): links
// forwarded, a passkey session, sign-out and the headers need the portal
// alone.
func TestSignInShort(t *testing.T) {
	p := newFakePortal()
	h := newServer(p, settings.Deps{Catalogue: country.ISO(), Clock: domain.FixedClock(t0)}, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	s := portal.Session{AccountID: 7, Operator: domain.Operator{AccountID: 7, ID: 3, Name: "Olga"}, ExpiresAt: t0.Add(portal.SessionAbsolute)}
	do := func(r *http.Request) *http.Response {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Result()
	}
	headers := func(t *testing.T, res *http.Response) {
		t.Helper()
		if res.Header.Get("Content-Security-Policy") != webpage.CSP || res.Header.Get("X-Frame-Options") != "DENY" ||
			res.Header.Get("Referrer-Policy") != "no-referrer" || res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("headers %v", res.Header)
		}
	}

	link := p.link(s, nil)
	res := do(httptest.NewRequest(http.MethodGet, "/settings/portal?token="+link, nil))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/enrol?token="+link || len(res.Cookies()) != 0 {
		t.Errorf("a link: %d to %q, cookies %v; want 303 to the console's enrolment", res.StatusCode, res.Header.Get("Location"), res.Cookies())
	}
	headers(t, res)
	if res := do(httptest.NewRequest(http.MethodGet, "/settings/portal", nil)); res.StatusCode != http.StatusNotFound {
		t.Errorf("no token: %d", res.StatusCode)
	}

	s.CredentialID = []byte("passkey")
	c := &http.Cookie{Name: webpage.CookieName, Value: p.start(s)}
	page := httptest.NewRequest(http.MethodGet, "/settings/", nil)
	page.AddCookie(c)
	if res := do(page); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/settings/countries" {
		t.Errorf("a passkey session: %d", res.StatusCode)
	}
	signOut := func(token string) *http.Response {
		r := httptest.NewRequest(http.MethodPost, "/settings/signout", strings.NewReader(url.Values{"csrf": {token}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", "http://example.com")
		r.AddCookie(c)
		return do(r)
	}
	if res := signOut("wrong"); res.StatusCode != http.StatusForbidden || !p.live(c.Value) {
		t.Errorf("a wrong token: %d, live %t", res.StatusCode, p.live(c.Value))
	}
	if res := signOut(csrf(c.Value)); res.StatusCode != http.StatusSeeOther || p.live(c.Value) {
		t.Errorf("sign-out: %d, live %t", res.StatusCode, p.live(c.Value))
	}
	if res := do(httptest.NewRequest(http.MethodDelete, "/settings/endpoints", nil)); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d", res.StatusCode)
	}
}
