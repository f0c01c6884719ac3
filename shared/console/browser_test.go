package console_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/webpage"
)

// browser is one person's browser on the console: its cookies, and the
// software authenticator holding their passkeys.
type browser struct {
	t    *testing.T
	w    *world
	c    *http.Client
	auth *passkeytest.Authenticator
}

func (w *world) browser(t *testing.T) *browser {
	return &browser{t: t, w: w, c: newClient(t), auth: passkeytest.New(origin, rpID)}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	return b.read(b.c.Get(b.w.srv.URL + path))
}

// post posts a form as the browser would, URL-encoded.
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	return b.read(b.c.PostForm(b.w.srv.URL+path, form))
}

// postJSON posts as the passkey script does.
func (b *browser) postJSON(path, csrf string, body any) page {
	b.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.postRaw(path, csrf, string(raw))
}

// postRaw posts a JSON body as written: keys repeated or in any case, as
// a hostile script could.
func (b *browser) postRaw(path, csrf, body string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.w.srv.URL+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	return b.read(b.c.Do(req))
}

// follow GETs where a 303 sends the browser.
func (b *browser) follow(p page) page {
	b.t.Helper()
	if p.status != http.StatusSeeOther {
		b.t.Fatalf("status %d, want 303; body:\n%s", p.status, p.body)
	}
	return b.get(p.header.Get("Location"))
}

// cookie is the cookie's value as the browser would send it to path.
func (b *browser) cookie(name, path string) string {
	u, _ := url.Parse(b.w.srv.URL + path)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func (b *browser) session() string { return b.cookie(webpage.CookieName, "/console/") }

// ceremony runs the page's passkey ceremony as its script does: the
// options from data-options, the authenticator's answer to data-submit,
// with the CSRF token of data-csrf (and, for a signature, the decision's
// fields). It returns the final answer.
func (b *browser) ceremony(p page, name string) page {
	b.t.Helper()
	c := ceremonyOf(b.t, p.body)
	if c.kind == "add" {
		b.t.Fatal("adding a passkey takes two authenticators: use addPasskey")
	}
	first := map[string]any{}
	if c.kind == "sign" {
		first["decision"] = c.fields
	}
	opts := b.postJSON(c.options, c.csrf, first)
	if opts.status != http.StatusOK {
		return opts
	}
	var response []byte
	var err error
	if c.kind == "register" {
		response, err = b.auth.Register(json.RawMessage(opts.body))
	} else {
		response, err = b.auth.Get(json.RawMessage(opts.body))
	}
	if err != nil {
		b.t.Fatalf("authenticator: %v", err)
	}
	answer := map[string]any{"response": json.RawMessage(response)}
	switch c.kind {
	case "sign":
		answer["decision"] = c.fields
	case "register":
		answer["name"] = name
	}
	return b.postJSON(c.submit, c.csrf, answer)
}

// addPasskey adds a passkey on device through the passkeys page p, as
// its script does: the step-up's options, the browser's own passkey's
// (b.auth's) answer with them, the registration's options that answer
// allows, device's new credential to data-submit. It returns the answer
// of the first post refused, or the last.
func (b *browser) addPasskey(p page, name string, device *passkeytest.Authenticator) page {
	b.t.Helper()
	c := ceremonyOf(b.t, p.body)
	if c.kind != "add" || c.stepUp == "" {
		b.t.Fatalf("not an addition: %+v", c)
	}
	opts := b.postJSON(c.stepUp, c.csrf, map[string]any{})
	if opts.status != http.StatusOK {
		return opts
	}
	confirmed, err := b.auth.Get(json.RawMessage(opts.body))
	if err != nil {
		b.t.Fatalf("authenticator: %v", err)
	}
	creation := b.postJSON(c.options, c.csrf, map[string]any{"response": json.RawMessage(confirmed)})
	if creation.status != http.StatusOK {
		return creation
	}
	response, err := device.Register(json.RawMessage(creation.body))
	if err != nil {
		b.t.Fatalf("authenticator: %v", err)
	}
	return b.postJSON(c.submit, c.csrf, map[string]any{"name": name, "response": json.RawMessage(response)})
}

// nextOf is a finished ceremony's destination.
func nextOf(t *testing.T, p page) string {
	t.Helper()
	var n struct {
		Next string `json:"next"`
	}
	if p.status != http.StatusOK || json.Unmarshal([]byte(p.body), &n) != nil || n.Next == "" {
		t.Fatalf("ceremony answered %d: %s", p.status, p.body)
	}
	return n.Next
}

// signIn signs the browser in with its passkey through the sign-in page.
func (b *browser) signIn() {
	b.t.Helper()
	p := b.get("/console/")
	if p.status != http.StatusOK {
		b.t.Fatalf("sign-in page: %d", p.status)
	}
	if next := nextOf(b.t, b.ceremony(p, "")); next != "/console/queue" {
		b.t.Fatalf("signed in to %s", next)
	}
}

// signedIn is a browser of the operator, enrolled with a passkey on its
// authenticator and signed in with it.
func (w *world) signedIn(t *testing.T, name string) *browser {
	t.Helper()
	o, err := passkeytest.Enrol(context.Background(), w.keys, w.ops[name])
	if err != nil {
		t.Fatal(err)
	}
	b := w.browser(t)
	b.auth = o.Auth
	b.signIn()
	return b
}

// ceremonyPage is what a page tells its passkey script.
type ceremonyPage struct {
	kind, options, submit, csrf string
	stepUp                      string
	fields                      map[string]string
}

var ceremonyRe = regexp.MustCompile(`<div class="ceremony"([^>]*)>`)

func ceremonyOf(t *testing.T, body string) ceremonyPage {
	t.Helper()
	m := ceremonyRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no ceremony on the page:\n%s", body)
	}
	a := attrsOf(m[1])
	c := ceremonyPage{kind: a["data-ceremony"], options: a["data-options"], submit: a["data-submit"], csrf: a["data-csrf"], stepUp: a["data-step-up"]}
	for _, f := range formsOf(body) {
		if _, ok := f.attrs["data-fields"]; ok {
			c.fields = map[string]string{}
			for k := range f.hidden {
				c.fields[k] = f.hidden.Get(k)
			}
		}
	}
	return c
}

// htmlForm is a form of a page: its attributes and hidden fields.
type htmlForm struct {
	attrs  map[string]string
	hidden url.Values
	body   string
}

var (
	formRe  = regexp.MustCompile(`(?s)<form([^>]*)>(.*?)</form>`)
	inputRe = regexp.MustCompile(`<input([^>]*)>`)
	attrRe  = regexp.MustCompile(`([a-z-]+)(?:="([^"]*)")?`)
)

func formsOf(body string) []htmlForm {
	var out []htmlForm
	for _, m := range formRe.FindAllStringSubmatch(body, -1) {
		f := htmlForm{attrs: attrsOf(m[1]), hidden: url.Values{}, body: m[2]}
		for _, in := range inputRe.FindAllStringSubmatch(m[2], -1) {
			a := attrsOf(in[1])
			if a["type"] == "hidden" {
				f.hidden.Add(a["name"], a["value"])
			}
		}
		out = append(out, f)
	}
	return out
}

func attrsOf(s string) map[string]string {
	out := map[string]string{}
	for _, m := range attrRe.FindAllStringSubmatch(s, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}

// formWith is the page's form whose attribute has the value; it fails the
// test when there is none.
func formWith(t *testing.T, body, attr, value string) htmlForm {
	t.Helper()
	for _, f := range formsOf(body) {
		if f.attrs[attr] == value {
			return f
		}
	}
	t.Fatalf("no form with %s=%q on the page", attr, value)
	return htmlForm{}
}

// submit posts the form's hidden fields with the given ones.
func (b *browser) submit(f htmlForm, fields url.Values) page {
	b.t.Helper()
	v := url.Values{}
	for k, vs := range f.hidden {
		v[k] = vs
	}
	for k, vs := range fields {
		v[k] = vs
	}
	path := f.attrs["action"]
	if !strings.HasPrefix(path, "/") {
		b.t.Fatalf("form action %q", path)
	}
	return b.post(path, v)
}
