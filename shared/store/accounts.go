package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// The accounts table holds, in each account's partition, the account itself
// (its counters and policies), its countries, operators, registration
// guards and the create lock, told apart by their sort keys.
const (
	skAccount       = "ACCOUNT"
	skCountryPrefix = "COUNTRY#"
)

type accountItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	SK        string `dynamo:"sk,range"`
	Name      string `dynamo:"name"`
	CreatedAt string `dynamo:"created_at"`
	// Counters kept in the same transaction as every entity create: they give
	// the list endpoint its totals and its page ranges without counting,
	// and the next entity its id. A create's commit turn (create_lock.go).
	EntityCount   int64            `dynamo:"entity_count"`
	CountryCounts map[string]int64 `dynamo:"country_counts,allowempty"`
	CreateTurn    string           `dynamo:"create_turn,omitempty"`
	TurnUntil     int64            `dynamo:"create_turn_until,omitempty"`
	// Review policies.
	FourEyes           []string       `dynamo:"four_eyes,set,omitempty"`
	ReviewIntervalDays int            `dynamo:"review_interval_days,omitempty"`
	DeclaredDecisions  bool           `dynamo:"declared_decisions,omitempty"`
	SLADays            map[string]int `dynamo:"sla_days,omitempty"`
	// ExtendedRetentionYears: absent when 0 (every country's own rule).
	ExtendedRetentionYears int `dynamo:"extended_retention_years,omitempty"`
	// OwnershipThresholdPercent: absent when 0 (the law's 25 %).
	OwnershipThresholdPercent int `dynamo:"ownership_threshold_percent,omitempty"`
	// Version moves with every change of the name, the policies or the
	// countries (account_update.go); absent (items from before it) is 0.
	// Creates never move it.
	Version int64 `dynamo:"version,omitempty"`
}

// sequenceLength is how many entities the account's sequence holds, or,
// with a country, that country's sequence: the last place in it.
func (it accountItem) sequenceLength(country string) int64 {
	if country == "" {
		return it.EntityCount
	}
	return it.CountryCounts[country]
}

type countryItem struct {
	AccountID           int64             `dynamo:"account_id,hash"`
	SK                  string            `dynamo:"sk,range"`
	CountryCode         string            `dynamo:"country_code"`
	CountryID           int               `dynamo:"country_id"`
	Active              bool              `dynamo:"active"`
	RegistrationPattern string            `dynamo:"registration_pattern,omitempty"`
	RegistrationMessage string            `dynamo:"registration_message,omitempty"`
	IntakeChecks        []intakeCheckItem `dynamo:"intake_checks,omitempty"`
	UpdatedAt           string            `dynamo:"updated_at"`
}

// CreateAccount creates an account with zeroed entity counters (seed data
// and tests; administrators open accounts with OpenAccount).
func (s *Store) CreateAccount(ctx context.Context, name string, now time.Time) (domain.Account, error) {
	return s.OpenAccount(ctx, domain.Account{Name: name, CreatedAt: now}, nil, nil)
}

// OpenAccount creates an account, its country configurations and, when
// audit is given, the record of its creation, in one transaction, and
// returns the account with its new id.
func (s *Store) OpenAccount(ctx context.Context, a domain.Account, countries []domain.CountryConfig, audit *domain.AuditRecord) (domain.Account, error) {
	if a.Name == "" {
		return domain.Account{}, domain.Invalid("name", "can't be blank")
	}
	id, err := s.nextIDs(ctx, seqAccount, 1)
	if err != nil {
		return domain.Account{}, err
	}
	if err := domain.CheckScopedAccount(id); err != nil {
		return domain.Account{}, fmt.Errorf("open account: %w", err)
	}
	a.ID = id
	it := accountItem{AccountID: id, SK: skAccount, Name: a.Name, CreatedAt: fmtTime(a.CreatedAt), CountryCounts: map[string]int64{},
		FourEyes: a.Settings.FourEyes, ReviewIntervalDays: a.Settings.ReviewIntervalDays,
		DeclaredDecisions: a.Settings.DeclaredDecisions, SLADays: slaItem(a.Settings.SLADays),
		ExtendedRetentionYears: a.Settings.ExtendedRetentionYears, OwnershipThresholdPercent: a.Settings.OwnershipThresholdPercent}
	if audit != nil {
		a := *audit
		a.AccountID = id
		audit = &a
	}
	err = s.auditTxMaybe(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(s.table(schema.Accounts).Put(it).If("attribute_not_exists(account_id)"))
		for _, c := range countries {
			c.AccountID = id
			tx.Put(s.table(schema.Accounts).Put(newCountryItem(c)))
		}
		if rec != nil {
			tx.Put(rec)
			// The audit record lives in the new account's partition, so it
			// cannot tell a repeated action: this marker, keyed by the action
			// id alone, does.
			tx.Put(s.table(schema.Accounts).Put(actionMarkerItem{SK: skActionPrefix + audit.ActionID, OpenedAccount: id}).If("attribute_not_exists(sk)"))
		}
	})
	switch {
	case audit != nil && (cancelledAt(err, len(countries)+1) || cancelledAt(err, len(countries)+2)):
		return domain.Account{}, domain.ErrDuplicateAction
	case err != nil:
		return domain.Account{}, fmt.Errorf("create account: %w", err)
	}
	return a, nil
}

// skActionPrefix keys the markers of actions that open accounts, in the
// partition of account 0 (no account has id 0).
const skActionPrefix = "ACTION#"

type actionMarkerItem struct {
	AccountID     int64  `dynamo:"account_id,hash"`
	SK            string `dynamo:"sk,range"`
	OpenedAccount int64  `dynamo:"opened_account"`
}

// AccountOpenedBy returns the id of the account the action opened.
func (s *Store) AccountOpenedBy(ctx context.Context, actionID string) (int64, error) {
	var it actionMarkerItem
	err := s.table(schema.Accounts).Get("account_id", 0).Range("sk", dynamo.Equal, skActionPrefix+actionID).Consistent(true).One(ctx, &it)
	if err != nil {
		return 0, wrap(notFound(err, "Action"), "account opened by %s", actionID)
	}
	return it.OpenedAccount, nil
}

// Account returns one account.
func (s *Store) Account(ctx context.Context, id int64) (domain.Account, error) {
	it, err := s.accountItem(ctx, id)
	if err != nil {
		return domain.Account{}, err
	}
	return it.account(), nil
}

func (it accountItem) account() domain.Account {
	return domain.Account{ID: it.AccountID, Name: it.Name, CreatedAt: parseTime(it.CreatedAt),
		Settings: domain.AccountSettings{FourEyes: it.FourEyes, ReviewIntervalDays: it.ReviewIntervalDays,
			DeclaredDecisions: it.DeclaredDecisions, SLADays: slaDomain(it.SLADays),
			ExtendedRetentionYears: it.ExtendedRetentionYears, OwnershipThresholdPercent: it.OwnershipThresholdPercent}, Version: it.Version}
}

func slaItem(m map[domain.ReviewPurpose]int) map[string]int {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

func slaDomain(m map[string]int) map[domain.ReviewPurpose]int {
	if len(m) == 0 {
		return nil
	}
	out := make(map[domain.ReviewPurpose]int, len(m))
	for k, v := range m {
		out[domain.ReviewPurpose(k)] = v
	}
	return out
}

// setPolicies sets an account item's review policies on an update: the
// ones kept as sets or maps are removed when empty, as DynamoDB keeps no
// empty set; the retention extension when 0, as a create omits it.
func setPolicies(u *dynamo.Update, set domain.AccountSettings) {
	u.Set("review_interval_days", set.ReviewIntervalDays).Set("declared_decisions", set.DeclaredDecisions)
	if len(set.FourEyes) > 0 {
		u.SetSet("four_eyes", set.FourEyes)
	} else {
		u.Remove("four_eyes")
	}
	if len(set.SLADays) > 0 {
		u.Set("sla_days", slaItem(set.SLADays))
	} else {
		u.Remove("sla_days")
	}
	if set.ExtendedRetentionYears != 0 {
		u.Set("extended_retention_years", set.ExtendedRetentionYears)
	} else {
		u.Remove("extended_retention_years")
	}
	if set.OwnershipThresholdPercent != 0 {
		u.Set("ownership_threshold_percent", set.OwnershipThresholdPercent)
	} else {
		u.Remove("ownership_threshold_percent")
	}
}

// PutAccountSettings replaces an account's review policies (seed data and
// tests), unconditionally; it moves the version, so an UpdateAccount read
// before it is refused.
func (s *Store) PutAccountSettings(ctx context.Context, accountID int64, set domain.AccountSettings) error {
	u := s.table(schema.Accounts).Update("account_id", accountID).Range("sk", skAccount).
		Add("version", 1).If("attribute_exists(account_id)")
	setPolicies(u, set)
	err := u.Run(ctx)
	if isCondFailed(err) {
		return domain.Errorf(domain.ECodeNotFound, "Account not found.")
	}
	return wrap(err, "put settings of account %d", accountID)
}

func (s *Store) accountItem(ctx context.Context, id int64) (accountItem, error) {
	var it accountItem
	err := s.table(schema.Accounts).Get("account_id", id).Range("sk", dynamo.Equal, skAccount).Consistent(true).One(ctx, &it)
	if err != nil {
		return it, wrap(notFound(err, "Account"), "get account %d", id)
	}
	return it, nil
}

// ListAccounts returns every account, by id. It scans the accounts table, so
// it is for operators' tools, never for a request path.
func (s *Store) ListAccounts(ctx context.Context) ([]domain.Account, error) {
	var items []accountItem
	err := s.table(schema.Accounts).Scan().Filter("sk = ?", skAccount).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	out := make([]domain.Account, 0, len(items))
	for _, it := range items {
		out = append(out, it.account())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// PutCountryConfig creates or replaces an account's configuration of a country.
func (s *Store) PutCountryConfig(ctx context.Context, c domain.CountryConfig) error {
	// The account must exist: a configuration never creates a tenant.
	err := s.db.WriteTx().
		Check(s.table(schema.Accounts).Check("account_id", c.AccountID).Range("sk", skAccount).IfExists()).
		Put(s.table(schema.Accounts).Put(newCountryItem(c))).
		Run(ctx)
	if isTxCondFailed(err) {
		return domain.Errorf(domain.ECodeNotFound, "Account not found.")
	}
	return wrap(err, "put country %s for account %d", c.CountryCode, c.AccountID)
}

func newCountryItem(c domain.CountryConfig) countryItem {
	return countryItem{
		AccountID:           c.AccountID,
		SK:                  skCountryPrefix + c.CountryCode,
		CountryCode:         c.CountryCode,
		CountryID:           c.CountryID,
		Active:              c.Active,
		RegistrationPattern: c.RegistrationPattern,
		RegistrationMessage: c.RegistrationMessage,
		IntakeChecks:        intakeCheckItems(c.IntakeChecks),
		UpdatedAt:           fmtTime(c.UpdatedAt),
	}
}

// CountryConfigs returns every country configured for the account, by code,
// read strongly: the account's updates compare them with what they ask
// (an update that changes nothing writes nothing) and write them back.
func (s *Store) CountryConfigs(ctx context.Context, accountID int64) ([]domain.CountryConfig, error) {
	var items []countryItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.BeginsWith, skCountryPrefix).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list countries of account %d: %w", accountID, err)
	}
	out := make([]domain.CountryConfig, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}

// CountryConfig returns the account's configuration of a country (ISO
// alpha-2), or not_found when the account has none.
func (s *Store) CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error) {
	var it countryItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.Equal, skCountryPrefix+code).One(ctx, &it)
	if err != nil {
		return domain.CountryConfig{}, wrap(notFound(err, "Country configuration"), "get country %s of account %d", code, accountID)
	}
	return it.domain(), nil
}

func (it countryItem) domain() domain.CountryConfig {
	return domain.CountryConfig{
		AccountID:           it.AccountID,
		CountryCode:         it.CountryCode,
		CountryID:           it.CountryID,
		Active:              it.Active,
		RegistrationPattern: it.RegistrationPattern,
		RegistrationMessage: it.RegistrationMessage,
		IntakeChecks:        intakeChecks(it.IntakeChecks),
		UpdatedAt:           parseTime(it.UpdatedAt),
	}
}
