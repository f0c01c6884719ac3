package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// maxRecountAttempts bounds the recounts that writes keep overtaking.
const maxRecountAttempts = 5

// RecountQueue is the queue's migration for an account that had reviews
// before it: it puts into the by_queue index the active reviews written
// before (they have no queue_key, nor the entity's copies) and sets the
// account's counts from its reviews as they are, replacing counts that
// started from the first write after deployment. Run it once per account
// after deploying; again, it changes nothing. It reads every review of the
// account, as a command may and a page never does. A write that moves the
// counts while it counts makes it count again.
func (s *Store) RecountQueue(ctx context.Context, accountID int64) (map[domain.ReviewStatus]int, error) {
	for attempt := 1; ; attempt++ {
		err := s.recountQueue(ctx, accountID)
		if err == nil {
			return s.QueueCounts(ctx, accountID)
		}
		if !errors.Is(err, domain.ErrStale) || attempt == maxRecountAttempts {
			return nil, fmt.Errorf("recount the queue of account %d: %w", accountID, err)
		}
	}
}

// QueueRecounted says whether RecountQueue has set the account's counts:
// one strongly consistent read of a shard.
func (s *Store) QueueRecounted(ctx context.Context, accountID int64) (bool, error) {
	var it queueCountItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.Equal, queueShardSK(0)).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read the queue counts of account %d: %w", accountID, err)
	}
	return it.Recounted, nil
}

// recountQueue counts once: domain.ErrStale when a shard moved meanwhile.
func (s *Store) recountQueue(ctx context.Context, accountID int64) error {
	before, err := s.queueShards(ctx, accountID)
	if err != nil {
		return fmt.Errorf("read counts: %w", err)
	}
	counts := map[int64]*queueCountItem{}
	for shard := range int64(queueShards) {
		counts[shard] = &queueCountItem{AccountID: accountID, SK: queueShardSK(shard)}
	}
	var unindexed []reviewItem
	iter := s.table(schema.Reviews).Get("account_id", accountID).Consistent(true).Iter()
	var it reviewItem
	for iter.Next(ctx, &it) {
		status := domain.ReviewStatus(it.Status)
		if !status.Active() {
			continue
		}
		c := counts[queueShard(it.ReviewID)]
		switch status {
		case domain.ReviewOpen:
			c.Open++
		case domain.ReviewInProgress:
			c.InProgress++
		case domain.ReviewEscalated:
			c.Escalated++
		}
		if it.QueueKey == "" || it.EntityCountry == "" {
			unindexed = append(unindexed, it)
		}
		it = reviewItem{}
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("read reviews: %w", err)
	}
	if err := s.indexReviews(ctx, accountID, unindexed); err != nil {
		return err
	}
	return s.putQueueCounts(ctx, before, counts)
}

// indexReviews writes the queue's attributes onto active reviews that lack
// them, each on the version and status it was read at: a review changed
// since got them from that change.
func (s *Store) indexReviews(ctx context.Context, accountID int64, items []reviewItem) error {
	for start := 0; start < len(items); start += queueBatch {
		part := items[start:min(start+queueBatch, len(items))]
		ents, err := s.queueEntities(ctx, accountID, part)
		if err != nil {
			return err
		}
		for _, it := range part {
			u := s.table(schema.Reviews).Update("account_id", accountID).Range("review_id", it.ReviewID).
				Set("queue_key", queueKey(it.domain()))
			if e, ok := ents[it.EntityID]; ok {
				u.Set("entity_country", e.CountryCode).Set("entity_name", e.LegalName)
			}
			err := u.If("(version = ? OR (attribute_not_exists(version) AND ? = ?)) AND $ = ?", it.Version, it.Version, int64(0), "status", it.Status).Run(ctx)
			if err != nil && !isCondFailed(err) {
				return fmt.Errorf("index review %d: %w", it.ReviewID, err)
			}
		}
	}
	return nil
}

// putQueueCounts replaces every shard with its count, in one transaction
// conditioned on each shard's writes being as read before counting.
func (s *Store) putQueueCounts(ctx context.Context, before []queueCountItem, counts map[int64]*queueCountItem) error {
	writes := map[string]int64{}
	for _, b := range before {
		writes[b.SK] = b.Writes
	}
	tx := s.db.WriteTx()
	for shard := range int64(queueShards) {
		c := counts[shard]
		w, existed := writes[c.SK]
		c.Writes = w + 1
		c.Recounted = true
		p := s.table(schema.Accounts).Put(*c)
		if existed {
			p.If("writes = ?", w)
		} else {
			p.If("attribute_not_exists(sk)")
		}
		tx.Put(p)
	}
	switch err := tx.Run(ctx); {
	case isTxCondFailed(err) || isTxConflict(err):
		return domain.ErrStale
	case err != nil:
		return fmt.Errorf("write counts: %w", err)
	}
	return nil
}
