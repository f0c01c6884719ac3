package auditexport

import (
	"context"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/verify"
)

// How long what the exporter writes is locked (domain.RecordLockUntil):
// every version from its write for its jurisdiction's minimum while its
// relationship lasts, to the end its believed closure record names once
// it ended. The entity item says which country's rule applies and whether
// to look for a closure, no more: its retain_until, which five roles
// write, moves no date (a closure not believed keeps the records as if the
// relationship lasted, the safe side).

// keeping is how long an entity's records are kept: years from each write
// while its relationship lasts (its country's rule; the longest any rule
// keeps for the account's own records and for an entity gone with no
// believed closure), and the end its believed closure names (nil: none,
// or a legal hold stands).
type keeping struct {
	years int
	end   *domain.RecordEnd
}

// retention reads each entity's keeping once a stream batch or an
// account's run.
type retention struct {
	x       *Exporter
	account int64
	// held are the entities under a legal hold (read by the daily run;
	// a stream batch reads none: a hold dates no write).
	held map[int64]bool
	seen map[int64]keeping
}

func (x *Exporter) newRetention(accountID int64) *retention {
	return &retention{x: x, account: accountID, held: map[int64]bool{}, seen: map[int64]keeping{}}
}

// of is the entity's keeping (entity 0: the account's own chain).
func (r *retention) of(ctx context.Context, entityID int64) (keeping, error) {
	if k, ok := r.seen[entityID]; ok {
		return k, nil
	}
	k := keeping{years: domain.RecordsMaxKeepYears}
	if entityID != 0 {
		ent, err := r.x.Source.Entity(ctx, r.account, entityID)
		look := true // gone: expired under its closure, or removed unseen
		switch {
		case err == nil:
			k.years = domain.RetentionRuleFor(ent.CountryCode).Years
			look = ent.RelationshipEndedAt != nil
		case domain.ErrorCode(err) != domain.ECodeNotFound:
			return keeping{}, fmt.Errorf("entity %d: %w", entityID, err)
		}
		if look && !r.held[entityID] {
			end, ok, err := r.end(ctx, entityID)
			if err != nil {
				return keeping{}, err
			}
			if ok {
				k.end = &end
			}
		}
	}
	r.seen[entityID] = k
	return k, nil
}

// end is the end the entity's locked trail names, if believed.
func (r *retention) end(ctx context.Context, entityID int64) (domain.RecordEnd, bool, error) {
	c, err := r.closures(ctx)
	if err != nil {
		return domain.RecordEnd{}, false, err
	}
	end, ok, err := verify.LockedEnd(ctx, r.x.Records, r.account, entityID, c)
	if err != nil {
		return domain.RecordEnd{}, false, fmt.Errorf("the closure of entity %d: %w", entityID, err)
	}
	return end, ok, nil
}

// lockFor is the lock of a version of the entity's written now.
func (r *retention) lockFor(ctx context.Context, entityID int64, now time.Time) (records.Retention, error) {
	k, err := r.of(ctx, entityID)
	if err != nil {
		return records.Retention{}, err
	}
	return k.lock(now), nil
}

// lock is the lock of a version written now.
func (k keeping) lock(now time.Time) records.Retention {
	var end *time.Time
	if k.end != nil {
		end = &k.end.Until
	}
	return lockUntil(now, domain.RecordLockUntil(now, k.years, end))
}

// lockUntil is the lock of a version written now until until, tagged with
// the years the lifecycle keeps it.
func lockUntil(now, until time.Time) records.Retention {
	return records.Retention{Until: until, KeepYears: domain.RecordKeepYears(now, until)}
}
