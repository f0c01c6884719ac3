package console_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/console"
	"github.com/evs-kyb/evs/shared/portal"
)

func TestEnrolment(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	link := w.link(t, dana)
	b := w.browser(t)
	enrolPath := "/console/enrol?" + url.Values{"token": {link}}.Encode()

	// Opening the link, twice (a mail scanner, then the person), uses
	// nothing: each GET shows the Continue button.
	var form htmlForm
	for range 2 {
		p := b.get(enrolPath)
		if p.status != http.StatusOK || !strings.Contains(p.body, "Continue") {
			t.Fatalf("enrolment page: %d\n%s", p.status, p.body)
		}
		form = formWith(t, p.body, "action", "/console/enrol")
		if form.hidden.Get("token") != link || form.hidden.Get("enrol") == "" || form.hidden.Get("enrol") != b.cookie(console.EnrolCookie, "/console/enrol") {
			t.Fatalf("the form carries token %v and page value %q (cookie %q)", form.hidden["token"] != nil, form.hidden.Get("enrol"), b.cookie(console.EnrolCookie, "/console/enrol"))
		}
	}

	// POSTs that do not come from the page this browser was shown use
	// nothing either.
	for _, tc := range []struct {
		name string
		post func() page
	}{
		{"without the page's value", func() page { return b.post("/console/enrol", url.Values{"token": {link}}) }},
		{"with another value", func() page { return b.post("/console/enrol", url.Values{"token": {link}, "enrol": {"forged"}}) }},
		{"from a browser that was not shown the page", func() page { return w.browser(t).submit(form, nil) }},
		{"from another site", func() page {
			req, _ := http.NewRequest(http.MethodPost, w.srv.URL+"/console/enrol", strings.NewReader(form.hidden.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "cross-site")
			return b.read(b.c.Do(req))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p := tc.post(); p.status != http.StatusForbidden {
				t.Errorf("status %d, want 403", p.status)
			}
			if b.session() != "" {
				t.Error("a session cookie was set")
			}
		})
	}

	// From its page, the link starts an enrolment session.
	p := b.submit(form, nil)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/enrol/passkey" {
		t.Fatalf("enrol: %d to %q\n%s", p.status, p.header.Get("Location"), p.body)
	}
	enrolment := b.session()
	s, err := w.portal.Session(ctx, enrolment)
	if err != nil || !s.Enrolment || s.CredentialID != nil || s.Operator.ID != w.ops[dana].ID {
		t.Fatalf("enrolment session %+v, %v", s, err)
	}
	if b.cookie(console.EnrolCookie, "/console/enrol") != "" {
		t.Error("the page value's cookie outlived its use")
	}

	// An enrolment session may only register a passkey.
	for _, path := range []string{"/console/queue", "/console/passkeys", "/console/reviews/1"} {
		if p := b.get(path); p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/enrol/passkey" {
			t.Errorf("GET %s: %d to %q", path, p.status, p.header.Get("Location"))
		}
	}
	if p := b.postJSON("/console/sign/options", csrfOf(t, b.get("/console/enrol/passkey").body), map[string]any{}); p.status != http.StatusForbidden {
		t.Errorf("signing options with an enrolment session: %d", p.status)
	}

	// Create your passkey: the enrolment session ends, a full one starts.
	create := b.get("/console/enrol/passkey")
	if create.status != http.StatusOK || !strings.Contains(create.body, "Create your passkey") {
		t.Fatalf("passkey page: %d", create.status)
	}
	if next := nextOf(t, b.ceremony(create, "Work laptop")); next != "/console/queue" {
		t.Fatalf("registered, sent to %s", next)
	}
	if _, err := w.portal.Session(ctx, enrolment); !errors.Is(err, portal.ErrNoSession) {
		t.Errorf("the enrolment session lives on: %v", err)
	}
	full, err := w.portal.Session(ctx, b.session())
	if err != nil || full.Enrolment || !bytes.Equal(full.CredentialID, b.auth.Credentials()[0].ID) {
		t.Fatalf("session after registration %+v, %v", full, err)
	}
	if p := b.get("/console/queue"); p.status != http.StatusOK {
		t.Errorf("queue after enrolment: %d", p.status)
	}
	keys, err := w.st.Passkeys(ctx, w.account.ID, w.ops[dana].ID)
	if err != nil || len(keys) != 1 || keys[0].Name != "Work laptop" {
		t.Errorf("passkeys %+v, %v", keys, err)
	}

	// The link worked once.
	again := w.browser(t)
	if p := again.submit(formWith(t, again.get(enrolPath).body, "action", "/console/enrol"), nil); p.status != http.StatusGone {
		t.Errorf("the link again: %d", p.status)
	}
}

// csrfOf is the CSRF token a page's forms carry.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	for _, f := range formsOf(body) {
		if v := f.hidden.Get("csrf"); v != "" {
			return v
		}
	}
	t.Fatal("no CSRF token on the page")
	return ""
}
