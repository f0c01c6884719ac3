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

type idempotencyItem struct {
	AccountID   int64  `dynamo:"account_id,hash"`
	Key         string `dynamo:"idempotency_key,range"`
	RequestHash string `dynamo:"request_hash"`
	State       string `dynamo:"request_state"`
	LockedUntil int64  `dynamo:"locked_until,omitempty"` // Unix ms
	Status      int    `dynamo:"response_status,omitempty"`
	Body        string `dynamo:"response_body,omitempty"`
	CreatedAt   string `dynamo:"created_at"`
	// ExpiresAt is the TTL attribute (Unix seconds). DynamoDB deletes expired
	// items lazily, so reads treat an expired item as absent.
	ExpiresAt int64 `dynamo:"expires_at"`
}

func (it idempotencyItem) domain() domain.IdempotencyRecord {
	return domain.IdempotencyRecord{
		AccountID: it.AccountID, Key: it.Key, RequestHash: it.RequestHash, State: domain.IdempotencyState(it.State),
		Status: it.Status, Body: it.Body, CreatedAt: parseTime(it.CreatedAt), ExpiresAt: time.Unix(it.ExpiresAt, 0).UTC(),
	}
}

// BeginIdempotent claims an Idempotency-Key for a request. It returns
// claimed when this request may proceed: the key is new, its record expired
// (after ttl), or an earlier attempt holding it stopped answering (its lock
// ran out). Otherwise it returns the record that holds the key: in progress,
// or completed with the answer to replay.
func (s *Store) BeginIdempotent(ctx context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error) {
	it := idempotencyItem{
		AccountID: accountID, Key: key, RequestHash: requestHash, State: string(domain.IdempotencyInProgress),
		LockedUntil: now.Add(lock).UnixMilli(), CreatedAt: fmtTime(now), ExpiresAt: now.Add(ttl).Unix(),
	}
	table := s.table(schema.Idempotency)
	// A lapsed attempt is taken over only by the same request: another
	// body with the key is refused, as while the first runs.
	err := table.Put(it).If("attribute_not_exists(idempotency_key) OR expires_at <= ? OR (request_state = ? AND locked_until < ? AND request_hash = ?)",
		now.Unix(), string(domain.IdempotencyInProgress), now.UnixMilli(), requestHash).Run(ctx)
	if err == nil {
		return it.domain(), true, nil
	}
	if !isCondFailed(err) {
		return domain.IdempotencyRecord{}, false, fmt.Errorf("claim idempotency key: %w", err)
	}
	var cur idempotencyItem
	err = table.Get("account_id", accountID).Range("idempotency_key", dynamo.Equal, key).Consistent(true).One(ctx, &cur)
	if errors.Is(err, dynamo.ErrNotFound) {
		// Released between our write and our read: the caller may retry.
		return domain.IdempotencyRecord{AccountID: accountID, Key: key, State: domain.IdempotencyInProgress, RequestHash: requestHash}, false, nil
	}
	if err != nil {
		return domain.IdempotencyRecord{}, false, fmt.Errorf("read idempotency key: %w", err)
	}
	return cur.domain(), false, nil
}

// CompleteIdempotent stores the answer to replay for the key's request (a
// refusal; a 201 is stored by the create's own commit).
func (s *Store) CompleteIdempotent(ctx context.Context, accountID int64, key, requestHash string, status int, body string) error {
	if err := s.completeIdempotent(accountID, key, requestHash, status, body).Run(ctx); err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	return nil
}

func (s *Store) completeIdempotent(accountID int64, key, requestHash string, status int, body string) *dynamo.Update {
	return s.table(schema.Idempotency).Update("account_id", accountID).Range("idempotency_key", key).
		Set("request_state", string(domain.IdempotencyCompleted)).
		Set("response_status", status).
		Set("response_body", body).
		Remove("locked_until").
		If("request_hash = ? AND request_state = ?", requestHash, string(domain.IdempotencyInProgress))
}

// ReleaseIdempotent gives up a claimed key without an answer (after a fault),
// so that a retry with the same key runs the request again.
func (s *Store) ReleaseIdempotent(ctx context.Context, accountID int64, key, requestHash string) error {
	err := s.table(schema.Idempotency).Delete("account_id", accountID).Range("idempotency_key", key).
		If("request_hash = ? AND request_state = ?", requestHash, string(domain.IdempotencyInProgress)).Run(ctx)
	if err != nil && !isCondFailed(err) {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// IdempotencyRecord reads the record of an Idempotency-Key, strongly
// consistent; an expired one is not found.
func (s *Store) IdempotencyRecord(ctx context.Context, accountID int64, key string, now time.Time) (domain.IdempotencyRecord, error) {
	var it idempotencyItem
	err := s.table(schema.Idempotency).Get("account_id", accountID).Range("idempotency_key", dynamo.Equal, key).Consistent(true).One(ctx, &it)
	if err == nil && it.ExpiresAt <= now.Unix() {
		err = dynamo.ErrNotFound
	}
	if err != nil {
		return domain.IdempotencyRecord{}, wrap(notFound(err, "Idempotency-Key"), "read idempotency key")
	}
	return it.domain(), nil
}
