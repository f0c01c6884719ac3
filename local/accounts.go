package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

func cmdAccountCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("account create", flag.ContinueOnError)
	name := fs.String("name", "", "account name")
	countries := fs.String("countries", "", "ISO 3166-1 alpha-2 codes to enable, comma-separated")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *name == "" || *countries == "" {
		return usageError{"account create: --name and --countries are required"}
	}
	codes, err := parseCountries(*countries)
	if err != nil {
		return err
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	acct, err := createAccount(ctx, e, *name, codes)
	if err != nil {
		return err
	}
	fmt.Println(acct.ID)
	return nil
}

// parseCountries checks every code against the ISO catalogue before anything
// is written.
func parseCountries(list string) ([]country.Country, error) {
	cat := country.ISO()
	var out []country.Country
	for _, c := range strings.Split(list, ",") {
		if strings.TrimSpace(c) == "" {
			continue
		}
		cc, ok := cat.ByAlpha2(c)
		if !ok {
			return nil, usageError{fmt.Sprintf("Country %q is not a country the service knows", strings.TrimSpace(c))}
		}
		out = append(out, cc)
	}
	if len(out) == 0 {
		return nil, usageError{"at least one country is required"}
	}
	return out, nil
}

// createAccount creates the account and enables its countries with their
// default configuration.
func createAccount(ctx context.Context, e *env, name string, countries []country.Country) (domain.Account, error) {
	now := domain.Now()
	acct, err := e.store.CreateAccount(ctx, name, now)
	if err != nil {
		return domain.Account{}, err
	}
	for _, c := range countries {
		if err := e.store.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, c.Alpha2, c.Numeric, now)); err != nil {
			return domain.Account{}, err
		}
	}
	e.log.Info("account created", "account_id", acct.ID, "name", name)
	return acct, nil
}

func cmdAccountList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("account list", flag.ContinueOnError)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	accts, err := e.store.ListAccounts(ctx)
	if err != nil {
		return err
	}
	for _, a := range accts {
		fmt.Printf("%d\t%s\n", a.ID, a.Name)
	}
	return nil
}

func cmdKeyCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("key create", flag.ContinueOnError)
	account := fs.Int64("account", 0, "account id")
	perms := fs.String("permissions", "", "permissions, comma-separated")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *account <= 0 || *perms == "" {
		return usageError{"key create: --account and --permissions are required"}
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	key, err := createKey(ctx, e, *account, strings.Split(*perms, ","))
	if err != nil {
		return err
	}
	fmt.Println(key)
	return nil
}

func createKey(ctx context.Context, e *env, accountID int64, perms []string) (string, error) {
	for i := range perms {
		perms[i] = strings.TrimSpace(perms[i])
	}
	key, rec, err := auth.NewKey(accountID, perms, domain.Now())
	if err != nil {
		return "", err
	}
	if err := e.store.PutAPIKey(ctx, rec); err != nil {
		return "", err
	}
	e.log.Info("api key created", "account_id", accountID, "key_prefix", rec.Prefix, "permissions", perms)
	return key, nil
}

func cmdKeyRevoke(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("key revoke", flag.ContinueOnError)
	key := fs.String("key", "", "the API key")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *key == "" {
		return usageError{"key revoke: --key is required"}
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	if err := e.store.RevokeAPIKey(ctx, auth.HashKey(*key), domain.Now()); err != nil {
		return err
	}
	e.log.Info("api key revoked", "key_hash_prefix", auth.HashKey(*key)[:12])
	return nil
}
