package auditexport

import (
	"context"
	"errors"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// ExtendResult counts what ExtendLocks did.
type ExtendResult struct {
	Accounts int `json:"accounts"`
	// Extended are the copies written again, locked to their law's date.
	Extended int `json:"extended"`
	// Expired are copies of trails whose believed closure's date is past:
	// left to their lock.
	Expired int `json:"expired"`
	// Orphans are evidence of checks gone from DynamoDB: left to their lock.
	Orphans int `json:"orphans"`
}

// ExtendLocks is the one-off run that moves the copies locked before
// per-object dates (each version locked 90 days by the bucket's default
// and renewed monthly) onto the law's dates: every copy of the account
// (accountID 0: of every account) whose record must still be kept is
// written again as a new version, locked as a write now would be — its
// jurisdiction's minimum from now while its relationship lasts, the end
// its believed closure names once it ended — and tagged for the
// lifecycle. Older versions keep their own locks. Run again, it writes a
// version more of each copy, which the lifecycle deletes once its lock
// ends.
func (x *Exporter) ExtendLocks(ctx context.Context, accountID int64) (ExtendResult, error) {
	ids := []int64{accountID}
	if accountID == 0 {
		accounts, err := x.Source.ListAccounts(ctx)
		if err != nil {
			return ExtendResult{}, fmt.Errorf("list accounts: %w", err)
		}
		ids = ids[:0]
		for _, a := range accounts {
			ids = append(ids, a.ID)
		}
	}
	var res ExtendResult
	var errs []error
	for _, id := range ids {
		res.Accounts++
		if err := x.extendAccount(ctx, id, &res); err != nil {
			errs = append(errs, fmt.Errorf("account %d: %w", id, err))
		}
	}
	logging.From(ctx).Info("locked copies extended to their law's dates", "accounts", res.Accounts, "extended", res.Extended,
		"expired", res.Expired, "orphans", res.Orphans, "errors", len(errs))
	return res, errors.Join(errs...)
}

// extendAccount extends every copy of one account, counting into res; one
// failure stops no other copy.
func (x *Exporter) extendAccount(ctx context.Context, accountID int64, res *ExtendResult) error {
	now := x.Clock.Now()
	r := x.newRetention(accountID)
	if err := x.readHolds(ctx, r); err != nil {
		return err
	}
	var errs []error
	for _, prefix := range accountPrefixes(accountID) {
		listed, err := x.Records.ListLocked(ctx, prefix)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range listed {
			entityID, err := x.ownerOf(ctx, accountID, prefix, l.Key)
			if domain.ErrorCode(err) == domain.ECodeNotFound {
				res.Orphans++
				continue
			}
			var k keeping
			if err == nil {
				k, err = r.of(ctx, entityID)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", l.Key, err))
				continue
			}
			if k.end != nil && !k.end.Until.After(now) {
				res.Expired++
				continue
			}
			if _, err := x.Records.Renew(ctx, l.Key, k.lock(now)); err != nil {
				errs = append(errs, err)
				continue
			}
			res.Extended++
		}
	}
	return errors.Join(errs...)
}
