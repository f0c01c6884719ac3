package auditexport

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// Renewal keeps a record locked for as long as the law asks, and never
// shortens a lock (domain.RecordRenewal): each version is locked at its
// write for its jurisdiction's minimum, and a record still needed when its
// newest version is RecordsRenewYears old (less RecordsRenewDays) — its
// relationship lasting, a legal hold standing, the account's own records
// and manifests — is written again as a new version locked from then; once
// its relationship ended (a believed closure record, nothing else), a
// version locked short of the end's date is written again locked to it,
// and nothing after. What is not renewed keeps its lock, and the bucket's
// lifecycle deletes it once that lock ends. One listing of the account's
// versions a day (1,000 keys a request) finds what is due, with no table
// read for what is not; each renewal is a read and a write of one object.

// closures are the rule for believing a closure: every decision's record
// counts by it (passkey.AccountChain.Counts), judged by the account's
// locked chain at the closure's time — never by the account item.
func (r *retention) closures(context.Context) (verify.Closures, error) {
	return verify.Closures{Passkeys: r.x.Passkeys}, nil
}

// renew renews the account's due locked copies: its chains' records, its
// evidence bodies and its manifests. An evidence body whose check is gone
// from DynamoDB (its entity's items expired) is left to its lock.
func (x *Exporter) renew(ctx context.Context, r *retention, now time.Time) ([]recordslayout.ManifestObject, error) {
	var out []recordslayout.ManifestObject
	var errs []error
	orphans := 0
	log := logging.From(ctx)
	for _, prefix := range accountPrefixes(r.account) {
		listed, err := x.Records.ListLocked(ctx, prefix)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range listed {
			if l.Foreign > 0 {
				// Verification names it too (rewritten_in_bucket); renewal
				// dates the record by its own bytes, not the rewrite.
				log.Error("a locked copy was rewritten in the records bucket", "key", l.Key, "versions_with_other_bytes", l.Foreign)
			}
			if !domain.RecordRenewDue(l.Written, now) {
				continue // its newest version is young: locked, whatever its retention
			}
			o, err := x.renewOne(ctx, r, prefix, l, now)
			switch {
			case domain.ErrorCode(err) == domain.ECodeNotFound:
				orphans++
			case err != nil:
				// One failure stops no other renewal.
				errs = append(errs, err)
			case o.Key != "":
				out = append(out, o)
			}
		}
	}
	if orphans > 0 {
		log.Info("locked evidence of checks gone from DynamoDB left to its lock", "account_id", r.account, "objects", orphans)
	}
	return out, errors.Join(errs...)
}

// renewOne renews one due copy if its record must still be kept (Key ""
// when not); not_found: evidence of a check gone.
func (x *Exporter) renewOne(ctx context.Context, r *retention, prefix string, l records.Locked, now time.Time) (recordslayout.ManifestObject, error) {
	entityID, err := x.ownerOf(ctx, r.account, prefix, l.Key)
	if err != nil {
		return recordslayout.ManifestObject{}, err
	}
	k, err := r.of(ctx, entityID)
	if err != nil {
		return recordslayout.ManifestObject{}, fmt.Errorf("retention of entity %d: %w", entityID, err)
	}
	until, ok := domain.RecordRenewal(l.Written, now, k.years, k.end)
	if !ok {
		return recordslayout.ManifestObject{}, nil
	}
	sum, err := x.Records.Renew(ctx, l.Key, lockUntil(now, until))
	if err != nil {
		return recordslayout.ManifestObject{}, err
	}
	return recordslayout.ManifestObject{Key: l.Key, SHA256: sum, KeepUntil: until.UTC().Format(time.RFC3339)}, nil
}

// accountPrefixes start everything the records bucket keeps of an account.
func accountPrefixes(accountID int64) []string {
	return []string{fmt.Sprintf("audit/%d/", accountID), fmt.Sprintf("evidence/%d/", accountID), recordslayout.ManifestPrefix(accountID)}
}

// ownerOf is the entity a locked object belongs to: a chain's from its
// key, a check's evidence's from the check (not_found: the check is gone),
// 0 for a manifest (the account's).
func (x *Exporter) ownerOf(ctx context.Context, accountID int64, prefix, key string) (int64, error) {
	rest := strings.TrimPrefix(key, prefix)
	id, _, _ := strings.Cut(rest, "/")
	switch {
	case strings.HasPrefix(prefix, "audit/"):
		return strconv.ParseInt(id, 10, 64)
	case strings.HasPrefix(prefix, "evidence/"):
		checkID, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("locked evidence %s: %w", key, err)
		}
		chk, err := x.Source.Check(ctx, accountID, checkID)
		return chk.EntityID, err
	}
	return 0, nil
}
