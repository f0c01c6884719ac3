package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Retention of an entity's items. While its relationship lasts nothing of
// an entity carries an expiry. When it ends, every item of it — the entity,
// its registration guard, its checks, their evidence, its reviews, its
// audit records and its chain's head — gets expires_at, the table's TTL
// attribute, set to the end of its retention: one UpdateItem per item. A
// legal hold moves the expiry aside into held_expires_at (0: none yet) and
// its release puts it back. Webhook deliveries keep their own 90 days (an
// attempt to notify a subscriber is no due-diligence record), but a hold
// keeps them too.

// retainedItem is the key of one item retention dates; guard, for a
// registration guard, the entity it must still guard (a number guarded
// afresh by another entity is not this one's to date).
type retainedItem struct {
	table    string
	hashKey  string
	hash     any
	rangeKey string
	rng      any
	guard    int64
}

func (it retainedItem) update(s *Store) *dynamo.Update {
	u := s.table(it.table).Update(it.hashKey, it.hash).Range(it.rangeKey, it.rng).
		If(fmt.Sprintf("attribute_exists(%s)", it.rangeKey))
	if it.guard != 0 {
		u.If("entity_id = ?", it.guard)
	}
	return u
}

// ExpireEntity dates every item of an entity whose relationship ended
// (ent.RetainUntil): expires_at, or held_expires_at while a legal hold
// stands, so that the release puts the date on. Run again it sets the same
// dates, so a run cut short, or items written since, are finished by the
// next. written names audit records the caller has just appended, which
// the by_entity_time index (eventually consistent) may not show yet. A
// hold placed or lifted while it runs is seen again at its end, and the
// items dated again accordingly. It returns how many items it dated.
func (s *Store) ExpireEntity(ctx context.Context, ent domain.Entity, written ...string) (int, error) {
	if ent.RetainUntil == nil {
		return 0, nil
	}
	items, err := s.retainedItems(ctx, ent, false, written)
	if err != nil {
		return 0, err
	}
	at := ent.RetainUntil.Unix()
	n := 0
	for attempt := 0; attempt < 3; attempt++ {
		held, err := s.entityHeld(ctx, ent.AccountID, ent.ID)
		if err != nil {
			return n, err
		}
		if n, err = s.dateItems(ctx, ent, items, at, held); err != nil {
			return n, err
		}
		// A hold placed or lifted meanwhile moved some items the other
		// way: date them all again as it now stands.
		if now, err := s.entityHeld(ctx, ent.AccountID, ent.ID); err != nil || now == held {
			return n, err
		}
	}
	return n, fmt.Errorf("date the items of entity %d: legal holds kept changing meanwhile", ent.ID)
}

// dateItems gives each item the date: kept aside while held, as its
// expiry otherwise (ExpireEntity's second look puts right what a hold
// placed meanwhile had moved).
func (s *Store) dateItems(ctx context.Context, ent domain.Entity, items []retainedItem, at int64, held bool) (int, error) {
	n := 0
	for _, it := range items {
		u := it.update(s)
		if held {
			u.Set("held_expires_at", at).Remove("expires_at")
		} else {
			u.Set("expires_at", at).Remove("held_expires_at")
		}
		if err := u.Run(ctx); isCondFailed(err) {
			continue // gone already (expired, or never written)
		} else if err != nil {
			return n, wrap(err, "date %s item %v of entity %d", it.table, it.rng, ent.ID)
		}
		n++
	}
	return n, nil
}

// HoldEntity takes the expiry off every item of the entity, its webhook
// deliveries too (held), keeping it aside, or puts it back (released);
// once released, an entity whose relationship ended has its items dated
// again (ExpireEntity), which reaches what was written during the hold.
// Each item takes one UpdateItem (two to release one that had no expiry);
// an item already so is left as it is. It returns how many items it held
// or released.
func (s *Store) HoldEntity(ctx context.Context, ent domain.Entity, held bool, written ...string) (int, error) {
	items, err := s.retainedItems(ctx, ent, true, written)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, it := range items {
		changed, err := s.holdItem(ctx, it, held)
		if err != nil {
			return n, wrap(err, "hold %s item %v of entity %d", it.table, it.rng, ent.ID)
		}
		if changed {
			n++
		}
	}
	if !held {
		// The relationship may have ended since ent was read.
		now, err := s.Entity(ctx, ent.AccountID, ent.ID)
		if err != nil {
			return n, err
		}
		if _, err := s.ExpireEntity(ctx, now, written...); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (s *Store) holdItem(ctx context.Context, it retainedItem, held bool) (bool, error) {
	var err error
	if held {
		err = it.update(s).SetExpr("'held_expires_at' = if_not_exists('expires_at', ?)", 0).Remove("expires_at").
			If("attribute_not_exists(held_expires_at)").Run(ctx)
	} else {
		err = it.update(s).SetExpr("'expires_at' = held_expires_at").Remove("held_expires_at").If("held_expires_at > ?", 0).Run(ctx)
		if isCondFailed(err) {
			// Held with no expiry to put back (or not held at all).
			err = it.update(s).Remove("held_expires_at").If("attribute_exists(held_expires_at)").Run(ctx)
		}
	}
	if isCondFailed(err) {
		return false, nil
	}
	return err == nil, err
}

// datedAsEntity is the expiry an item written now for the entity takes:
// none while its relationship lasts; once it ended, the end of its
// retention, kept aside while a legal hold stands.
func (s *Store) datedAsEntity(ctx context.Context, ent domain.Entity) (retainedFields, error) {
	if ent.RetainUntil == nil {
		return retainedFields{}, nil
	}
	held, err := s.entityHeld(ctx, ent.AccountID, ent.ID)
	if err != nil {
		return retainedFields{}, err
	}
	at := ent.RetainUntil.Unix()
	if held {
		return retainedFields{HeldExpiresAt: &at}, nil
	}
	return retainedFields{ExpiresAt: at}, nil
}

// entityHeld says whether a legal hold stands on the entity.
func (s *Store) entityHeld(ctx context.Context, accountID, entityID int64) (bool, error) {
	var it holdItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.Equal, holdSK(entityID)).
		Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	return err == nil, wrap(err, "legal hold of entity %d", entityID)
}

// retainedItems are the keys of every item of the entity retention dates
// (deliveries: the webhook deliveries of its reviews too), written naming
// audit records the index may not show yet. Reading them takes a query per
// table (the by_entity indexes) and one per review for its deliveries.
func (s *Store) retainedItems(ctx context.Context, ent domain.Entity, deliveries bool, written []string) ([]retainedItem, error) {
	a := ent.AccountID
	items := []retainedItem{
		{schema.Entities, "account_id", a, "entity_id", ent.ID, 0},
		{schema.Accounts, "account_id", a, "sk", registrationGuardSK(ent.CountryCode, ent.RegistrationNumber), ent.ID},
		{schema.Audit, "account_id", a, "action_id", headKey(ent.ID), 0},
	}
	checks, err := s.entityChildIDs(ctx, schema.Checks, "check_id", a, ent.ID, ent.ChecksCount)
	if err != nil {
		return nil, wrap(err, "checks of entity %d", ent.ID)
	}
	for _, id := range checks {
		items = append(items, retainedItem{schema.Checks, "account_id", a, "check_id", id, 0},
			retainedItem{schema.Evidence, "account_id", a, "check_id", id, 0})
	}
	reviews, err := s.entityChildIDs(ctx, schema.Reviews, "review_id", a, ent.ID, ent.ReviewsCount)
	if err != nil {
		return nil, wrap(err, "reviews of entity %d", ent.ID)
	}
	for _, id := range reviews {
		items = append(items, retainedItem{schema.Reviews, "account_id", a, "review_id", id, 0})
	}
	var records []struct {
		ActionID string `dynamo:"action_id"`
	}
	err = s.table(schema.Audit).Get("entity_key", entityKey(a, ent.ID)).Index(schema.AuditByEntity).Project("action_id").All(ctx, &records)
	if err != nil {
		return nil, wrap(err, "audit records of entity %d", ent.ID)
	}
	listed := map[string]bool{}
	for _, r := range records {
		listed[r.ActionID] = true
		items = append(items, retainedItem{schema.Audit, "account_id", a, "action_id", r.ActionID, 0})
	}
	for _, id := range written {
		if id != "" && !listed[id] {
			items = append(items, retainedItem{schema.Audit, "account_id", a, "action_id", id, 0})
		}
	}
	if !deliveries {
		return items, nil
	}
	for _, id := range reviews {
		var ds []struct {
			DeliveryID string `dynamo:"delivery_id"`
		}
		err := s.table(schema.WebhookDeliveries).Get("review_key", accountKey(a, id)).Index(schema.DeliveriesByReview).
			Project("delivery_id").All(ctx, &ds)
		if err != nil {
			return nil, wrap(err, "webhook deliveries of review %d", id)
		}
		for _, d := range ds {
			items = append(items, retainedItem{schema.WebhookDeliveries, "account_id", a, "delivery_id", d.DeliveryID, 0})
		}
	}
	return items, nil
}
