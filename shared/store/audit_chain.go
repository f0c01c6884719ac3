package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Every entity's audit records form a hash chain (shared/auditchain), and
// so do an account's own actions (entity 0). A chain's head lives in the
// audit table beside the records, under the reserved action id
// "HEAD#<entity id>": read with a strongly consistent GetItem (the
// by_entity_time index is eventual), in the account's partition like its
// records, and written by the PutItem every writer of audit records holds
// already (no UpdateItem on the audit table for anyone). The head has no
// entity_key, so it stays out of the index.

// headPrefix starts the action id of a chain's head; no action may use it.
const headPrefix = "HEAD#"

// maxChainAttempts bounds the re-reads of a head that concurrent appends
// keep moving: each round one of them wins, so n appends at once need n.
const maxChainAttempts = 10

// auditChainFields are an audit item's place in its chain (flattened into
// auditItem): the canonical form's version, the record's seq, the previous
// record's hash and its own. Records written before the chain have none.
type auditChainFields struct {
	ChainVersion int    `dynamo:"chain_v,omitempty"`
	Seq          int64  `dynamo:"seq,omitempty"`
	PrevHash     string `dynamo:"prev_hash,omitempty"`
	Hash         string `dynamo:"hash,omitempty"`
	// The chain's retention (retention.go), outside the hash: a record
	// takes the head's when it is appended, so what is written after the
	// relationship ended is dated (or held) with the rest at once.
	retainedFields
}

// retainedFields are an item's expiry (TTL) and the one a legal hold keeps
// aside (0: none yet).
type retainedFields struct {
	ExpiresAt     int64  `dynamo:"expires_at,omitempty"`
	HeldExpiresAt *int64 `dynamo:"held_expires_at,omitempty"`
}

// auditHeadItem is a chain's head: its last record's seq and hash.
type auditHeadItem struct {
	AccountID    int64  `dynamo:"account_id,hash"`
	ActionID     string `dynamo:"action_id,range"`
	ChainEntity  int64  `dynamo:"chain_entity"`
	Seq          int64  `dynamo:"seq"`
	Hash         string `dynamo:"hash"`
	LastActionID string `dynamo:"last_action_id"`
	At           string `dynamo:"at"`
	// Kept across appends (each rewrites the head whole), and given to
	// each record appended.
	retainedFields
}

func headKey(entityID int64) string { return fmt.Sprintf("%s%d", headPrefix, entityID) }

func (it auditHeadItem) head() auditchain.Head {
	return auditchain.Head{Seq: it.Seq, Hash: it.Hash, ActionID: it.LastActionID}
}

// chainLink is the item's part in the chain's hash.
func (it auditItem) chainLink() auditchain.Link {
	return auditchain.Link{Version: it.ChainVersion, AccountID: it.AccountID, EntityID: it.EntityID, Seq: it.Seq,
		ActionID: it.ActionID, Action: it.Action, OperatorID: it.OperatorID, OperatorName: it.OperatorName,
		Actor: it.Actor, RequestID: it.RequestID, SecondApproverID: it.SecondApproverID, ReviewID: it.ReviewID,
		Reason: it.Reason, Before: it.Before, After: it.After, At: it.At, SeenETag: it.SeenETag, DossierETag: it.DossierETag,
		DossierSHA256: it.DossierSHA256, Identity: it.Identity, DecisionDocument: it.DecisionDocument, Signatures: it.Signatures,
		PrevHash: it.PrevHash, Hash: it.Hash}
}

// chainHead reads a chain's head strongly (the zero head for a chain with
// no record yet).
func (s *Store) chainHead(ctx context.Context, accountID, entityID int64) (auditHeadItem, error) {
	var it auditHeadItem
	err := s.table(schema.Audit).Get("account_id", accountID).Range("action_id", dynamo.Equal, headKey(entityID)).
		Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return auditHeadItem{AccountID: accountID, ActionID: headKey(entityID), ChainEntity: entityID}, nil
	}
	return it, wrap(err, "audit chain head of entity %d", entityID)
}

// auditTx runs, in one transaction, the operations build adds and the
// audit record a linked to the head of its chain as read: build puts rec
// where its own cancellation indexes expect it, and the head's Put comes
// last, conditioned on the head being still the one read. When the
// transaction fails and the head moved meanwhile (another append won),
// it reads the head again and retries; otherwise the error is the
// caller's to map (a duplicate action, a stale review, …).
func (s *Store) auditTx(ctx context.Context, a domain.AuditRecord, build func(tx *dynamo.WriteTx, rec *dynamo.Put)) error {
	return s.auditTxAll(ctx, a, nil, build)
}

// auditTxAll is auditTx for a change recorded as several actions: the
// records of more follow a in its chain (each a's account and entity),
// put after build's operations and before the head's, so build's
// cancellation indexes hold.
func (s *Store) auditTxAll(ctx context.Context, a domain.AuditRecord, more []domain.AuditRecord, build func(tx *dynamo.WriteTx, rec *dynamo.Put)) error {
	recs := append([]domain.AuditRecord{a}, more...)
	for _, r := range recs {
		if strings.HasPrefix(r.ActionID, headPrefix) {
			return domain.Invalid("action_id", "is reserved")
		}
		if r.AccountID != a.AccountID || r.EntityID != a.EntityID {
			return fmt.Errorf("audit records %s and %s are of different chains", a.ActionID, r.ActionID)
		}
	}
	for attempt := 1; ; attempt++ {
		head, err := s.chainHead(ctx, a.AccountID, a.EntityID)
		if err != nil {
			return err
		}
		items := make([]auditItem, len(recs))
		next := head.head()
		for i, r := range recs {
			it := newAuditItem(r)
			link := it.chainLink()
			next = auditchain.Next(next, &link)
			it.ChainVersion, it.Seq, it.PrevHash, it.Hash = link.Version, link.Seq, link.PrevHash, link.Hash
			it.retainedFields = head.retainedFields
			items[i] = it
		}
		nextHead := head
		nextHead.Seq, nextHead.Hash, nextHead.LastActionID, nextHead.At = next.Seq, next.Hash, next.ActionID, items[len(items)-1].At

		tx := s.db.WriteTx()
		build(tx, s.table(schema.Audit).Put(items[0]).If("attribute_not_exists(action_id)"))
		for _, it := range items[1:] {
			tx.Put(s.table(schema.Audit).Put(it).If("attribute_not_exists(action_id)"))
		}
		hp := s.table(schema.Audit).Put(nextHead)
		if head.Seq == 0 {
			hp.If("attribute_not_exists(action_id)")
		} else {
			hp.If("seq = ? AND 'hash' = ?", head.Seq, head.Hash)
		}
		tx.Put(hp)
		err = tx.Run(ctx)
		if err == nil || attempt == maxChainAttempts || !(isTxCondFailed(err) || isTxConflict(err)) {
			return err
		}
		now, rerr := s.chainHead(ctx, a.AccountID, a.EntityID)
		if rerr != nil || (now.Seq == head.Seq && now.Hash == head.Hash) {
			// The head held: something else failed, which the caller maps.
			return err
		}
	}
}

// withoutHeads drops chain heads from a query of the audit table's base.
func withoutHeads(items []auditItem) []auditItem {
	out := items[:0]
	for _, it := range items {
		if !strings.HasPrefix(it.ActionID, headPrefix) {
			out = append(out, it)
		}
	}
	return out
}

// auditTxMaybe is auditTx for writes whose record is optional (seed data
// and tests write none): without one, no chain moves and rec is nil.
func (s *Store) auditTxMaybe(ctx context.Context, a *domain.AuditRecord, build func(tx *dynamo.WriteTx, rec *dynamo.Put)) error {
	if a == nil {
		tx := s.db.WriteTx()
		build(tx, nil)
		return tx.Run(ctx)
	}
	return s.auditTx(ctx, *a, build)
}
