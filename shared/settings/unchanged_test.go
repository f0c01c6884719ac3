package settings_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestEndpointFormsThatChangeNothing: an edit form sent with the endpoint's
// own values, and disabling a disabled endpoint, write nothing (no new
// version, no audit record) and lead to a page that says nothing changed.
func TestEndpointFormsThatChangeNothing(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "ERP")
	e := "/settings/endpoints/" + strconv.FormatInt(ep.ID, 10)
	off := w.post(roleManager, e+"/disable", url.Values{"action_id": {w.actionID()}})
	if off.StatusCode != http.StatusSeeOther || off.Header.Get("Location") != e+"?done=disabled" {
		t.Fatalf("disable: %d %q", off.StatusCode, off.Header.Get("Location"))
	}
	for _, s := range []struct {
		name, path string
		form       url.Values
	}{
		{"the edit form as it is", e, url.Values{"url": {ep.URL}, "description": {"ERP"},
			"events": {string(domain.EventRejected), string(domain.EventApproved)}}},
		{"disable a disabled endpoint", e + "/disable", nil},
	} {
		t.Run(s.name, func(t *testing.T) {
			f := url.Values{"action_id": {w.actionID()}}
			for k, v := range s.form {
				f[k] = v
			}
			before := w.state(t)
			a := w.post(roleManager, s.path, f)
			if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != e+"?done=unchanged" {
				t.Fatalf("status %d, Location %q:\n%s", a.StatusCode, a.Header.Get("Location"), a.body)
			}
			if after := w.state(t); after != before {
				t.Errorf("wrote: before %+v, after %+v", before, after)
			}
			if _, err := w.st.AuditRecord(t.Context(), w.account.ID, f.Get("action_id")); domain.ErrorCode(err) != domain.ECodeNotFound {
				t.Errorf("audited: %v", err)
			}
			if page := w.get(roleManager, e+"?done=unchanged"); page.StatusCode != http.StatusOK || !strings.Contains(page.body, "Nothing was changed") {
				t.Errorf("the page after does not say nothing changed (%d)", page.StatusCode)
			}
		})
	}
}
