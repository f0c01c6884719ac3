package main

import (
	"context"

	"github.com/evs-kyb/evs/shared/admin"
)

// cmdLegalHold is legal-hold set|release|list: an entity's legal hold
// (admin commands legal_hold.*), on the local store or a stage's.
func cmdLegalHold(ctx context.Context, sub string, args []string) error {
	c := newAccountCmd("legal-hold " + sub)
	entity := idFlag(c.fs, "entity", "set, release: the entity held (required)")
	reason := c.fs.String("reason", "", "set, release: why (required; audited)")
	acct, lf, err := c.parseOnAccount(args, sub == "list")
	if err != nil {
		return err
	}
	if sub == "list" {
		if *entity != 0 || *reason != "" {
			return usageError{"legal-hold list: --entity and --reason are for set and release"}
		}
		var out struct {
			Holds []admin.LegalHoldView `json:"legal_holds"`
		}
		if err := c.send(ctx, map[string]any{"command": "legal_hold.list", "account_id": acct}, &out); err != nil {
			return err
		}
		return printList(lf, out.Holds, legalHoldColumns)
	}
	if *entity == 0 || *reason == "" {
		return usageError{"legal-hold " + sub + ": --entity and --reason are required"}
	}
	var out struct {
		Hold admin.LegalHoldView `json:"legal_hold"`
	}
	doc := map[string]any{"command": "legal_hold." + sub, "account_id": acct, "entity_id": *entity, "reason": *reason}
	if err := c.send(ctx, doc, &out); err != nil {
		return err
	}
	printLine(out.Hold)
	return nil
}

// legalHoldColumns are legal-hold list's table.
var legalHoldColumns = []column[admin.LegalHoldView]{
	{"ENTITY", func(h admin.LegalHoldView) string { return idCell(h.EntityID) }},
	{"SET", func(h admin.LegalHoldView) string { return h.SetAt }},
	{"BY", func(h admin.LegalHoldView) string { return short(h.SetBy) }},
	{"REASON", func(h admin.LegalHoldView) string { return short(h.Reason) }},
}
