package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// Closures says which locked closure records are believed. A closure ends
// the keeping of a whole trail: whoever can put objects in the records
// bucket could append one that reads well, so one counts only by the rule
// every decision's record counts by (passkey.AccountChain.Counts), judged
// by what the account's locked chain recorded: signed, its document an
// end_relationship of that very entity naming the record, with passkeys
// the chain recorded; or, unsigned, made while the chain's settings
// accepted declared decisions.
type Closures struct {
	// Passkeys is the relying party the operators' passkeys are bound to
	// (none: no signature verifies).
	Passkeys passkey.Config
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
	prefix := intactPrefix(links, brk)
	for i, l := range prefix {
		until, ok := closure(l)
		if !ok {
			continue
		}
		var before *auditchain.Link
		if i > 0 {
			before = &prefix[i-1]
		}
		why, err := c.believe(ctx, r, l, before)
		if err != nil || why != "" {
			return time.Time{}, false, err
		}
		return until, true, nil
	}
	return time.Time{}, false, nil
}

// closure reads the end of retention an end_relationship record names,
// read one way only (no key twice, retain_until spelt exactly): the date a
// verifier reads is the one every reader reads.
func closure(l auditchain.Link) (time.Time, bool) {
	if l.Action != string(domain.ActionEndRelationship) {
		return time.Time{}, false
	}
	var after map[string]json.RawMessage
	if strictjson.Check([]byte(l.After)) != nil || json.Unmarshal([]byte(l.After), &after) != nil {
		return time.Time{}, false
	}
	var until string
	if json.Unmarshal(after["retain_until"], &until) != nil {
		return time.Time{}, false
	}
	t, err := domain.ParseTime(until)
	return t, err == nil
}

// believe says why the closure record l, which follows the record before
// in its locked trail (nil: none), is not believed ("" when it is); err is
// a failure to read the bucket. What the account recorded is read from its
// chain in the bucket, its intact prefix, as a regulator would with the
// bucket alone.
func (c Closures) believe(ctx context.Context, r Reader, l auditchain.Link, before *auditchain.Link) (why string, err error) {
	if before != nil && dated(l).Before(dated(*before)) {
		// A record dated before the one it follows would pick its own
		// time: the settings it is judged by must be those of its place.
		return fmt.Sprintf("it is dated %s, before the record it follows (%s)", l.At, before.At), nil
	}
	links, brk, err := LockedChain(ctx, r, l.AccountID, 0)
	if err != nil {
		return "", fmt.Errorf("the account's locked chain: %w", err)
	}
	if _, err := passkey.AccountOf(intactPrefix(links, brk)).Counts(c.Passkeys, l); err != nil {
		return domain.ErrorMessage(err), nil
	}
	return "", nil
}

// dated is a record's time (zero when it has none that reads).
func dated(l auditchain.Link) time.Time {
	t, _ := domain.ParseTime(l.At)
	return t
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
