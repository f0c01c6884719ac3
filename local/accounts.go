package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/domain"
)

// Accounts, API keys and operators: each command is an admin command
// document run by the admin handler, in-process or on a stage (--stage).

// adminCmd is an administering command being run: its flags, then where
// its documents go.
type adminCmd struct {
	fs *flag.FlagSet
	t  targetFlags
	// acct and lf are an account command's --account and list flags
	// (newAccountCmd).
	acct *int64
	lf   *listFlags
}

func newAdminCmd(name string) *adminCmd {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return &adminCmd{fs: fs, t: addTargetFlags(fs)}
}

// send sends doc, decoding the answer into out.
func (c *adminCmd) send(ctx context.Context, doc map[string]any, out any) error {
	target, err := adminFor(ctx, c.t)
	if err != nil {
		return err
	}
	if _, ok := doc["action_id"]; !ok && admin.Changes(fmt.Sprint(doc["command"])) {
		// One id per change: a retried invocation of it applies once.
		doc["action_id"] = "cli-" + randomID()
	}
	return runAdmin(ctx, target, c.t.actorName(), doc, out)
}

// newAccountCmd is an administering command on one account: --account,
// and --json/--table for what it lists.
func newAccountCmd(name string) *adminCmd {
	c := newAdminCmd(name)
	c.acct = idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	c.lf = addListFlags(c.fs)
	return c
}

// parseOnAccount reads the command's flags, refusing --json and --table
// unless it lists, and settles the account it is run on.
func (c *adminCmd) parseOnAccount(args []string, listing bool) (int64, *listFlags, error) {
	if err := parseListing(c.fs, args, c.lf, listing); err != nil {
		return 0, nil, err
	}
	acct, err := c.account(*c.acct)
	return acct, c.lf, err
}

// account is --account, or on the local store the demo account when none
// is given; a stage has no demo account.
func (c *adminCmd) account(account int64) (int64, error) {
	if account > 0 || c.t.remote() {
		if account <= 0 {
			return 0, usageError{c.fs.Name() + ": --account is required with --stage"}
		}
		return account, nil
	}
	return accountOrDemo(c.fs.Name(), account)
}

func cmdAccount(ctx context.Context, sub string, args []string) error {
	c := newAdminCmd("account " + sub)
	a, err := parseAccount(c, sub, args)
	if err != nil {
		return err
	}
	var out struct {
		Account  admin.AccountView   `json:"account"`
		Accounts []admin.AccountView `json:"accounts"`
	}
	switch sub {
	case "create":
		if a.name == "" || a.countries == "" {
			return usageError{"account create: --name and --countries are required"}
		}
		if err := c.send(ctx, a.doc, &out); err != nil {
			return err
		}
		fmt.Println(out.Account.ID)
	case "list":
		if err := c.send(ctx, a.doc, &out); err != nil {
			return err
		}
		for _, acct := range out.Accounts {
			fmt.Printf("%d\t%s\n", acct.ID, acct.Name)
		}
	case "get", "update":
		if a.id <= 0 {
			return usageError{"account " + sub + ": --id is required"}
		}
		a.doc["account_id"] = a.id
		if err := c.send(ctx, a.doc, &out); err != nil {
			return err
		}
		printLine(out.Account)
	default:
		return usageError{fmt.Sprintf("unknown command %q", "account "+sub)}
	}
	return nil
}

// accountArgs is an account command line: the admin function's document
// with each setting given, the --id, and --name and --countries as given
// (create requires both).
type accountArgs struct {
	doc             map[string]any
	id              int64
	name, countries string
}

func parseAccount(c *adminCmd, sub string, args []string) (accountArgs, error) {
	id := idFlag(c.fs, "id", "get, update: the account id")
	name := c.fs.String("name", "", "create, update: the account's name")
	countries := c.fs.String("countries", "", "create, update: ISO 3166-1 alpha-2 codes to enable, comma-separated")
	disable := c.fs.String("disable-countries", "", "update: codes to disable, comma-separated")
	interval := countFlag(c.fs, "review-interval-days", 0, "create, update: days between periodic reviews (0: none; left out: unchanged, or none on create)")
	fourEyes := c.fs.String("four-eyes", "\x00", "create, update: actions needing a second operator, comma-separated (empty: none)")
	declared := c.fs.String("declared-decisions", "", "create, update: true to accept decisions not signed with a passkey (default false)")
	sla := c.fs.String("sla-days", "\x00", "create, update: days a review may stay active per purpose, e.g. initial=5,periodic=10 (empty: none)")
	retention := countFlag(c.fs, "extended-retention-years", 0, "create, update: years to keep an entity after its relationship ends where its country's rule allows more, 5 to 10 (0: each rule's own)")
	threshold := countFlag(c.fs, "ownership-threshold", 0, "create, update: the share, in whole percent, from which a natural person is a beneficial owner by ownership: 25 (the law's) or lower")
	if err := parseFlags(c.fs, args); err != nil {
		return accountArgs{}, err
	}
	doc := map[string]any{"command": "account." + sub}
	if *declared != "" {
		b, err := strconv.ParseBool(*declared)
		if err != nil {
			return accountArgs{}, usageError{"--declared-decisions must be true or false, not " + strconv.Quote(*declared)}
		}
		doc["declared_decisions"] = b
	}
	if *sla != "\x00" {
		days, err := parseSLADays(*sla)
		if err != nil {
			return accountArgs{}, err
		}
		doc["sla_days"] = days
	}
	if *name != "" {
		doc["name"] = *name
	}
	if list := countryChanges(*countries, *disable); list != nil {
		doc["countries"] = list
	}
	if given(c.fs, "review-interval-days") {
		doc["review_interval_days"] = *interval
	}
	if given(c.fs, "extended-retention-years") { // 1 to 4 and over 10: the admin command refuses them
		doc["extended_retention_years"] = *retention
	}
	if given(c.fs, "ownership-threshold") { // over 25: the admin command refuses it
		doc["ownership_threshold_percent"] = *threshold
	}
	if *fourEyes != "\x00" {
		doc["four_eyes"] = splitList(*fourEyes)
	}
	return accountArgs{doc: doc, id: *id, name: *name, countries: *countries}, nil
}

// countryChanges are the countries to enable (their codes) then those to
// disable; nil for none.
func countryChanges(enable, disable string) []any {
	var list []any
	for _, code := range splitList(enable) {
		list = append(list, code)
	}
	for _, code := range splitList(disable) {
		list = append(list, map[string]any{"code": code, "active": false})
	}
	return list
}

func cmdKey(ctx context.Context, sub string, args []string) error {
	c := newAccountCmd("key " + sub)
	perms := c.fs.String("permissions", "", "create: permissions, comma-separated: "+strings.Join(domain.APIKeyPermissions(), ","))
	description := c.fs.String("description", "", "create: what the key is for")
	id := c.fs.String("id", "", "revoke, rotate: the key's id (key_…, from key list)")
	key := c.fs.String("key", "", "revoke, rotate: the key itself, instead of --id")
	overlap := durationFlag(c.fs, "overlap", 0, "rotate: how long the old key keeps working (default 24h; 0s: not at all)")
	acct, lf, err := c.parseOnAccount(args, sub == "list")
	if err != nil {
		return err
	}
	doc := map[string]any{"command": "key." + sub, "account_id": acct}
	if *key != "" {
		*id = auth.KeyID(auth.HashKey(*key))
	}
	var out struct {
		Key     string          `json:"key"`
		APIKey  admin.KeyView   `json:"api_key"`
		APIKeys []admin.KeyView `json:"api_keys"`
	}
	switch sub {
	case "create":
		if *perms == "" {
			return usageError{"key create: --permissions is required"}
		}
		doc["permissions"] = splitList(*perms)
		if *description != "" {
			doc["description"] = *description
		}
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		fmt.Println(out.Key) // shown this once
	case "list":
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		return printList(lf, out.APIKeys, keyColumns)
	case "revoke", "rotate":
		if *id == "" {
			return usageError{"key " + sub + ": --id or --key is required"}
		}
		doc["key_id"] = *id
		if given(c.fs, "overlap") {
			doc["overlap"] = overlap.String()
		}
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		if sub == "rotate" {
			fmt.Println(out.Key) // the new key, shown this once
		}
	default:
		return usageError{fmt.Sprintf("unknown command %q", "key "+sub)}
	}
	return nil
}

func cmdOperator(ctx context.Context, sub string, args []string) error {
	c := newAccountCmd("operator " + sub)
	id := idFlag(c.fs, "id", "update, disable: the operator's id")
	name := c.fs.String("name", "", "create, update: the operator's name")
	perms := c.fs.String("permissions", "\x00", "create, update: comma-separated: "+strings.Join(domain.OperatorPermissions(), ","))
	acct, lf, err := c.parseOnAccount(args, sub == "list")
	if err != nil {
		return err
	}
	doc := map[string]any{"command": "operator." + sub, "account_id": acct}
	if *name != "" {
		doc["name"] = *name
	}
	if *perms != "\x00" {
		doc["permissions"] = splitList(*perms)
	}
	if sub == "update" || sub == "disable" {
		if *id <= 0 {
			return usageError{"operator " + sub + ": --id is required"}
		}
		doc["operator_id"] = *id
	}
	var out struct {
		Operator  admin.OperatorView   `json:"operator"`
		Operators []admin.OperatorView `json:"operators"`
	}
	switch sub {
	case "create":
		if *name == "" {
			return usageError{"operator create: --account and --name are required"}
		}
		if _, ok := doc["permissions"]; !ok {
			doc["permissions"] = []string{}
		}
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		fmt.Println(out.Operator.ID)
	case "list":
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		return printList(lf, out.Operators, operatorColumns)
	case "update", "disable":
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		printLine(out.Operator)
	default:
		return usageError{fmt.Sprintf("unknown command %q", "operator "+sub)}
	}
	return nil
}

// keyColumns and operatorColumns are key list's and operator list's
// tables.
var keyColumns = []column[admin.KeyView]{
	{"ID", func(k admin.KeyView) string { return k.ID }},
	{"PREFIX", func(k admin.KeyView) string { return k.Prefix }},
	{"ACTIVE", func(k admin.KeyView) string { return yesNo(k.Active) }},
	{"CREATED", func(k admin.KeyView) string { return k.CreatedAt }},
	{"REVOKED", func(k admin.KeyView) string { return optCell(k.RevokedAt) }},
	{"PERMISSIONS", func(k admin.KeyView) string { return strings.Join(k.Permissions, ",") }},
	{"DESCRIPTION", func(k admin.KeyView) string { return short(k.Description) }},
}

var operatorColumns = []column[admin.OperatorView]{
	{"ID", func(o admin.OperatorView) string { return idCell(o.ID) }},
	{"NAME", func(o admin.OperatorView) string { return short(o.Name) }},
	{"ACTIVE", func(o admin.OperatorView) string { return yesNo(o.Active) }},
	{"CREATED", func(o admin.OperatorView) string { return o.CreatedAt }},
	{"PERMISSIONS", func(o admin.OperatorView) string { return strings.Join(o.Permissions, ",") }},
}

// createAccount opens an account with its countries through the admin
// handler, as account create does (tests).
func createAccount(ctx context.Context, e *env, name string, codes []string) (admin.AccountView, error) {
	return openAccount(ctx, e, map[string]any{"name": name, "countries": codes})
}

// createDeclaredAccount opens an account that accepts declared decisions
// from its creation (make local's demo account, tests): the setting is in
// the account.create record of its chain, which is where verification
// reads whether an unsigned decision of that time counts.
func createDeclaredAccount(ctx context.Context, e *env, name string, codes []string) (admin.AccountView, error) {
	return openAccount(ctx, e, map[string]any{"name": name, "countries": codes, "declared_decisions": true})
}

func openAccount(ctx context.Context, e *env, doc map[string]any) (admin.AccountView, error) {
	h, err := localAdmin(e)
	if err != nil {
		return admin.AccountView{}, err
	}
	var out struct {
		Account admin.AccountView `json:"account"`
	}
	doc["command"] = "account.create"
	err = runAdmin(ctx, inProcess{h}, "make local", doc, &out)
	return out.Account, err
}

// createKey issues a key through the admin handler, as key create does.
func createKey(ctx context.Context, e *env, accountID int64, perms []string) (string, error) {
	h, err := localAdmin(e)
	if err != nil {
		return "", err
	}
	var out struct {
		Key string `json:"key"`
	}
	err = runAdmin(ctx, inProcess{h}, "make local", map[string]any{"command": "key.create", "account_id": accountID, "permissions": perms}, &out)
	return out.Key, err
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseSLADays reads --sla-days: purpose=days pairs, comma-separated; the
// admin command checks the purposes and the ranges.
func parseSLADays(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, pair := range splitList(s) {
		k, v, ok := strings.Cut(pair, "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			return nil, usageError{"--sla-days takes purpose=days pairs, e.g. initial=5,periodic=10, not " + strconv.Quote(pair)}
		}
		out[strings.TrimSpace(k)] = n
	}
	return out, nil
}
