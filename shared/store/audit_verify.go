package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// AuditChain reads one chain for a check, all strongly consistent: the
// records from the audit table's base (a query of the account's partition
// filtered on the entity: by_entity_time is eventual, and a record missing
// from it would look removed), the head, and the latest daily export.
// Records without a hash (written before the chain existed) are returned
// apart (Unchained), and chained records whose listing keys no longer match
// what is hashed are named (Misfiled): the trail a listing shows must be the
// chain verified. Entity 0 is the account's own chain.
func (s *Store) AuditChain(ctx context.Context, accountID, entityID int64) (auditchain.Chain, error) {
	c := auditchain.Chain{AccountID: accountID, EntityID: entityID}
	items, err := s.chainItems(ctx, accountID, entityID)
	if err != nil {
		return c, err
	}
	for _, it := range items {
		switch {
		case it.ChainVersion == 0:
			c.Unchained = append(c.Unchained, it.chainLink())
		case !it.filedAsHashed():
			c.Records = append(c.Records, it.chainLink())
			c.Misfiled = append(c.Misfiled, it.chainLink())
		default:
			c.Records = append(c.Records, it.chainLink())
		}
	}
	head, err := s.chainHead(ctx, accountID, entityID)
	if err != nil {
		return c, err
	}
	c.Head = head.head()
	// Every export of the chain (at most one a day), oldest first: each must
	// still be in it, so a forged one cannot stand in for the real ones.
	var ex []auditExportItem
	err = s.table(schema.AuditExports).Get("account_id", accountID).
		Range("export_key", dynamo.BeginsWith, exportPrefix(entityID)).
		Consistent(true).All(ctx, &ex)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return c, wrap(err, "audit exports of entity %d", entityID)
	}
	for _, x := range ex {
		c.Exports = append(c.Exports, auditchain.Export{Head: auditchain.Head{Seq: x.Seq, Hash: x.Hash, ActionID: x.LastActionID}, EntityID: entityID, Day: x.Day})
	}
	if n := len(c.Exports); n > 0 {
		c.Export = &c.Exports[n-1]
	}
	return c, nil
}

// ChainRecords reads a chain's chained records, strongly, as AuditChain
// does, without its head or exports: what the records' daily run locks.
func (s *Store) ChainRecords(ctx context.Context, accountID, entityID int64) ([]auditchain.Link, error) {
	items, err := s.chainItems(ctx, accountID, entityID)
	if err != nil {
		return nil, err
	}
	var out []auditchain.Link
	for _, it := range items {
		if it.ChainVersion != 0 {
			out = append(out, it.chainLink())
		}
	}
	return out, nil
}

// chainItems are the entity's audit records (heads left out), from the
// table's base: a query of the account's partition filtered on the entity
// (by_entity_time is eventual, and a record missing from it would look
// removed).
func (s *Store) chainItems(ctx context.Context, accountID, entityID int64) ([]auditItem, error) {
	var items []auditItem
	err := s.table(schema.Audit).Get("account_id", accountID).
		Filter("entity_id = ?", entityID).
		Project(auditListed()...).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, wrap(err, "audit chain of entity %d", entityID)
	}
	return withoutHeads(items), nil
}

// exportPrefix starts an entity's export keys; the fixed width keeps
// entity 1's prefix from matching entity 10's.
func exportPrefix(entityID int64) string { return fmt.Sprintf("%020d#", entityID) }

// filedAsHashed reports whether the record's listing keys are those its
// hashed fields give (newAuditItem's): by_entity_time lists a trail by them.
func (it auditItem) filedAsHashed() bool {
	want := newAuditItem(domain.AuditRecord{AccountID: it.AccountID, ActionID: it.ActionID, EntityID: it.EntityID, At: parseTime(it.At)})
	return it.EntityKey == want.EntityKey && it.AtKey == want.AtKey
}

// auditListed is what a listing or a chain's check reads of a record: its
// keys, the index's, and schema.AuditListedAttrs (not the dossier Markdown).
func auditListed() []string {
	return append([]string{"account_id", "action_id", "entity_key", "at_key"}, schema.AuditListedAttrs()...)
}
