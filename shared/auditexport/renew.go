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
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// Renewal keeps every locked copy locked as long as it must be kept
// (domain.RenewRecord): the bucket locks each version RecordsLockDays from
// its write, and the daily run writes a record again once its lock comes
// within RecordsRenewDays of its end — for as long as the relationship of
// its entity lasts or a legal hold stands on it, and, once it ended, until
// the lock reaches the end of its retention. What is not renewed runs out
// of its lock and the bucket's lifecycle deletes it. One listing of the
// account's objects a day (1,000 keys a request) finds what is due; each
// renewal is a read and a write of one object.

// retention finds the end of retention of the account's entities: nil
// while it must be kept (the relationship lasts, a hold stands, the
// account's own chain), read once per entity a run.
type retention struct {
	x       *Exporter
	account int64
	held    map[int64]bool
	until   map[int64]*time.Time
}

func (r *retention) of(ctx context.Context, entityID int64) (*time.Time, error) {
	if entityID == 0 || r.held[entityID] {
		return nil, nil
	}
	if u, ok := r.until[entityID]; ok {
		return u, nil
	}
	var until *time.Time
	ent, err := r.x.Source.Entity(ctx, r.account, entityID)
	switch {
	case err == nil:
		until = ent.RetainUntil
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		// Expired under retention (its closure record says when, counted
		// by the rule every decision's record counts by, judged by the
		// account's locked chain), or removed unseen: kept then,
		// verification names the removal.
		t, ended, err := verify.LockedClosure(ctx, r.x.Records, r.account, entityID, verify.Closures{Passkeys: r.x.Passkeys})
		if err != nil {
			return nil, err
		}
		if ended {
			until = &t
		}
	default:
		return nil, err
	}
	r.until[entityID] = until
	return until, nil
}

// renew renews the account's due locked copies: its chains' records, its
// evidence bodies and its manifests. An evidence body whose check is gone
// from DynamoDB (its entity's items expired) is left to run out.
func (x *Exporter) renew(ctx context.Context, accountID int64, now time.Time) ([]recordslayout.ManifestObject, error) {
	holds, err := x.Source.LegalHolds(ctx, accountID)
	if err != nil {
		return nil, fmt.Errorf("legal holds: %w", err)
	}
	r := &retention{x: x, account: accountID, held: map[int64]bool{}, until: map[int64]*time.Time{}}
	for _, h := range holds {
		r.held[h.EntityID] = true
	}
	var out []recordslayout.ManifestObject
	var errs []error
	orphans := 0
	log := logging.From(ctx)
	for _, prefix := range []string{fmt.Sprintf("audit/%d/", accountID), fmt.Sprintf("evidence/%d/", accountID), recordslayout.ManifestPrefix(accountID)} {
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
			if !domain.RenewRecord(l.Written, now, nil) {
				continue // not due, whatever its retention
			}
			entityID, err := x.ownerOf(ctx, accountID, prefix, l.Key)
			if domain.ErrorCode(err) == domain.ECodeNotFound {
				orphans++
				continue
			} else if err != nil {
				errs = append(errs, err)
				continue
			}
			until, err := r.of(ctx, entityID)
			if err != nil {
				errs = append(errs, fmt.Errorf("retention of entity %d: %w", entityID, err))
				continue
			}
			if !domain.RenewRecord(l.Written, now, until) {
				continue
			}
			// One failure stops no other renewal: each lock left to run
			// out is a record the lifecycle would take.
			sum, err := x.Records.Renew(ctx, l.Key)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, recordslayout.ManifestObject{Key: l.Key, SHA256: sum})
		}
	}
	if orphans > 0 {
		log.Info("locked evidence of checks gone from DynamoDB left to run out", "account_id", accountID, "objects", orphans)
	}
	return out, errors.Join(errs...)
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
