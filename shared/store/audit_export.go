package store

import (
	"context"
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

// ExportAuditHeads exports, under day, the account's chain heads that moved
// since since (a head that did not move keeps its earlier export as its
// latest). It returns the heads it exported; a head exported under day
// already is skipped, so a repeated run writes nothing twice.
func (s *Store) ExportAuditHeads(ctx context.Context, accountID int64, day string, since, at time.Time) ([]auditchain.Export, error) {
	var heads []auditHeadItem
	// The heads share the account's partition with its records: their
	// reserved prefix makes this a key condition, not a filter.
	err := s.table(schema.Audit).Get("account_id", accountID).Range("action_id", dynamo.BeginsWith, headPrefix).
		Consistent(true).All(ctx, &heads)
	if err != nil {
		return nil, wrap(err, "audit heads of account %d", accountID)
	}
	var out []auditchain.Export
	for _, h := range heads {
		if parseTime(h.At).Before(since) {
			continue
		}
		it := auditExportItem{AccountID: accountID, ExportKey: exportPrefix(h.ChainEntity) + day, EntityID: h.ChainEntity, Day: day,
			Seq: h.Seq, Hash: h.Hash, LastActionID: h.LastActionID, ExportedAt: fmtTime(at)}
		err := s.table(schema.AuditExports).Put(it).If("attribute_not_exists(export_key)").Run(ctx)
		if isCondFailed(err) {
			continue
		}
		if err != nil {
			return out, wrap(err, "export audit head of entity %d", h.ChainEntity)
		}
		out = append(out, auditchain.Export{Head: h.head(), EntityID: h.ChainEntity, Day: day})
	}
	return out, nil
}
