package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/portal"
)

func TestSignInWithAPasskey(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()

	out := w.browser(t)
	if p := out.get("/console/queue"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/" {
		t.Errorf("signed out, the queue answers %d to %q", p.status, p.header.Get("Location"))
	}
	if p := out.get("/console/"); p.status != http.StatusOK || !strings.Contains(p.body, "Sign in with a passkey") || !strings.Contains(p.body, `data-ceremony="login"`) {
		t.Errorf("sign-in page: %d\n%s", p.status, p.body)
	}

	b := w.signedIn(t, sami)
	s, err := w.portal.Session(ctx, b.session())
	if err != nil || s.Enrolment || len(s.CredentialID) == 0 || s.Operator.ID != w.ops[sami].ID {
		t.Fatalf("session %+v, %v", s, err)
	}
	if p := b.get("/console/"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/queue" {
		t.Errorf("signed in, home answers %d to %q", p.status, p.header.Get("Location"))
	}

	// Ceremonies that must not sign anyone in.
	o, err := passkeytest.Enrol(ctx, w.keys, w.ops[dana])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T) page
	}{
		{"finished by a browser that did not begin it", func(t *testing.T) page {
			begun, other := w.browser(t), w.browser(t)
			opts := begun.postJSON("/console/login/options", "", map[string]any{})
			resp, err := o.Auth.Get(json.RawMessage(opts.body))
			if err != nil {
				t.Fatal(err)
			}
			return other.postJSON("/console/login", "", map[string]any{"response": json.RawMessage(resp)})
		}},
		{"a passkey the service does not know", func(t *testing.T) page {
			stranger := w.browser(t)
			stranger.auth = passkeytest.New(origin, rpID)
			if _, err := stranger.auth.Register(json.RawMessage(`{"user":{"id":"AAAAAAAAAAEAAAAAAAAAAQ"},"challenge":"AAAA","pubKeyCredParams":[{"alg":-7}]}`)); err != nil {
				t.Fatal(err)
			}
			return stranger.ceremony(stranger.get("/console/"), "")
		}},
		{"a form post rather than the script's JSON", func(t *testing.T) page {
			return w.browser(t).post("/console/login/options", url.Values{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.run(t)
			if p.status == http.StatusOK {
				t.Errorf("signed in: %s", p.body)
			}
		})
	}

	// Sign-out needs the session's CSRF token, then ends the session.
	if p := b.post("/console/signout", url.Values{}); p.status != http.StatusForbidden {
		t.Errorf("sign-out without its token: %d", p.status)
	}
	token := b.session()
	p := b.post("/console/signout", url.Values{"csrf": {csrfOf(t, b.get("/console/queue").body)}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/" {
		t.Fatalf("sign-out: %d to %q", p.status, p.header.Get("Location"))
	}
	if _, err := w.portal.Session(ctx, token); !errors.Is(err, portal.ErrNoSession) {
		t.Errorf("the session outlived sign-out: %v", err)
	}
	if p := b.get("/console/queue"); p.status != http.StatusSeeOther {
		t.Errorf("after sign-out the queue answers %d", p.status)
	}
}
