package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

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

	// Another, on a phone whose passkeys sync.
	laptop := b.auth
	b.auth = passkeytest.New(origin, rpID)
	b.auth.BE, b.auth.BS = true, true
	if next := nextOf(t, b.ceremony(p, "Phone")); next != "/console/passkeys" {
		t.Fatalf("added, sent to %s", next)
	}
	phone := b.auth
	b.auth = laptop
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
