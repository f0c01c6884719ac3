package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// The queue's counts per status live in the account's partition of the
// accounts table, spread over queueShards items ("QUEUE#<n>", a review in
// the shard of its id): every write that creates a review or changes its
// status adds to its shard in the same transaction, so the counts are read
// (one query of a few items) rather than counted, and decisions on
// different reviews of one account seldom write the same item at once.
const (
	skQueuePrefix = "QUEUE#"
	queueShards   = 8
)

// queueCountItem is one shard of an account's queue counts. Writes moves
// with every change, so that RecountQueue can tell whether one came while
// it counted.
type queueCountItem struct {
	AccountID  int64  `dynamo:"account_id,hash"`
	SK         string `dynamo:"sk,range"`
	Open       int64  `dynamo:"count_open"`
	InProgress int64  `dynamo:"count_in_progress"`
	Escalated  int64  `dynamo:"count_escalated"`
	Writes     int64  `dynamo:"writes"`
	// Recounted marks counts RecountQueue set from the reviews themselves;
	// the writes that move them later keep it.
	Recounted bool `dynamo:"recounted,omitempty"`
}

// queueCountAttr is the attribute of a shard counting the status.
func queueCountAttr(s domain.ReviewStatus) string { return "count_" + string(s) }

func queueShardSK(shard int64) string { return fmt.Sprintf("%s%d", skQueuePrefix, shard) }

func queueShard(reviewID int64) int64 { return domain.SeqOfID(reviewID) % queueShards }

// queueDelta is what a write changes in the counts: by shard, by active
// status, how many reviews come (or, negative, go).
type queueDelta map[int64]map[domain.ReviewStatus]int

// add counts n reviews of status in the review's shard; a status out of the
// queue counts nothing.
func (d queueDelta) add(reviewID int64, status domain.ReviewStatus, n int) {
	if !status.Active() || n == 0 {
		return
	}
	shard := queueShard(reviewID)
	if d[shard] == nil {
		d[shard] = map[domain.ReviewStatus]int{}
	}
	d[shard][status] += n
}

// move counts a review going from one status to another.
func (d queueDelta) move(reviewID int64, from, to domain.ReviewStatus) {
	if from == to {
		return
	}
	d.add(reviewID, from, -1)
	d.add(reviewID, to, 1)
}

// created counts new reviews.
func createdDelta(rs []domain.Review) queueDelta {
	d := queueDelta{}
	for _, r := range rs {
		d.add(r.ID, r.Status, 1)
	}
	return d
}

// addQueueCounts adds the delta's updates to tx, shard by shard in order
// and with SET clauses (not ADD, whose paths guregu/dynamo orders by map):
// a commit asked again with its client token must be the same request. A
// shard whose changes cancel out is not written.
func (s *Store) addQueueCounts(tx *dynamo.WriteTx, accountID int64, d queueDelta) {
	shards := make([]int64, 0, len(d))
	for shard := range d {
		shards = append(shards, shard)
	}
	slices.Sort(shards)
	for _, shard := range shards {
		u := s.table(schema.Accounts).Update("account_id", accountID).Range("sk", queueShardSK(shard))
		changed := false
		for _, st := range []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated} {
			if n := d[shard][st]; n != 0 {
				attr := queueCountAttr(st)
				u.SetExpr("$ = if_not_exists($, ?) + ?", attr, attr, 0, n)
				changed = true
			}
		}
		if changed {
			tx.Update(u.SetExpr("writes = if_not_exists(writes, ?) + ?", 0, 1))
		}
	}
}

// QueueCounts returns how many of the account's reviews are open, in
// progress and escalated (every active status present, 0 when none), from
// the counters every review write keeps. The counts start from the first
// write after the counters were deployed unless RecountQueue has run; a
// count below zero (reviews from before them leaving) reads as 0.
func (s *Store) QueueCounts(ctx context.Context, accountID int64) (map[domain.ReviewStatus]int, error) {
	items, err := s.queueShards(ctx, accountID)
	if err != nil {
		return nil, fmt.Errorf("queue counts of account %d: %w", accountID, err)
	}
	var open, inProgress, escalated int64
	for _, it := range items {
		open, inProgress, escalated = open+it.Open, inProgress+it.InProgress, escalated+it.Escalated
	}
	return map[domain.ReviewStatus]int{
		domain.ReviewOpen:       int(max(open, 0)),
		domain.ReviewInProgress: int(max(inProgress, 0)),
		domain.ReviewEscalated:  int(max(escalated, 0)),
	}, nil
}

// queueShards reads the account's count shards that exist, by key in one
// strongly consistent BatchGetItem: the account's partition also holds a
// registration guard per entity, and a key range over it (begins_with)
// costs, on DynamoDB Local, as much as the partition is large.
func (s *Store) queueShards(ctx context.Context, accountID int64) ([]queueCountItem, error) {
	keys := make([]dynamo.Keyed, queueShards)
	for shard := range int64(queueShards) {
		keys[shard] = dynamo.Keys{accountID, queueShardSK(shard)}
	}
	var items []queueCountItem
	err := s.table(schema.Accounts).Batch("account_id", "sk").Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, err
	}
	return items, nil
}
