package settings_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestCountries: read-only for everyone; enabling and disabling a country
// of the catalogue, audited as account.update naming the operator.
func TestCountries(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	config := func(code string) (domain.CountryConfig, bool) {
		cs, err := w.st.CountryConfigs(ctx, w.account.ID)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(cs, func(c domain.CountryConfig) bool { return c.CountryCode == code })
		if i < 0 {
			return domain.CountryConfig{}, false
		}
		return cs[i], true
	}

	t.Run("read only", func(t *testing.T) {
		a := w.get(roleReader, "/settings/countries")
		for _, want := range []string{"<code>SA</code> Saudi Arabia", domain.SaudiRegistrationMessage, "^7[0-9]{9}$", "registry_lookup", "wathq", "opensanctions", "active"} {
			if !strings.Contains(a.body, want) {
				t.Errorf("no %q", want)
			}
		}
		if f := changeForms(a.body); len(f) != 0 {
			t.Errorf("forms %v", f)
		}
	})

	steps := []struct {
		name, code, active string
		check              func(t *testing.T)
	}{
		{"enable a new country", "AE", "true", func(t *testing.T) {
			c, ok := config("AE")
			if !ok || !c.Active || c.CountryID != 784 || c.RegistrationPattern != domain.GenericRegistrationPattern || len(c.IntakeChecks) != 1 {
				t.Errorf("AE %+v", c)
			}
		}},
		{"disable one", "SA", "false", func(t *testing.T) {
			if c, _ := config("SA"); c.Active || c.RegistrationPattern != domain.SaudiRegistrationPattern || len(c.IntakeChecks) != 2 {
				t.Errorf("SA %+v", c)
			}
		}},
		{"enable it again, its rule kept", "sa", "true", func(t *testing.T) {
			if c, _ := config("SA"); !c.Active || c.RegistrationPattern != domain.SaudiRegistrationPattern {
				t.Errorf("SA %+v", c)
			}
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			form := url.Values{"code": {s.code}, "active": {s.active}, "action_id": {w.actionID()}}
			a := w.do(withRequestID(w.formRequest(roleSettings, "/settings/countries", form), "req-country"))
			if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != "/settings/countries?done=countries" {
				t.Fatalf("status %d, Location %q:\n%s", a.StatusCode, a.Header.Get("Location"), a.body)
			}
			s.check(t)
			rec, err := w.st.AuditRecord(ctx, w.account.ID, form.Get("action_id"))
			op := w.ops[roleSettings]
			if err != nil || rec.Action != domain.ActionAccountUpdate || rec.OperatorID != op.ID || rec.OperatorName != op.Name || rec.RequestID != "req-country" {
				t.Fatalf("audit %+v %v", rec, err)
			}
			after, _ := rec.After["countries"].([]any)
			if len(after) != 1 || !strings.EqualFold(after[0].(map[string]any)["code"].(string), s.code) || after[0].(map[string]any)["active"] != (s.active == "true") {
				t.Errorf("audit after %+v", rec.After)
			}
			if acct, err := w.st.Account(ctx, w.account.ID); err != nil || acct.Name != w.account.Name {
				t.Errorf("account %+v %v", acct, err)
			}
			if page := w.get(roleSettings, "/settings/countries?done=countries"); !strings.Contains(page.body, "were saved") {
				t.Error("no word that it was saved")
			}
			// The same form again: nothing more written.
			before := w.state(t)
			if again := w.post(roleSettings, "/settings/countries", form); again.StatusCode != http.StatusSeeOther {
				t.Errorf("repeat: %d", again.StatusCode)
			}
			if w.state(t) != before {
				t.Error("a repeat wrote again")
			}
		})
	}

	t.Run("offered", func(t *testing.T) {
		a := w.get(roleSettings, "/settings/countries")
		if strings.Contains(a.body, `<option value="AE">`) || strings.Contains(a.body, `<option value="SA">`) || !strings.Contains(a.body, `<option value="KW">Kuwait (KW)</option>`) {
			t.Error("the enable form offers an active country, or not an inactive one")
		}
		if strings.Count(a.body, `<option value=`) < 240 {
			t.Errorf("only %d countries offered", strings.Count(a.body, `<option value=`))
		}
	})

	for _, tc := range []struct {
		name string
		form url.Values
		says string
	}{
		{"an unknown code", url.Values{"code": {"ZZ"}, "active": {"true"}}, "Choose a country"},
		{"no code", url.Values{"active": {"true"}}, "Choose a country"},
		{"a name, not a code", url.Values{"code": {"Kuwait"}, "active": {"true"}}, "Choose a country"},
		{"neither on nor off", url.Values{"code": {"KW"}, "active": {"yes"}}, "enable or to disable"},
		{"disable one never enabled", url.Values{"code": {"KW"}, "active": {"false"}}, "Kuwait is not enabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.state(t)
			a := w.post(roleSettings, "/settings/countries", tc.form)
			if a.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(a.body, tc.says) {
				t.Errorf("status %d:\n%s", a.StatusCode, a.body)
			}
			if w.state(t) != before {
				t.Error("changed")
			}
		})
	}
}
