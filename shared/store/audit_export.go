package store

import (
	"context"
	"errors"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/schema"
)

// auditExportItem is one chain's head as exported on one day. Exports are
// only ever put, once (the condition below): no function holds UpdateItem
// or DeleteItem on their table, and the functions that write audit records
// hold nothing on it at all.
type auditExportItem struct {
	AccountID    int64  `dynamo:"account_id,hash"`
	ExportKey    string `dynamo:"export_key,range"` // exportPrefix(entity) + day
	EntityID     int64  `dynamo:"entity_id"`
	Day          string `dynamo:"day"`
	Seq          int64  `dynamo:"seq"`
	Hash         string `dynamo:"hash"`
	LastActionID string `dynamo:"last_action_id"`
	ExportedAt   string `dynamo:"exported_at"`
}

// exportRunPrefix keys the marker a complete export run leaves, one a day
// ("RUN#2026-11-23"): not an entity's export (those start with 20 digits).
const exportRunPrefix = "RUN#"

// exportRunItem marks a day's export run that exported every moved head.
type exportRunItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	ExportKey string `dynamo:"export_key,range"` // exportRunPrefix + day
	Day       string `dynamo:"day"`
	StartedAt string `dynamo:"started_at"`
	Heads     int    `dynamo:"heads"`
}

// exportMargin is how far before the last complete run's start a run looks
// for moved heads: a head moved while that run read the heads is exported
// again rather than missed.
const exportMargin = time.Hour

// ExportAuditHeads exports, under day, the account's chain heads that moved
// since the last run that exported them all (its RUN# marker; all heads when
// there is none), so runs that failed or never came leave no head out
// however long the gap (a head that did not move keeps its earlier export as
// its latest). A head exported under day already is skipped, so a repeated
// run writes nothing twice. It returns the heads it exported, and leaves the
// day's marker (started at) once every head is out.
func (s *Store) ExportAuditHeads(ctx context.Context, accountID int64, day string, at time.Time) ([]auditchain.Export, error) {
	var runs []exportRunItem
	err := s.table(schema.AuditExports).Get("account_id", accountID).Range("export_key", dynamo.BeginsWith, exportRunPrefix).
		Order(dynamo.Descending).Limit(1).Consistent(true).All(ctx, &runs)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrap(err, "last audit export run of account %d", accountID)
	}
	var since time.Time
	if len(runs) > 0 {
		since = parseTime(runs[0].StartedAt).Add(-exportMargin)
	}
	var heads []auditHeadItem
	// The heads share the account's partition with its records: their
	// reserved prefix makes this a key condition, not a filter.
	err = s.table(schema.Audit).Get("account_id", accountID).Range("action_id", dynamo.BeginsWith, headPrefix).
		Consistent(true).All(ctx, &heads)
	if err != nil {
		return nil, wrap(err, "audit heads of account %d", accountID)
	}
	var out []auditchain.Export
	complete := true
	for _, h := range heads {
		if parseTime(h.At).Before(since) {
			continue
		}
		it := auditExportItem{AccountID: accountID, ExportKey: exportPrefix(h.ChainEntity) + day, EntityID: h.ChainEntity, Day: day,
			Seq: h.Seq, Hash: h.Hash, LastActionID: h.LastActionID, ExportedAt: fmtTime(at)}
		var had auditExportItem
		wrote, err := s.table(schema.AuditExports).Put(it).If("attribute_not_exists(export_key)").CurrentValue(ctx, &had)
		if err != nil {
			return out, wrap(err, "export audit head of entity %d", h.ChainEntity)
		}
		if !wrote {
			// Exported today already; if the head moved since, this day
			// cannot hold it, so the run is not complete: the next one
			// looks back past it and exports the head then.
			if had.Seq != h.Seq || had.Hash != h.Hash {
				complete = false
			}
			continue
		}
		out = append(out, auditchain.Export{Head: h.head(), EntityID: h.ChainEntity, Day: day})
	}
	if !complete {
		return out, nil
	}
	run := exportRunItem{AccountID: accountID, ExportKey: exportRunPrefix + day, Day: day, StartedAt: fmtTime(at), Heads: len(out)}
	err = s.table(schema.AuditExports).Put(run).If("attribute_not_exists(export_key)").Run(ctx)
	if err != nil && !isCondFailed(err) {
		return out, wrap(err, "mark the audit export run of account %d", accountID)
	}
	return out, nil
}
