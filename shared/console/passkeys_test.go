package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

func TestPasskeys(t *testing.T) {
	w := newWorld(t)
	b := w.signedIn(t, dana)

	p := b.get("/console/passkeys")
	if p.status != http.StatusOK || strings.Count(p.body, `data-label="Name"`) != 1 || !strings.Contains(p.body, "this session") ||
		!strings.Contains(p.body, "Your only passkey") || strings.Contains(p.body, `action="/console/passkeys/remove"`) {
		t.Fatalf("one passkey: %d\n%s", p.status, p.body)
	}
	// The last one cannot be removed, whatever the form says.
	only := url.Values{"csrf": {csrfOf(t, p.body)}, "action_id": {"web-AAAAAAAAAAAAAAAAAAAAAAAAAA"}, "credential_id": {b64(b.auth.Credentials()[0].ID)}}
	if got := b.post("/console/passkeys/remove", only); got.status != http.StatusConflict {
		t.Errorf("removing the last passkey: %d", got.status)
	}

	// Another, on a phone whose passkeys sync, confirmed with the laptop's.
	phone := passkeytest.New(origin, rpID)
	phone.BE, phone.BS = true, true
	if next := nextOf(t, b.addPasskey(p, "Phone", phone)); next != "/console/passkeys" {
		t.Fatalf("added, sent to %s", next)
	}
	p = b.get("/console/passkeys")
	if strings.Count(p.body, `data-label="Name"`) != 2 || !strings.Contains(p.body, "Phone") || !strings.Contains(p.body, `<td data-label="Synced">Yes</td>`) {
		t.Fatalf("two passkeys:\n%s", p.body)
	}
	for _, f := range formsOf(p.body) {
		if f.attrs["action"] == "/console/passkeys/remove" && f.hidden.Get("credential_id") == b64(phone.Credentials()[0].ID) {
			if got := b.submit(f, nil); got.status != http.StatusSeeOther {
				t.Fatalf("remove: %d\n%s", got.status, got.body)
			}
		}
	}
	if p := b.get("/console/passkeys"); strings.Count(p.body, `data-label="Name"`) != 1 || strings.Contains(p.body, `<td data-label="Name">Phone`) {
		t.Error("the removed passkey is still listed")
	}
	// The phone no longer signs in.
	gone := w.browser(t)
	gone.auth = phone
	if got := gone.ceremony(gone.get("/console/"), ""); got.status == http.StatusOK {
		t.Error("a removed passkey signed in")
	}
}

// A passkey's sessions end with it, whichever way it goes: revoked by the
// administrator (passkey.revoke) or removed by the operator from a session
// of their other passkey. The console's pages and the settings area's,
// one session on one shell, then answer as signed out; the other
// passkey's session lives on.
func TestSessionsEndWithTheirPasskey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove func(t *testing.T, w *world, other *browser, gone []byte)
	}{
		{"revoked by the administrator", func(t *testing.T, w *world, _ *browser, gone []byte) {
			admin := domain.Actor{AccountID: w.account.ID, Admin: "admin@example.com", ActionID: w.next("revoke")}
			if err := w.keys.Remove(context.Background(), admin, w.ops[dana], gone); err != nil {
				t.Fatal(err)
			}
		}},
		{"removed by the operator", func(t *testing.T, w *world, other *browser, gone []byte) {
			f := formWith(t, other.get("/console/passkeys").body, "action", "/console/passkeys/remove")
			if p := other.submit(f, url.Values{"credential_id": {b64(gone)}}); p.status != http.StatusSeeOther {
				t.Fatalf("remove: %d\n%s", p.status, p.body)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			// Two passkeys of one operator, on two devices, each signed in.
			laptop, phone := w.signedIn(t, dana), w.signedIn(t, dana)
			for _, b := range []*browser{laptop, phone} {
				if q, s := b.get("/console/queue"), b.get("/settings/"); q.status != http.StatusOK || s.status != http.StatusSeeOther {
					t.Fatalf("before: the queue %d, the settings area %d", q.status, s.status)
				}
			}
			tc.remove(t, w, phone, laptop.auth.Credentials()[0].ID)
			if p := laptop.get("/console/queue"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/" {
				t.Errorf("the removed passkey's session, on the queue: %d to %q", p.status, p.header.Get("Location"))
			}
			if p := laptop.get("/settings/endpoints"); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "Signed out") {
				t.Errorf("the removed passkey's session, in the settings area: %d\n%.300s", p.status, p.body)
			}
			if laptop.session() != "" {
				t.Error("the ended session's cookie was not dropped")
			}
			if p := phone.get("/console/queue"); p.status != http.StatusOK {
				t.Errorf("the other passkey's session: %d", p.status)
			}
		})
	}
}

// A full session's cookie and its page's CSRF token do not add a passkey:
// the registration's options take a fresh step-up by one of the
// operator's own passkeys, once, and the registration is finished only as
// the one that step-up began. With it, the passkey is added.
func TestAddingAPasskeyTakesAStepUp(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	b, other := w.signedIn(t, dana), w.signedIn(t, sami)
	c := ceremonyOf(t, b.get("/console/passkeys").body)
	device := passkeytest.New(origin, rpID)
	stepUp := func(who *browser) []byte {
		t.Helper()
		opts := who.postJSON(c.stepUp, csrfOf(t, who.get("/console/passkeys").body), map[string]any{})
		resp, err := who.auth.Get(json.RawMessage(opts.body))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	used := stepUp(b)
	if p := b.postJSON(c.options, c.csrf, map[string]any{"response": json.RawMessage(used)}); p.status != http.StatusOK {
		t.Fatalf("options after a step-up: %d %s", p.status, p.body)
	}
	for _, tc := range []struct {
		name   string
		post   func() page
		status int
	}{
		{"options with no step-up", func() page { return b.postJSON(c.options, c.csrf, map[string]any{}) }, http.StatusForbidden},
		{"options with a null step-up", func() page { return b.postRaw(c.options, c.csrf, `{"response":null}`) }, http.StatusForbidden},
		{"options with a step-up used already", func() page {
			return b.postJSON(c.options, c.csrf, map[string]any{"response": json.RawMessage(used)})
		}, http.StatusForbidden},
		{"options with another operator's step-up", func() page {
			return b.postJSON(c.options, c.csrf, map[string]any{"response": json.RawMessage(stepUp(other))})
		}, http.StatusForbidden},
		{"a registration no step-up began", func() page {
			opts, err := w.keys.BeginRegistration(ctx, w.ops[dana]) // as an enrolment would
			if err != nil {
				t.Fatal(err)
			}
			resp, err := passkeytest.New(origin, rpID).Register(opts)
			if err != nil {
				t.Fatal(err)
			}
			return b.postJSON(c.submit, c.csrf, map[string]any{"name": "Stolen", "response": json.RawMessage(resp)})
		}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p := tc.post(); p.status != tc.status {
				t.Errorf("%d, want %d: %s", p.status, tc.status, p.body)
			}
			if keys, _ := w.st.Passkeys(ctx, w.account.ID, w.ops[dana].ID); len(keys) != 1 {
				t.Errorf("%d passkeys, want 1", len(keys))
			}
		})
	}

	// With a step-up: added, and it signs in.
	if next := nextOf(t, b.addPasskey(b.get("/console/passkeys"), "Tablet", device)); next != "/console/passkeys" {
		t.Fatalf("added, sent to %s", next)
	}
	if keys, _ := w.st.Passkeys(ctx, w.account.ID, w.ops[dana].ID); len(keys) != 2 || !slices.ContainsFunc(keys, func(p domain.Passkey) bool { return p.Name == "Tablet" }) {
		t.Errorf("passkeys after the step-up: %+v", keys)
	}
	tablet := w.browser(t)
	tablet.auth = device
	tablet.signIn()
}
