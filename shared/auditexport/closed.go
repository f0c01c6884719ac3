package auditexport

import (
	"context"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// renewClosed locks an entity's trail to its end once its closure record
// is locked and believed: every copy of its records and of its checks'
// evidence whose newest version is locked from its write short of the
// end's date (written before the end, or in the minutes the closure took
// to be locked) is written again, locked to that date
// (domain.RecordClosureRenewal). Done when the closure is locked, it keeps
// a renewal stopped later from ending the keeping early; what it missed,
// the daily run renews when due, before any of those locks ends.
func (x *Exporter) renewClosed(ctx context.Context, r *retention, entityID int64, now time.Time) error {
	delete(r.seen, entityID) // read before its closure was locked
	k, err := r.of(ctx, entityID)
	if err != nil || k.end == nil {
		return err
	}
	prefixes := []string{recordslayout.ChainPrefix(r.account, entityID)}
	chks, err := x.Source.EntityChecks(ctx, r.account, entityID, 0)
	if err != nil {
		return fmt.Errorf("checks of entity %d: %w", entityID, err)
	}
	for _, c := range chks {
		prefixes = append(prefixes, recordslayout.EvidencePrefix(r.account, c.ID))
	}
	renewed := 0
	for _, p := range prefixes {
		listed, err := x.Records.ListLocked(ctx, p)
		if err != nil {
			return err
		}
		for _, l := range listed {
			until, ok := domain.RecordClosureRenewal(l.Written, now, k.years, *k.end)
			if !ok {
				continue
			}
			if _, err := x.Records.Renew(ctx, l.Key, lockUntil(now, until)); err != nil {
				return fmt.Errorf("lock %s to the end of its retention: %w", l.Key, err)
			}
			renewed++
		}
	}
	logging.From(ctx).Info("a closed trail locked to the end of its retention", "account_id", r.account, "entity_id", entityID,
		"retain_until", domain.FormatTime(k.end.Until), "renewed", renewed)
	return nil
}
