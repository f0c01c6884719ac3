package settings

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

type countryRow struct {
	Config domain.CountryConfig
	Name   string
}

type countriesPage struct {
	Rows []countryRow
	// Choices are the catalogue's countries not active in the account.
	Choices []country.Country
	Notice  string
	Problem string
}

func (h *handler) countryList(c *webpage.Call) {
	h.showCountries(c, http.StatusOK, "")
}

func (h *handler) showCountries(c *webpage.Call, status int, problem string) {
	cfgs, err := h.d.Countries.CountryConfigs(c.R.Context(), c.Session.AccountID)
	if err != nil {
		c.Fail(err)
		return
	}
	p := countriesPage{Notice: notice(c.R), Problem: problem}
	slices.SortFunc(cfgs, func(a, b domain.CountryConfig) int { return strings.Compare(a.CountryCode, b.CountryCode) })
	active := map[string]bool{}
	for _, cfg := range cfgs {
		name := cfg.CountryCode
		if cc, ok := h.d.Catalogue.ByAlpha2(cfg.CountryCode); ok {
			name = cc.Name
		}
		p.Rows = append(p.Rows, countryRow{Config: cfg, Name: name})
		active[cfg.CountryCode] = cfg.Active
	}
	if c.Session.Can(domain.PermAccountSettingsManage) {
		for _, cc := range h.countries {
			if !active[cc.Alpha2] {
				p.Choices = append(p.Choices, cc)
			}
		}
	}
	c.Render(status, "countries", "Countries", "countries", p)
}

// countryChange enables or disables one country of the catalogue for the
// account. A country enabled again keeps its rule and checks; a new one
// gets the defaults, as the admin command gives them.
func (h *handler) countryChange(c *webpage.Call) {
	ctx := c.R.Context()
	cc, ok := h.d.Catalogue.ByAlpha2(c.R.PostForm.Get("code"))
	if !ok {
		h.showCountries(c, http.StatusUnprocessableEntity, "Choose a country of the list.")
		return
	}
	var active bool
	switch c.R.PostForm.Get("active") {
	case "true":
		active = true
	case "false":
	default:
		h.showCountries(c, http.StatusUnprocessableEntity, "Choose to enable or to disable the country.")
		return
	}
	acct, err := h.d.Countries.Account(ctx, c.Session.AccountID)
	if err != nil {
		c.Fail(err)
		return
	}
	existing, err := h.d.Countries.CountryConfigs(ctx, c.Session.AccountID)
	if err != nil {
		c.Fail(err)
		return
	}
	now := h.d.Clock.Now()
	var before []domain.CountryConfig
	cfg := domain.DefaultCountryConfig(acct.ID, cc.Alpha2, cc.Numeric, now)
	if i := slices.IndexFunc(existing, func(e domain.CountryConfig) bool { return e.CountryCode == cc.Alpha2 }); i >= 0 {
		before = existing[i : i+1]
		cfg = existing[i]
		cfg.UpdatedAt = now
	} else if !active {
		h.showCountries(c, http.StatusUnprocessableEntity, cc.Name+" is not enabled for this account.")
		return
	}
	done := c.Base + "/countries?done=countries"
	if len(before) == 1 && before[0].Active == active {
		// Already so (a form sent twice, or two people at once): nothing to write.
		webpage.Redirect(c.W, done)
		return
	}
	cfg.Active = active
	a := c.Actor()
	err = h.d.Countries.UpdateAccount(ctx, acct, []domain.CountryConfig{cfg}, countriesAudit(a, c.Session.Operator, acct, before, []domain.CountryConfig{cfg}, now))
	if err != nil && !errors.Is(err, domain.ErrDuplicateAction) {
		c.Fail(err)
		return
	}
	c.Log.Info("country setting changed", "country", cfg.CountryCode, "active", active)
	webpage.Redirect(c.W, done)
}

// countriesAudit is the audit record of an operator's change to the
// account's countries: account.update, as an administrator's is, naming
// the operator.
func countriesAudit(a domain.Actor, op domain.Operator, acct domain.Account, before, after []domain.CountryConfig, now time.Time) domain.AuditRecord {
	return domain.AuditRecord{
		AccountID: a.AccountID, ActionID: a.ActionID, Action: domain.ActionAccountUpdate,
		OperatorID: op.ID, OperatorName: op.Name, RequestID: a.RequestID,
		Before: domain.AccountSnapshot(acct, before), After: domain.AccountSnapshot(acct, after), At: now,
	}
}
