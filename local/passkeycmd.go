package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/evs-kyb/evs/shared/admin"
)

// cmdPasskey lists an operator's passkeys (one JSON line each, never a
// key) or revokes one, through the admin function's passkey.list and
// passkey.revoke.
func cmdPasskey(ctx context.Context, sub string, args []string) error {
	c := newAdminCmd("passkey " + sub)
	account := idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	operator := idFlag(c.fs, "operator", "the operator whose passkeys (required)")
	credential := c.fs.String("credential", "", "revoke: the passkey's credential id, as list prints it")
	lf := addListFlags(c.fs)
	if err := parseListing(c.fs, args, lf, sub == "list"); err != nil {
		return err
	}
	if *operator == 0 {
		return usageError{"passkey " + sub + ": --operator is required"}
	}
	acct, err := c.account(*account)
	if err != nil {
		return err
	}
	doc := map[string]any{"command": "passkey." + sub, "account_id": acct, "operator_id": *operator}
	if sub == "list" {
		if *credential != "" {
			return usageError{"passkey list: --credential is for revoke"}
		}
		var out struct {
			Passkeys []admin.PasskeyView `json:"passkeys"`
		}
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		return printList(lf, out.Passkeys, passkeyColumns)
	}
	if *credential == "" {
		return usageError{"passkey revoke: --credential is required"}
	}
	doc["credential_id"] = *credential
	var out map[string]any
	if err := c.send(ctx, doc, &out); err != nil {
		return err
	}
	fmt.Printf("revoked passkey %s of operator %d\n", *credential, *operator)
	return nil
}

// passkeyColumns are passkey list's table.
var passkeyColumns = []column[admin.PasskeyView]{
	{"CREDENTIAL", func(p admin.PasskeyView) string { return p.CredentialID }},
	{"NAME", func(p admin.PasskeyView) string { return short(p.Name) }},
	{"CREATED", func(p admin.PasskeyView) string { return p.CreatedAt }},
	{"LAST USED", func(p admin.PasskeyView) string { return optCell(p.LastUsedAt) }},
	{"SIGNS", func(p admin.PasskeyView) string { return strconv.FormatUint(uint64(p.SignCount), 10) }},
	{"BACKED UP", func(p admin.PasskeyView) string { return yesNo(p.BackedUp) }},
}
