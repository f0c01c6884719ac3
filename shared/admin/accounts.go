package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// maxCountries bounds the countries one command sets: they are written in
// one transaction with the account and its audit record.
const maxCountries = 50

// CountryInput enables (or, with "active": false, disables) a country for
// an account. "SA" alone is short for {"code": "SA"}: the country's default
// registration rule and intake checks.
type CountryInput struct {
	Code   string `json:"code"`
	Active *bool  `json:"active,omitempty"`
	// RegistrationPattern is a regular expression the whole registration
	// number must match; RegistrationMessage is the message when it does
	// not. Both or neither.
	RegistrationPattern string `json:"registration_pattern,omitempty"`
	RegistrationMessage string `json:"registration_message,omitempty"`
}

// UnmarshalJSON takes a code alone or the object.
func (ci *CountryInput) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &ci.Code)
	}
	type plain CountryInput
	var p plain
	if err := strictjson.Decode(b, &p); err != nil {
		return domain.Invalid("countries", `each must be a country code such as "SA" or an object {"code", "active", "registration_pattern", "registration_message"}`)
	}
	*ci = CountryInput(p)
	return nil
}

type accountFields struct {
	common
	AccountID          int64          `json:"account_id" strict:"id"`
	Name               *string        `json:"name" text:"name"`
	Countries          []CountryInput `json:"countries"`
	ReviewIntervalDays *int           `json:"review_interval_days" strict:"min=0,max=3650"`
	FourEyes           *[]string      `json:"four_eyes"`
	DeclaredDecisions  *bool          `json:"declared_decisions"`
	// SLADays: days a review of each purpose may stay active before the
	// queue tags it late ({} clears them).
	SLADays *map[string]int `json:"sla_days"`
	// ExtendedRetentionYears: 0, or 5 to 10 (applyAccountFields refuses
	// 1 to 4, shorter than every country's rule).
	ExtendedRetentionYears *int `json:"extended_retention_years" strict:"min=0,max=10"`
	// OwnershipThresholdPercent: the law's 25 (0 says the same) or a lower
	// whole percent, 1 to 24 (applyAccountFields refuses more than 25: a
	// higher one would leave out owners the law names).
	OwnershipThresholdPercent *int `json:"ownership_threshold_percent" strict:"min=0,max=100"`
}

func (h *Handler) accountCreate(ctx context.Context, c *call) (any, error) {
	var p accountFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if p.AccountID != 0 {
		return nil, domain.Invalid("account_id", "is given by the service: leave it out")
	}
	a := domain.Account{CreatedAt: c.now}
	if p.Name == nil {
		return nil, domain.Invalid("name", "is required")
	}
	if err := applyAccountFields(&a, p); err != nil {
		return nil, err
	}
	if len(p.Countries) == 0 {
		return nil, domain.Invalid("countries", `is required: enable at least one, such as ["SA"]`)
	}
	countries, err := countryConfigs(0, p.Countries, nil, c)
	if err != nil {
		return nil, err
	}
	audit := c.audit(0, domain.ActionAccountCreate, nil, domain.AccountSnapshot(a, countries))
	opened, err := h.Store.OpenAccount(ctx, a, countries, &audit)
	if errors.Is(err, domain.ErrDuplicateAction) {
		// A repeat of the action (a retried invocation) answers what the
		// first did.
		id, err := h.Store.AccountOpenedBy(ctx, c.ActionID)
		if err != nil {
			return nil, err
		}
		if opened, err = h.Store.Account(ctx, id); err != nil {
			return nil, err
		}
		if countries, err = h.Store.CountryConfigs(ctx, id); err != nil {
			return nil, err
		}
		return map[string]any{"account": viewAccount(opened, countries)}, nil
	}
	if err != nil {
		return nil, err
	}
	a = opened
	for i := range countries {
		countries[i].AccountID = a.ID
	}
	return map[string]any{"account": viewAccount(a, countries)}, nil
}

func (h *Handler) accountList(ctx context.Context, c *call) (any, error) {
	var p struct{ common }
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	accts, err := h.Store.ListAccounts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]AccountView, 0, len(accts))
	for _, a := range accts {
		out = append(out, viewAccount(a, nil))
	}
	return map[string]any{"accounts": out}, nil
}

func (h *Handler) accountGet(ctx context.Context, c *call) (any, error) {
	id, err := h.accountOnly(ctx, c)
	if err != nil {
		return nil, err
	}
	a, err := h.Store.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	countries, err := h.Store.CountryConfigs(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"account": viewAccount(a, countries)}, nil
}

// accountUpdate changes what the command names and leaves the rest: the
// name, the review policies, and each country listed (enabled, disabled or
// given a rule); countries not listed stay as they are, and so do listed
// ones already as asked (only the others are written, and audited).
// The write is conditioned on the account's version as read: an update
// that landed meanwhile makes this one a Conflict. An update that changes
// nothing writes nothing and answers the account with "changed": false.
func (h *Handler) accountUpdate(ctx context.Context, c *call) (any, error) {
	var p accountFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	a, err := h.account(ctx, p.AccountID)
	if err != nil {
		return nil, err
	}
	existing, err := h.Store.CountryConfigs(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	read := a
	before := domain.AccountSnapshot(a, existing)
	if err := applyAccountFields(&a, p); err != nil {
		return nil, err
	}
	listed, err := countryConfigs(a.ID, p.Countries, existing, c)
	if err != nil {
		return nil, err
	}
	changed := changedCountries(listed, existing)
	if len(changed) == 0 && sameAccount(read, a) {
		if err := domain.ActionIDUnused(ctx, h.Store, a.ID, c.ActionID); err != nil {
			return nil, err
		}
		return changeAnswer("account", viewAccount(read, existing), false), nil
	}
	if err := h.Store.UpdateAccount(ctx, a, changed, c.audit(a.ID, domain.ActionAccountUpdate, before, domain.AccountSnapshot(a, changed))); err != nil {
		return nil, err
	}
	all, err := h.Store.CountryConfigs(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	return changeAnswer("account", viewAccount(a, all), true), nil
}

// sameAccount reports whether an update left the account's name and
// review policies as they were.
func sameAccount(a, b domain.Account) bool {
	return a.Name == b.Name && a.Settings.ReviewIntervalDays == b.Settings.ReviewIntervalDays &&
		sameSet(a.Settings.FourEyes, b.Settings.FourEyes) && a.Settings.DeclaredDecisions == b.Settings.DeclaredDecisions &&
		maps.Equal(a.Settings.SLADays, b.Settings.SLADays) && a.Settings.ExtendedRetentionYears == b.Settings.ExtendedRetentionYears &&
		a.Settings.OwnershipThresholdPercent == b.Settings.OwnershipThresholdPercent
}

// changedCountries are the configurations listed that differ from the
// account's: a country it has not, or one enabled, disabled or given a
// rule other than its own.
func changedCountries(listed, existing []domain.CountryConfig) []domain.CountryConfig {
	var out []domain.CountryConfig
	for _, cfg := range listed {
		i := slices.IndexFunc(existing, func(e domain.CountryConfig) bool { return e.CountryCode == cfg.CountryCode })
		if i >= 0 {
			e := existing[i]
			if e.Active == cfg.Active && e.RegistrationPattern == cfg.RegistrationPattern && e.RegistrationMessage == cfg.RegistrationMessage {
				continue
			}
		}
		out = append(out, cfg)
	}
	return out
}

// applyAccountFields validates and sets the name and review policies given.
func applyAccountFields(a *domain.Account, p accountFields) error {
	if p.Name != nil {
		name := strings.TrimSpace(*p.Name)
		if err := freetext.Check("name", name, freetext.Name, true); err != nil {
			return err
		}
		a.Name = name
	}
	if p.ReviewIntervalDays != nil { // 0 (no periodic reviews) to ten years: its strict tag
		a.Settings.ReviewIntervalDays = *p.ReviewIntervalDays
	}
	if p.FourEyes != nil {
		var list []string
		for _, act := range *p.FourEyes {
			if !fourEyesAction(act) {
				return domain.Invalid("four_eyes", fmt.Sprintf("%s is not an action; use %s", logging.Quoted(act), strings.Join(fourEyesActions(), ", ")))
			}
			if !slices.Contains(list, act) {
				list = append(list, act)
			}
		}
		slices.Sort(list)
		a.Settings.FourEyes = list
	}
	if p.DeclaredDecisions != nil {
		a.Settings.DeclaredDecisions = *p.DeclaredDecisions
	}
	if p.SLADays != nil {
		sla, err := slaDays(*p.SLADays)
		if err != nil {
			return err
		}
		a.Settings.SLADays = sla
	}
	if p.ExtendedRetentionYears != nil { // over 10 or negative: its strict tag
		n := *p.ExtendedRetentionYears
		if n != 0 && n < minExtendedRetentionYears {
			return domain.Invalid("extended_retention_years", fmt.Sprintf("must be 0 (each country's own rule) or from %d to 10 years, not %d", minExtendedRetentionYears, n))
		}
		a.Settings.ExtendedRetentionYears = n
	}
	if p.OwnershipThresholdPercent != nil { // negative or over 100: its strict tag
		n := *p.OwnershipThresholdPercent
		if n > domain.DefaultOwnershipThresholdPercent {
			return domain.Invalid("ownership_threshold_percent", fmt.Sprintf("must be the law's %d or a lower whole percent (1 to %d), not %d: a higher threshold would leave out owners the law names",
				domain.DefaultOwnershipThresholdPercent, domain.DefaultOwnershipThresholdPercent, n))
		}
		if n == domain.DefaultOwnershipThresholdPercent {
			n = 0 // the law's, kept as no setting
		}
		a.Settings.OwnershipThresholdPercent = n
	}
	return nil
}

// minExtendedRetentionYears is the shortest extension: no country's rule
// keeps less (the EU's 5 years), so fewer would extend nothing.
const minExtendedRetentionYears = 5

// maxSLADays bounds a purpose's SLA: a year is already no deadline.
const maxSLADays = 365

// slaDays reads the SLA days per review purpose: each a purpose the
// service knows, 1 to 365 days.
func slaDays(in map[string]int) (map[domain.ReviewPurpose]int, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := map[domain.ReviewPurpose]int{}
	for k, days := range in {
		p := domain.ReviewPurpose(k)
		if !slices.Contains(domain.ReviewPurposes(), p) {
			return nil, domain.Invalid("sla_days", fmt.Sprintf("%s is not a review purpose; use %s", logging.Quoted(k), purposeList()))
		}
		if days < 1 || days > maxSLADays {
			return nil, domain.Invalid("sla_days", fmt.Sprintf("%s must be 1 to %d days, not %d", k, maxSLADays, days))
		}
		out[p] = days
	}
	return out, nil
}

func purposeList() string {
	var out []string
	for _, p := range domain.ReviewPurposes() {
		out = append(out, string(p))
	}
	return strings.Join(out, ", ")
}

func fourEyesActions() []string {
	out := []string{domain.FourEyesApproveHighRisk}
	for _, a := range domain.Actions() {
		out = append(out, string(a))
	}
	return out
}

func fourEyesAction(s string) bool { return slices.Contains(fourEyesActions(), s) }

// countryConfigs turns the countries a command lists into configurations:
// each known to the catalogue, listed once, with a rule that compiles. A
// country the account already has keeps its rule and checks unless the
// command gives a rule.
func countryConfigs(accountID int64, in []CountryInput, existing []domain.CountryConfig, c *call) ([]domain.CountryConfig, error) {
	if len(in) > maxCountries {
		return nil, domain.Invalid("countries", fmt.Sprintf("at most %d in one command", maxCountries))
	}
	cat := country.ISO()
	var out []domain.CountryConfig
	seen := map[string]bool{}
	for _, ci := range in {
		cc, ok := cat.ByAlpha2(ci.Code)
		if !ok {
			return nil, domain.Invalid("countries", fmt.Sprintf("Country %q is not a country the service knows", strings.TrimSpace(ci.Code)))
		}
		if seen[cc.Alpha2] {
			return nil, domain.Invalid("countries", fmt.Sprintf("%s is listed twice", cc.Alpha2))
		}
		seen[cc.Alpha2] = true
		cfg := domain.DefaultCountryConfig(accountID, cc.Alpha2, cc.Numeric, c.now)
		if i := slices.IndexFunc(existing, func(e domain.CountryConfig) bool { return e.CountryCode == cc.Alpha2 }); i >= 0 {
			cfg = existing[i]
			cfg.UpdatedAt = c.now
		}
		if ci.Active != nil {
			cfg.Active = *ci.Active
		} else {
			cfg.Active = true
		}
		if ci.RegistrationPattern != "" || ci.RegistrationMessage != "" {
			if ci.RegistrationPattern == "" || ci.RegistrationMessage == "" {
				return nil, domain.Invalid("countries", fmt.Sprintf("%s: registration_pattern and registration_message go together", cc.Alpha2))
			}
			if err := checkRule(cc.Alpha2, ci.RegistrationPattern, ci.RegistrationMessage); err != nil {
				return nil, err
			}
			cfg.RegistrationPattern, cfg.RegistrationMessage = ci.RegistrationPattern, ci.RegistrationMessage
		}
		out = append(out, cfg)
	}
	return out, nil
}

// checkRule refuses a registration rule that does not compile, would
// accept a number that cannot be stored, or says nothing useful.
func checkRule(code, pattern, message string) error {
	if len(pattern) > 200 {
		return domain.Invalid("countries", fmt.Sprintf("%s: registration_pattern is longer than 200 characters", code))
	}
	if !strings.HasPrefix(pattern, "^") || !strings.HasSuffix(pattern, "$") {
		return domain.Invalid("countries", fmt.Sprintf("%s: registration_pattern must match the whole number: start it with ^ and end it with $", code))
	}
	if _, err := regexp.Compile(pattern); err != nil {
		return domain.Invalid("countries", fmt.Sprintf("%s: registration_pattern is not a regular expression: %v", code, err))
	}
	return freetext.Check("countries", message, freetext.Description, true)
}
