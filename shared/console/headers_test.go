package console_test

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// inline is markup the CSP would block: a script without a source, a
// style element or attribute, an event handler attribute.
var inline = regexp.MustCompile(`<script>|<script [^>]*>[^<]|<style|\sstyle="|\son[a-z]+="`)

func TestHeaders(t *testing.T) {
	w := newWorld(t)
	_, r := w.entity(t, domain.ReviewInProgress, dana)
	b := w.signedIn(t, dana)
	out := w.browser(t)

	for _, tc := range []struct {
		name        string
		b           *browser
		path        string
		status      int
		contentType string
		cache       string
	}{
		{"sign-in page", out, "/console/", 200, "text/html; charset=utf-8", "no-store"},
		{"enrolment page", out, "/console/enrol?token=evs_portal_x", 200, "text/html; charset=utf-8", "no-store"},
		{"queue", b, "/console/queue", 200, "text/html; charset=utf-8", "no-store"},
		{"review", b, "/console/reviews/" + itoa(r.ID), 200, "text/html; charset=utf-8", "no-store"},
		{"passkeys", b, "/console/passkeys", 200, "text/html; charset=utf-8", "no-store"},
		{"not found", b, "/console/nowhere", 404, "text/html; charset=utf-8", "no-store"},
		{"stylesheet", out, "/console/static/style.css", 200, "text/css; charset=utf-8", "public, max-age=86400"},
		{"script", out, "/console/static/passkey.js", 200, "text/javascript; charset=utf-8", "public, max-age=86400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.b.get(tc.path)
			if p.status != tc.status {
				t.Fatalf("status %d, want %d", p.status, tc.status)
			}
			h := p.header
			for k, want := range map[string]string{
				"Content-Security-Policy": webpage.CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
				"Referrer-Policy": "no-referrer", "Content-Type": tc.contentType, "Cache-Control": tc.cache,
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
			if strings.HasPrefix(tc.contentType, "text/html") && inline.MatchString(p.body) {
				t.Errorf("inline script or style: %q", inline.FindString(p.body))
			}
		})
	}
	if !strings.Contains(webpage.CSP, "script-src 'self'") || strings.Contains(webpage.CSP, "unsafe-inline") {
		t.Errorf("CSP %q", webpage.CSP)
	}

	// Over https, every cookie is Secure and the answer asks for https.
	req, _ := http.NewRequest(http.MethodGet, w.srv.URL+"/console/enrol?token=evs_portal_x", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Strict-Transport-Security") == "" || len(res.Cookies()) == 0 || !res.Cookies()[0].Secure || res.Cookies()[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("over https: HSTS %q, cookies %+v", res.Header.Get("Strict-Transport-Security"), res.Cookies())
	}

	// The session cookie: HttpOnly, Lax, the console's paths only.
	sess := w.browser(t)
	sess.auth = b.auth
	p := sess.get("/console/")
	c := ceremonyOf(t, p.body)
	opts := sess.postJSON(c.options, "", map[string]any{})
	resp, err := sess.auth.Get([]byte(opts.body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := http.NewRequest(http.MethodPost, w.srv.URL+c.submit, strings.NewReader(`{"response":`+string(resp)+`}`))
	raw.Header.Set("Content-Type", "application/json")
	raw.Header.Set("Origin", w.srv.URL)
	for _, ck := range sess.c.Jar.Cookies(raw.URL) {
		raw.AddCookie(ck)
	}
	res, err = http.DefaultClient.Do(raw)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// The session's cookie goes to the console's paths and, one sign-in
	// for both, to the settings area's: never to the API's.
	paths := map[string]bool{}
	for _, ck := range res.Cookies() {
		if ck.Name != webpage.CookieName {
			continue
		}
		paths[ck.Path] = true
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure || ck.Value == "" {
			t.Errorf("session cookie %+v", ck)
		}
	}
	if len(paths) != 2 || !paths["/console/"] || !paths["/settings/"] {
		t.Errorf("the session cookie's paths: %v", paths)
	}
	if len(w.sessions) == 0 {
		t.Error("no session token was seen to check pages against")
	}
}
