package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// A stretch of the queue reads within a fixed budget, whatever the account
// holds: at most queueQueries queries of the by_queue index reading
// queueRead items each, then one BatchGetItem of at most queueBatch
// entities (its own limit). A stretch that could not be filled within it
// says where to go on.
const (
	queueQueries = 4
	queueRead    = 100
	queueBatch   = 100
)

// queueEntityItem is what a stretch reads of an entity: what changes on it
// (risk, sanctions status, name) and the queue shows or filters on.
type queueEntityItem struct {
	EntityID        int64  `dynamo:"entity_id"`
	LegalName       string `dynamo:"legal_name"`
	CountryCode     string `dynamo:"country_code"`
	RiskLevel       string `dynamo:"risk_level"`
	SanctionsStatus string `dynamo:"sanctions_status"`
}

// QueuePage returns a stretch of the account's queue: its active reviews
// after q.After, oldest first, that q's filters keep, with their entities'
// name, country, risk and sanctions status. It is read from the by_queue
// index (eventually consistent: a review changed a moment ago may show as
// it was) and costs the same whatever the account holds: the review filters
// are applied as the index is read, the entity filters on the entities of
// the stretch only.
//
// validation_failed: q.After is not a queue position.
func (s *Store) QueuePage(ctx context.Context, q domain.QueueQuery) (domain.QueueSlice, error) {
	if err := checkQueueQuery(q); err != nil {
		return domain.QueueSlice{}, err
	}
	want := q.Limit
	if filtersEntities(q) {
		// How many will match is known only once the entities are read.
		want = queueBatch
	}
	items, after, more, err := s.queueCandidates(ctx, q, want)
	if err != nil {
		return domain.QueueSlice{}, fmt.Errorf("queue of account %d: %w", q.AccountID, err)
	}
	ents, err := s.queueEntities(ctx, q.AccountID, items)
	if err != nil {
		return domain.QueueSlice{}, fmt.Errorf("queue of account %d: %w", q.AccountID, err)
	}
	var out domain.QueueSlice
	for i, it := range items {
		e, found := ents[it.EntityID]
		entry := queueEntry(it, e, found)
		if !entityMatches(q, entry, found) {
			continue
		}
		out.Entries = append(out.Entries, entry)
		if len(out.Entries) == q.Limit && i < len(items)-1 {
			out.Next = entry.Position
			return out, nil
		}
	}
	if more {
		out.Next = after
	}
	return out, nil
}

func checkQueueQuery(q domain.QueueQuery) error {
	if q.AccountID <= 0 || q.Limit < 1 || q.Limit > domain.QueueMaxLimit {
		return fmt.Errorf("queue: account %d, limit %d: want an account and a limit of 1 to %d", q.AccountID, q.Limit, domain.QueueMaxLimit)
	}
	if q.After != "" {
		if _, _, err := domain.ParseQueuePosition(q.After); err != nil {
			return domain.Invalid("cursor", "is not a place in the queue")
		}
	}
	return nil
}

// queueCandidates reads the index after q.After, within the budget, until
// it holds want reviews that the review filters keep. after is where the
// reviews it returns end (the last one, or the last item a query read past
// it); more is false once the index has nothing after that.
func (s *Store) queueCandidates(ctx context.Context, q domain.QueueQuery, want int) (items []reviewItem, after string, more bool, err error) {
	after = q.After
	for range queueQueries {
		read := queueRead
		if !filtersReviews(q) {
			read = want - len(items) // every item read is kept
		}
		query := s.table(schema.Reviews).Get("account_id", q.AccountID).Index(schema.ReviewsByQueue).
			SearchLimit(read).RequestLimit(1)
		if after != "" {
			query.Range("queue_key", dynamo.Greater, after)
		}
		var got []reviewItem
		lek, err := filterQueue(query, q).AllWithLastEvaluatedKey(ctx, &got)
		if err != nil {
			return nil, "", false, err
		}
		if n := want - len(items); len(got) > n {
			items = append(items, got[:n]...)
			return items, items[len(items)-1].QueueKey, true, nil
		}
		items = append(items, got...)
		if lek == nil {
			return items, "", false, nil
		}
		if after, err = lekQueueKey(lek); err != nil {
			return nil, "", false, err
		}
		if len(items) == want {
			return items, after, true, nil
		}
	}
	return items, after, true, nil
}

// lekQueueKey is the queue position a query of the index stopped at.
func lekQueueKey(lek dynamo.PagingKey) (string, error) {
	v, ok := lek["queue_key"].(*types.AttributeValueMemberS)
	if !ok {
		return "", errors.New("the index's last evaluated key has no queue_key")
	}
	return v.Value, nil
}

// queueEntities reads the entities of a stretch's reviews, in one
// BatchGetItem (eventually consistent, as the index is).
func (s *Store) queueEntities(ctx context.Context, accountID int64, items []reviewItem) (map[int64]queueEntityItem, error) {
	seen := map[int64]bool{}
	var keys []dynamo.Keyed
	for _, it := range items {
		if !seen[it.EntityID] {
			seen[it.EntityID] = true
			keys = append(keys, dynamo.Keys{accountID, it.EntityID})
		}
	}
	out := make(map[int64]queueEntityItem, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	var got []queueEntityItem
	err := s.table(schema.Entities).Batch("account_id", "entity_id").Get(keys...).
		Project("entity_id", "legal_name", "country_code", "risk_level", "sanctions_status").All(ctx, &got)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, fmt.Errorf("read %d entities: %w", len(keys), err)
	}
	for _, e := range got {
		out[e.EntityID] = e
	}
	return out, nil
}

// queueEntry is a review of the queue with its entity as read, or, when
// the entity was not found, with the copies the review keeps.
func queueEntry(it reviewItem, e queueEntityItem, found bool) domain.QueueEntry {
	entry := domain.QueueEntry{Review: it.domain(), Position: it.QueueKey, LegalName: it.EntityName, Country: it.EntityCountry}
	if found {
		entry.LegalName, entry.Country = e.LegalName, e.CountryCode
		entry.Risk, entry.Sanctions = domain.RiskLevel(e.RiskLevel), domain.SanctionsStatus(e.SanctionsStatus)
	}
	return entry
}
