package main

import (
	"context"
	"fmt"
	"os"

	"github.com/evs-kyb/evs/shared/admin"
)

// cmdPortal is portal link: an enrolment link to the console for one
// operator (their first passkey, or a new one after losing them all), minted by the admin handler (in-process, or the stage's admin
// function with --stage). The link is printed on stdout, for the person
// to hand over; it is never logged.
func cmdPortal(ctx context.Context, sub string, args []string) error {
	c := newAdminCmd("portal link")
	account := idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	operator := idFlag(c.fs, "operator", "the operator who enrols (required)")
	if err := parseFlags(c.fs, args); err != nil {
		return err
	}
	if *operator == 0 {
		return usageError{"portal link: --operator is required"}
	}
	acct, err := c.account(*account)
	if err != nil {
		return err
	}
	var out admin.PortalLinkView
	if err := c.send(ctx, map[string]any{"command": "portal.link", "account_id": acct, "operator_id": *operator}, &out); err != nil {
		return err
	}
	fmt.Println(out.URL)
	fmt.Fprintf(os.Stderr, "operator %d enrols a passkey with it, once, until %s\n", *operator, out.ExpiresAt)
	return nil
}

// localSettingsURL is where make local serves the settings area, the base
// of the links local commands mint: SETTINGS_BASE_URL, else the local
// gateway on PORT.
func localSettingsURL() string {
	return envDefault("SETTINGS_BASE_URL", "http://localhost:"+envDefault("PORT", "3000"))
}
