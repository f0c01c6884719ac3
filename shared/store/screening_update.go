package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

type webhookReceiptItem struct {
	ReceiptID  string `dynamo:"receipt_id,hash"` // "<provider>#<webhook-id>"
	ReceivedAt string `dynamo:"received_at"`
	Reference  string `dynamo:"reference"`
	ExpiresAt  int64  `dynamo:"expires_at"` // TTL, Unix seconds
}

// ApplyScreening writes, in one transaction, the webhook's receipt, the
// check's new result and the entity's new sanctions status, score,
// updated_at and dossier revision, and the webhook's body as the check's
// evidence. An answer for a check already complete (u.New) is written as a
// new check instead, the earlier one and its evidence left as they were,
// and the entity counts it. An answer that opens a review (u.Opens) writes
// it too, with its audit record and the queue's counts, and the entity
// counts it and is under monitoring (openedByScreening). A webhook id seen
// before changes nothing (applied false).
func (s *Store) ApplyScreening(ctx context.Context, u domain.ScreeningUpdate) (applied bool, err error) {
	if err := u.Validate(); err != nil {
		return false, err
	}
	receipt := webhookReceiptItem{
		ReceiptID: u.Provider + "#" + u.WebhookID, ReceivedAt: fmtTime(u.At), Reference: u.Reference,
		ExpiresAt: u.At.Add(u.ReceiptTTL).Unix(),
	}
	at := fmtTime(u.At)
	c, e := u.Check, u.Entity
	// An answer after the relationship ended: what it writes anew is dated
	// with the rest of the entity at once.
	dated, err := s.datedAsEntity(ctx, e)
	if err != nil {
		return false, err
	}
	entityUpdate := nextDossierRev(setUpdatedAt(s.table(schema.Entities).Update("account_id", e.AccountID).Range("entity_id", e.ID), at)).
		Set("sanctions_status", string(u.SanctionsStatus)).
		If("updated_at = ?", fmtTime(e.UpdatedAt))
	if u.Score != nil {
		entityUpdate.Set("current_score", u.Score.Value).Set("score_breakdown", scoreComponentItems(u.Score.Breakdown))
	}
	if u.New != nil {
		entityUpdate.Add("checks_count", 1)
	}
	opens, err := s.openedByScreening(ctx, u, entityUpdate)
	if err != nil {
		return false, err
	}
	// Items by index (cancellation reasons name them): 0 the receipt, 1 the
	// check, 2 the entity, 3 the evidence if kept; then, for an answer that
	// opens a review, its audit record (opens.recAt), the review, the
	// queue's counts and the chain's head.
	build := func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(s.table(schema.InboundWebhooks).Put(receipt).If("attribute_not_exists(receipt_id) OR expires_at <= ?", u.At.Unix()))
		evidenceOf := c
		if n := u.New; n != nil {
			ci := newCheckItem(*n)
			ci.retainedFields = dated
			tx.Put(s.table(schema.Checks).Put(ci).If("attribute_not_exists(check_id)"))
			evidenceOf = *n
		} else {
			tx.Update(s.table(schema.Checks).Update("account_id", c.AccountID).Range("check_id", c.ID).
				Set("status", string(domain.CheckCompleted)).
				Set("provider_status", u.ProviderStatus).
				Set("result", u.Result).
				Set("checked_at", at).
				Set("updated_at", at).
				If("updated_at = ?", fmtTime(c.UpdatedAt)))
		}
		tx.Update(entityUpdate)
		// A replayed webhook (its receipt seen) writes none.
		if u.Evidence != nil {
			s.addEvidencePuts(tx, []domain.Check{{AccountID: evidenceOf.AccountID, ID: evidenceOf.ID, Evidence: u.Evidence}}, dated)
		}
		opens.add(tx, rec)
	}
	err = s.auditTxMaybe(ctx, opens.record(), build)
	switch {
	case err == nil:
		return true, nil
	case cancelledAt(err, 0):
		return false, nil
	case opens.recordSeen(err):
		// Its audit record was written before: this webhook was applied,
		// its receipt since forgotten.
		return false, nil
	case isTxCondFailed(err), isTxConflict(err):
		// The check, the entity, the evidence (one already kept for the
		// check: never overwritten) or the new review is not as read.
		return false, domain.ErrStale
	default:
		return false, fmt.Errorf("apply screening for check %d: %w", c.ID, err)
	}
}

// WebhookSeen reports whether the provider's webhook id was applied and is
// still remembered at at (its receipt, kept ReceiptTTL).
func (s *Store) WebhookSeen(ctx context.Context, provider, webhookID string, at time.Time) (bool, error) {
	var r webhookReceiptItem
	err := s.table(schema.InboundWebhooks).Get("receipt_id", provider+"#"+webhookID).Consistent(true).One(ctx, &r)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, wrap(err, "webhook receipt %s", webhookID)
	}
	return r.ExpiresAt > at.Unix(), nil
}

// Check returns one check of the account.
func (s *Store) Check(ctx context.Context, accountID, id int64) (domain.Check, error) {
	var it checkItem
	err := s.table(schema.Checks).Get("account_id", accountID).Range("check_id", dynamo.Equal, id).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Check{}, wrap(notFound(err, "Check"), "get check %d", id)
	}
	return it.domain(), nil
}
