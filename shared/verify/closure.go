package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// Closures says which locked closure records are believed. A closure ends
// the keeping of a whole trail: whoever can put objects in the records
// bucket could append one that reads well, so one counts only when signed
// like the decision it records — by its operator, with a passkey the
// account's locked chain recorded — or, unsigned, where the account
// accepts declared decisions.
type Closures struct {
	// Passkeys is the relying party the operators' passkeys are bound to
	// (none: no signature verifies).
	Passkeys passkey.Config
	// Declared is the account's DeclaredDecisions setting.
	Declared bool
}

// LockedClosure is the end of retention the entity's locked chain names:
// its end_relationship record (the first: a relationship ends once), within
// the trail's intact prefix (LockedChain), if c believes it; ended false
// without one. A record that does not hash to its hash, or does not link
// to the one before, names no closure, whatever it says; nor does one not
// signed as the account requires.
func LockedClosure(ctx context.Context, r Reader, accountID, entityID int64, c Closures) (until time.Time, ended bool, err error) {
	links, brk, err := LockedChain(ctx, r, accountID, entityID)
	if err != nil {
		return time.Time{}, false, err
	}
	for _, l := range intactPrefix(links, brk) {
		until, ok := closure(l)
		if !ok {
			continue
		}
		why, err := c.believe(ctx, r, l)
		if err != nil || why != "" {
			return time.Time{}, false, err
		}
		return until, true, nil
	}
	return time.Time{}, false, nil
}

// closure reads the end of retention an end_relationship record names.
func closure(l auditchain.Link) (time.Time, bool) {
	if l.Action != string(domain.ActionEndRelationship) {
		return time.Time{}, false
	}
	var after struct {
		RetainUntil string `json:"retain_until"`
	}
	if err := json.Unmarshal([]byte(l.After), &after); err != nil {
		return time.Time{}, false
	}
	t, err := domain.ParseTime(after.RetainUntil)
	return t, err == nil
}

// believe says why the closure record l is not believed ("" when it is);
// err is a failure to read the bucket. The keys are read from the
// account's chain in the bucket, its intact prefix, as a regulator would
// with the bucket alone.
func (c Closures) believe(ctx context.Context, r Reader, l auditchain.Link) (why string, err error) {
	sigs, err := passkey.Signatures(l)
	if err != nil {
		return err.Error(), nil
	}
	if len(sigs) == 0 {
		if c.Declared {
			return "", nil
		}
		return "it is not signed, and the account accepts signed decisions only", nil
	}
	links, brk, err := LockedChain(ctx, r, l.AccountID, 0)
	if err != nil {
		return "", fmt.Errorf("the account's locked chain: %w", err)
	}
	keys := passkey.KeysOf(intactPrefix(links, brk))
	maker := false
	for _, s := range sigs {
		if err := keys.VerifyLinkSignature(c.Passkeys, l, s); err != nil {
			return fmt.Sprintf("operator %d's signature: %s", s.OperatorID, domain.ErrorMessage(err)), nil
		}
		maker = maker || (s.Role == domain.SignatureMaker && s.OperatorID == l.OperatorID)
	}
	if !maker {
		return fmt.Sprintf("no signature of its operator %d", l.OperatorID), nil
	}
	return "", nil
}

// intactPrefix is links up to the first break LockedChain found: the
// records that hash to their hashes and link to the one before.
func intactPrefix(links []auditchain.Link, brk *auditchain.Break) []auditchain.Link {
	if brk == nil {
		return links
	}
	for i, l := range links {
		if brk.Seq == 0 || l.Seq >= brk.Seq {
			return links[:i]
		}
	}
	return links
}
