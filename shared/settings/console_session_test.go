package settings_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/evs-kyb/evs/shared/portal"
)

// One sign-in for both: the console's passkey session (its cookie on the
// settings area's paths) opens the settings area; a console session that
// has not signed in with a passkey (enrolment) does not.
func TestTheConsolesSessionOpensTheSettingsArea(t *testing.T) {
	w := newWorld(t)
	role := roles()[0]
	passkeyed := w.session(role)
	passkeyed.CredentialID = []byte("credential")
	enrolling := w.session(role)
	enrolling.Enrolment = true
	linked := w.session(role) // a link's session without a passkey
	linked.CredentialID = nil
	for _, tc := range []struct {
		name string
		s    portal.Session
		want int
	}{
		{"a passkey sign-in", passkeyed, http.StatusOK},
		{"an enrolment session", enrolling, http.StatusUnauthorized},
		{"a session without a credential", linked, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/settings/countries", nil)
			r.AddCookie(&http.Cookie{Name: portal.ConsoleCookie, Value: w.portal.start(tc.s)})
			if got := w.do(r); got.StatusCode != tc.want {
				t.Errorf("GET /settings/countries: %d, want %d", got.StatusCode, tc.want)
			}
		})
	}
}
