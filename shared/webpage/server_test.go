package webpage_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// sessions is a fake sign-in: tokens to sessions, in memory.
type sessions map[string]portal.Session

func (s sessions) Session(_ context.Context, token string) (portal.Session, error) {
	if v, ok := s[token]; ok {
		return v, nil
	}
	return portal.Session{}, portal.ErrNoSession
}

func (s sessions) End(_ context.Context, token string) error { delete(s, token); return nil }

// areaFiles are an area's templates: one page showing who is signed in.
func areaFiles(script string) fstest.MapFS {
	return fstest.MapFS{
		"templates/partials.html": {Data: []byte(`{{define "who"}}{{with .Who}}{{.Name}}{{end}}{{end}}`)},
		"templates/home.html":     {Data: []byte(`{{define "content"}}<p id="home">{{template "who" .}}</p><form method="post"><input name="csrf" value="{{.CSRF}}"></form>{{end}}`)},
		"static/" + script:        {Data: []byte("// " + script)},
	}
}

// shell is a server with two areas, as the web function has: "a" signs
// people in and takes enrolment sessions, "b" takes full sessions only.
func shell(t *testing.T) (*webpage.Server, sessions) {
	t.Helper()
	ss := sessions{}
	s := webpage.New(webpage.Config{Sessions: ss, SignInPath: "/a/"})
	for _, spec := range []webpage.AreaSpec{
		{Path: "/a", Name: "area a", Brand: "A", Files: areaFiles("a.js"), Pages: []string{"home"}, Scripts: map[string]string{"home": "a.js"},
			SignInPage: true, EnrolPage: "/enrol"},
		{Path: "/b", Name: "area b", Brand: "B", Files: areaFiles("b.js"), Pages: []string{"home"}, SignedOut: "/bye"},
	} {
		area := s.Mount(spec)
		area.HandleFunc("GET", "/home", area.Page(webpage.Full, webpage.Anyone, func(c *webpage.Call) {
			c.Render(http.StatusOK, "home", "Home", "", nil)
		}))
		area.HandleFunc("POST", "/login", area.OpenAPI(func(c *webpage.Call) {
			c.StartSession("enrolling", ss["enrolling"])
			c.WriteJSON(http.StatusOK, map[string]string{"ok": "yes"})
		}))
		area.HandleFunc("POST", "/change", area.Form(webpage.Full, webpage.Need{domain.PermReviewDecide}, true, func(c *webpage.Call) {
			c.Redirect("/home")
		}))
	}
	return s, ss
}

var t0 = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func full(perms ...string) portal.Session {
	return portal.Session{AccountID: 1, Operator: domain.Operator{AccountID: 1, ID: 2, Name: "Olga", Permissions: perms}, CredentialID: []byte("key"), ExpiresAt: t0.Add(time.Hour)}
}

func serve(s http.Handler, r *http.Request) *http.Response {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, r)
	return rec.Result()
}

func withCookie(r *http.Request, token string) *http.Request {
	r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: token})
	return r
}

func form(path, token string, v url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	return withCookie(r, token)
}

// Every answer of every area carries the one set of security headers.
func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	s, ss := shell(t)
	ss["t"] = full()
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "/a/home", nil),
		withCookie(httptest.NewRequest(http.MethodGet, "/b/home", nil), "t"),
		httptest.NewRequest(http.MethodGet, "/b/nowhere", nil),
		httptest.NewRequest(http.MethodDelete, "/a/home", nil),
		httptest.NewRequest(http.MethodGet, "/b/static/style.css", nil),
	} {
		res := serve(s, r)
		if res.Header.Get("Content-Security-Policy") != webpage.CSP || res.Header.Get("X-Frame-Options") != "DENY" ||
			!strings.Contains(res.Header.Get("Permissions-Policy"), "publickey-credentials-get=(self)") {
			t.Errorf("%s %s: headers %v", r.Method, r.URL.Path, res.Header)
		}
	}
}

// A request without the session it needs is told so in its area's way.
func TestWithoutASession(t *testing.T) {
	s, ss := shell(t)
	ss["enrolling"] = portal.Session{AccountID: 1, Operator: domain.Operator{ID: 2}, Enrolment: true}
	tests := []struct {
		name, path, token string
		status            int
		location          string
		clears            []string
	}{
		{"a page of the sign-in area goes to sign in", "/a/home", "", http.StatusSeeOther, "/a/", nil},
		{"a page of another area says signed out", "/b/home", "", http.StatusUnauthorized, "", nil},
		{"an ended session's cookie is dropped everywhere", "/b/home", "gone", http.StatusUnauthorized, "", []string{"/a/", "/b/"}},
		{"an enrolment session goes to its page", "/a/home", "enrolling", http.StatusSeeOther, "/a/enrol", nil},
		{"an enrolment session is none where it is not taken", "/b/home", "enrolling", http.StatusUnauthorized, "", []string{"/b/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := serve(s, withCookie(httptest.NewRequest(http.MethodGet, tc.path, nil), tc.token))
			if res.StatusCode != tc.status || res.Header.Get("Location") != tc.location {
				t.Fatalf("%d to %q, want %d to %q", res.StatusCode, res.Header.Get("Location"), tc.status, tc.location)
			}
			var cleared []string
			for _, c := range res.Cookies() {
				if c.MaxAge < 0 {
					cleared = append(cleared, c.Path)
				}
			}
			if strings.Join(cleared, " ") != strings.Join(tc.clears, " ") {
				t.Errorf("cleared %v, want %v", cleared, tc.clears)
			}
		})
	}
}

// One sign-in serves every area: a full session's cookie goes to each
// area's path, an enrolment session's only to the areas that take one.
func TestStartSessionSetsTheCookieForTheAreasThatTakeIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		session portal.Session
		paths   string
	}{
		{"a passkey session", full(), "/a/ /b/"},
		{"an enrolment session", portal.Session{AccountID: 1, Enrolment: true, ExpiresAt: t0}, "/a/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ss := shell(t)
			ss["enrolling"] = tc.session
			r := httptest.NewRequest(http.MethodPost, "/a/login", strings.NewReader("{}"))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Origin", "http://example.com")
			res := serve(s, r)
			var paths []string
			for _, c := range res.Cookies() {
				if c.Name == webpage.CookieName && c.Value == "enrolling" && c.HttpOnly && c.SameSite == http.SameSiteLaxMode {
					paths = append(paths, c.Path)
				}
			}
			if res.StatusCode != http.StatusOK || strings.Join(paths, " ") != tc.paths {
				t.Errorf("%d, cookies on %v, want %s", res.StatusCode, paths, tc.paths)
			}
		})
	}
}

// One sign-out, from any area, ends the session and clears its cookie on
// every area's path, landing where the area says.
func TestSignOutFromAnyAreaEndsTheSessionEverywhere(t *testing.T) {
	for _, tc := range []struct{ area, lands string }{{"/a", "/a/"}, {"/b", "/b/bye"}} {
		t.Run(tc.area, func(t *testing.T) {
			s, ss := shell(t)
			ss["t"] = full()
			page := serve(s, withCookie(httptest.NewRequest(http.MethodGet, tc.area+"/home", nil), "t"))
			body := readAll(t, page)
			csrf := between(body, `name="csrf" value="`, `"`)
			if refused := serve(s, form(tc.area+"/signout", "t", url.Values{"csrf": {"forged"}})); refused.StatusCode != http.StatusForbidden || ss["t"].AccountID == 0 {
				t.Fatalf("a forged CSRF token: %d", refused.StatusCode)
			}
			res := serve(s, form(tc.area+"/signout", "t", url.Values{"csrf": {csrf}}))
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != tc.lands {
				t.Fatalf("%d to %q", res.StatusCode, res.Header.Get("Location"))
			}
			if _, live := ss["t"]; live {
				t.Error("the session lives on")
			}
			var cleared []string
			for _, c := range res.Cookies() {
				if c.MaxAge < 0 {
					cleared = append(cleared, c.Path)
				}
			}
			if strings.Join(cleared, " ") != "/a/ /b/" {
				t.Errorf("cleared %v", cleared)
			}
		})
	}
}

// A form is checked in order — origin, CSRF token, permission, action id —
// and any refusal changes nothing.
func TestFormChecks(t *testing.T) {
	s, ss := shell(t)
	ss["t"] = full(domain.PermReviewDecide)
	ss["weak"] = full()
	body := readAll(t, serve(s, withCookie(httptest.NewRequest(http.MethodGet, "/a/home", nil), "t")))
	csrf := between(body, `name="csrf" value="`, `"`)
	weak := between(readAll(t, serve(s, withCookie(httptest.NewRequest(http.MethodGet, "/a/home", nil), "weak"))), `name="csrf" value="`, `"`)
	id := webpage.NewActionID()
	crossSite := form("/a/change", "t", url.Values{"csrf": {csrf}, "action_id": {id}})
	crossSite.Header.Set("Sec-Fetch-Site", "cross-site")
	otherOrigin := form("/a/change", "t", url.Values{"csrf": {csrf}, "action_id": {id}})
	otherOrigin.Header.Del("Sec-Fetch-Site")
	otherOrigin.Header.Set("Origin", "https://evil.example.com")
	sameHost := form("/a/change", "t", url.Values{"csrf": {csrf}, "action_id": {id}})
	sameHost.Header.Del("Sec-Fetch-Site")
	sameHost.Header.Set("Origin", "http://example.com")
	neither := form("/a/change", "t", url.Values{"csrf": {csrf}, "action_id": {id}})
	neither.Header.Del("Sec-Fetch-Site")
	for _, tc := range []struct {
		name   string
		r      *http.Request
		status int
	}{
		{"cross-site", crossSite, http.StatusForbidden},
		{"from another origin", otherOrigin, http.StatusForbidden},
		{"neither Origin nor Sec-Fetch-Site", neither, http.StatusForbidden},
		{"no CSRF token", form("/a/change", "t", url.Values{"action_id": {id}}), http.StatusForbidden},
		{"another session's token", form("/a/change", "t", url.Values{"csrf": {weak}, "action_id": {id}}), http.StatusForbidden},
		{"without the permission", form("/a/change", "weak", url.Values{"csrf": {weak}, "action_id": {id}}), http.StatusForbidden},
		{"no action id", form("/a/change", "t", url.Values{"csrf": {csrf}}), http.StatusBadRequest},
		{"an action id not made here", form("/a/change", "t", url.Values{"csrf": {csrf}, "action_id": {"web-1"}}), http.StatusBadRequest},
		{"all in order", form("/a/change", "t", url.Values{"csrf": {csrf}, "action_id": {id}}), http.StatusSeeOther},
		{"all in order, known by its Origin alone", sameHost, http.StatusSeeOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := serve(s, tc.r); res.StatusCode != tc.status {
				t.Errorf("%d, want %d", res.StatusCode, tc.status)
			}
		})
	}
}

// A POST that carries neither Origin nor Sec-Fetch-Site cannot be told
// same-origin: in either area, of any kind (a form, a script's JSON, one
// made before sign-in, a sign-out), it is refused with a message saying
// why, and nothing is done.
func TestPostsWithoutOriginOrFetchSiteAreRefused(t *testing.T) {
	s, ss := shell(t)
	ss["t"] = full(domain.PermReviewDecide)
	csrf := between(readAll(t, serve(s, withCookie(httptest.NewRequest(http.MethodGet, "/a/home", nil), "t"))), `name="csrf" value="`, `"`)
	for _, tc := range []struct{ name, path, contentType, body string }{
		{"a form of area a", "/a/change", "application/x-www-form-urlencoded", url.Values{"csrf": {csrf}, "action_id": {webpage.NewActionID()}}.Encode()},
		{"a form of area b", "/b/change", "application/x-www-form-urlencoded", url.Values{"csrf": {csrf}, "action_id": {webpage.NewActionID()}}.Encode()},
		{"sign-out", "/b/signout", "application/x-www-form-urlencoded", url.Values{"csrf": {csrf}}.Encode()},
		{"a script's request before sign-in", "/a/login", "application/json", "{}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := withCookie(httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body)), "t")
			r.Header.Set("Content-Type", tc.contentType)
			res := serve(s, r)
			body := readAll(t, res)
			if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "neither an Origin nor a Sec-Fetch-Site") || !strings.Contains(body, "Nothing was changed") {
				t.Errorf("%d:\n%s", res.StatusCode, body)
			}
			if _, live := ss["t"]; !live || len(res.Cookies()) != 0 {
				t.Errorf("the session was touched: live %t, cookies %v", live, res.Cookies())
			}
		})
	}
}

// The layout, the stylesheet and each area's scripts are the shell's: one
// stylesheet under every area, a page's script only on its page.
func TestOneLayoutAndStylesheet(t *testing.T) {
	s, ss := shell(t)
	ss["t"] = full()
	a := readAll(t, serve(s, withCookie(httptest.NewRequest(http.MethodGet, "/a/home", nil), "t")))
	b := readAll(t, serve(s, withCookie(httptest.NewRequest(http.MethodGet, "/b/home", nil), "t")))
	for _, tc := range []struct{ page, want, not string }{
		{a, `<title>Home · A</title>`, ""}, {a, `src="/a/static/a.js?v=`, ""}, {a, `href="/a/static/style.css?v=`, ""},
		{b, `<title>Home · B</title>`, "static/a.js"}, {b, `href="/b/static/style.css?v=`, ""}, {b, `action="/b/signout"`, ""},
	} {
		if !strings.Contains(tc.page, tc.want) || tc.not != "" && strings.Contains(tc.page, tc.not) {
			t.Errorf("want %q (and not %q) in\n%s", tc.want, tc.not, tc.page)
		}
	}
	if res := serve(s, httptest.NewRequest(http.MethodGet, "/b/static/style.css", nil)); res.StatusCode != http.StatusOK {
		t.Errorf("the stylesheet under /b: %d", res.StatusCode)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	return s[:strings.Index(s, to)]
}
