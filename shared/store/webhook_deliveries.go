package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// DeliveryRetention is how long delivery records are kept (the items'
// expires_at; DynamoDB's TTL removes them after).
const DeliveryRetention = 90 * 24 * time.Hour

type deliveryItem struct {
	AccountID  int64  `dynamo:"account_id,hash"`
	DeliveryID string `dynamo:"delivery_id,range"`
	OriginalID string `dynamo:"original_id"`
	Attempt    int    `dynamo:"attempt"`
	Attempts   int    `dynamo:"attempts,omitempty"`
	EndpointID int64  `dynamo:"endpoint_id"`
	EventID    string `dynamo:"event_id"`
	EventType  string `dynamo:"event_type"`
	ReviewID   int64  `dynamo:"review_id"`
	EntityID   int64  `dynamo:"entity_id"`
	// Payload is the exact body posted (and re-posted on redelivery), as
	// the caller gave it; the event's fields are kept beside it.
	Payload        string  `dynamo:"payload"`
	Outcome        *string `dynamo:"outcome,omitempty"`
	OccurredAt     string  `dynamo:"occurred_at,omitempty"`
	URL            string  `dynamo:"url,omitempty"`
	Status         string  `dynamo:"status"`
	ResponseStatus int     `dynamo:"response_status,omitempty"`
	ResponseBody   string  `dynamo:"response_body,omitempty"`
	Error          string  `dynamo:"error,omitempty"`
	DurationMS     int64   `dynamo:"duration_ms,omitempty"`
	RequestedBy    *int64  `dynamo:"requested_by,omitempty"`
	Reason         string  `dynamo:"reason,omitempty"`
	CreatedAt      string  `dynamo:"created_at"`
	StartedAt      string  `dynamo:"started_at,omitempty"`
	CompletedAt    string  `dynamo:"completed_at,omitempty"`
	CreatedKey     string  `dynamo:"created_key"`
	EndpointKey    string  `dynamo:"endpoint_key"`
	ReviewKey      string  `dynamo:"review_key"`
	StatusKey      string  `dynamo:"status_key"`
	ExpiresAt      int64   `dynamo:"expires_at"`
}

func newDeliveryItem(d domain.Delivery) deliveryItem {
	created := fmtTime(d.CreatedAt)
	ev := d.Event
	return deliveryItem{
		AccountID: d.AccountID, DeliveryID: d.ID, OriginalID: d.OriginalID, Attempt: d.Attempt, Attempts: d.Attempts,
		EndpointID: d.EndpointID, EventID: d.EventID, EventType: string(ev.EventType),
		ReviewID: ev.EntityReviewID, EntityID: ev.EntityID, Payload: string(d.Payload), Outcome: ev.Outcome, OccurredAt: ev.OccurredAt,
		URL: d.URL, Status: string(d.Status), ResponseStatus: d.ResponseStatus, ResponseBody: d.ResponseBody, Error: d.Error,
		DurationMS: d.DurationMS, RequestedBy: d.RequestedBy, Reason: d.Reason,
		CreatedAt: created, StartedAt: fmtOptTime(d.StartedAt), CompletedAt: fmtOptTime(d.CompletedAt),
		CreatedKey:  created + "#" + d.ID,
		EndpointKey: accountKey(d.AccountID, d.EndpointID),
		ReviewKey:   accountKey(d.AccountID, ev.EntityReviewID),
		StatusKey:   deliveryStatusKey(d.AccountID, d.Status),
		ExpiresAt:   d.CreatedAt.Add(DeliveryRetention).Unix(),
	}
}

func (it deliveryItem) domain() domain.Delivery {
	return domain.Delivery{
		AccountID: it.AccountID, ID: it.DeliveryID, OriginalID: it.OriginalID, Attempt: it.Attempt, Attempts: it.Attempts,
		EndpointID: it.EndpointID, EventID: it.EventID, URL: it.URL, Status: domain.DeliveryStatus(it.Status),
		Event: domain.Event{EventType: domain.EventType(it.EventType), EntityReviewID: it.ReviewID, EntityID: it.EntityID,
			AccountID: it.AccountID, Outcome: it.Outcome, OccurredAt: it.OccurredAt},
		Payload:        payload(it.Payload),
		ResponseStatus: it.ResponseStatus, ResponseBody: it.ResponseBody, Error: it.Error, DurationMS: it.DurationMS,
		RequestedBy: it.RequestedBy, Reason: it.Reason,
		CreatedAt: parseTime(it.CreatedAt), StartedAt: parseOptTime(it.StartedAt), CompletedAt: parseOptTime(it.CompletedAt),
	}
}

// deliveryStatusKey partitions the by_status index; it changes with the
// status, which moves the attempt between partitions of that index.
func deliveryStatusKey(accountID int64, st domain.DeliveryStatus) string {
	return accountKey(accountID, st)
}

// payload is a stored body as the caller gave it: none is nil.
func payload(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// ClaimDelivery marks an attempt as being sent, once: the first attempt of
// a review event is created by the claim; an attempt recorded queued before
// its message (d.Status queued: every redelivery, a test event) moves to
// sending, with the payload stored with it. A second claim of the same
// attempt (a duplicate message) gets domain.AlreadyClaimed; one arriving
// after lease on an attempt still sending gets domain.Interrupted, and the
// attempt is recorded failed, since whether the receiver got the POST is
// unknown.
func (s *Store) ClaimDelivery(ctx context.Context, d domain.Delivery, now time.Time, lease time.Duration) (domain.Delivery, domain.ClaimResult, error) {
	recorded := d.Attempt > 1 || d.Status == domain.DeliveryQueued
	d.Status, d.StartedAt = domain.DeliverySending, &now
	table := s.table(schema.WebhookDeliveries)
	var err error
	if !recorded {
		d.Attempt, d.Attempts, d.OriginalID = 1, 1, d.ID
		err = table.Put(newDeliveryItem(d)).If("attribute_not_exists(delivery_id)").Run(ctx)
	} else {
		var it deliveryItem
		err = table.Update("account_id", d.AccountID).Range("delivery_id", d.ID).
			Set("status", string(domain.DeliverySending)).
			Set("status_key", deliveryStatusKey(d.AccountID, domain.DeliverySending)).
			Set("started_at", fmtTime(now)).
			Set("url", d.URL).
			If("'status' = ?", string(domain.DeliveryQueued)).
			Value(ctx, &it)
		if err == nil {
			return it.domain(), domain.Claimed, nil
		}
	}
	if err == nil {
		return d, domain.Claimed, nil
	}
	if !isCondFailed(err) {
		return d, 0, fmt.Errorf("claim delivery %s: %w", d.ID, err)
	}
	cur, err := s.Delivery(ctx, d.AccountID, d.ID)
	if err != nil {
		return d, 0, fmt.Errorf("claim delivery %s: %w", d.ID, err)
	}
	if cur.Status != domain.DeliverySending || cur.StartedAt == nil || now.Sub(*cur.StartedAt) < lease {
		return cur, domain.AlreadyClaimed, nil
	}
	cur.Status, cur.CompletedAt = domain.DeliveryFailed, &now
	cur.Error = "interrupted: the delivery function stopped during this attempt; whether the receiver got it is unknown"
	switch err := s.FinishDelivery(ctx, cur); {
	case errors.Is(err, domain.ErrStale):
		return cur, domain.AlreadyClaimed, nil
	case err != nil:
		return cur, 0, err
	}
	return cur, domain.Interrupted, nil
}

// FinishDelivery records the result of an attempt being sent; domain.ErrStale if
// it is no longer sending (another claim recorded it).
func (s *Store) FinishDelivery(ctx context.Context, d domain.Delivery) error {
	if d.CompletedAt == nil {
		return fmt.Errorf("finish delivery %s: no completion time", d.ID)
	}
	u := s.table(schema.WebhookDeliveries).Update("account_id", d.AccountID).Range("delivery_id", d.ID).
		Set("status", string(d.Status)).
		Set("status_key", deliveryStatusKey(d.AccountID, d.Status)).
		Set("completed_at", fmtTime(*d.CompletedAt)).
		Set("duration_ms", d.DurationMS).
		If("'status' = ?", string(domain.DeliverySending))
	if d.ResponseStatus != 0 {
		u.Set("response_status", d.ResponseStatus)
	}
	if d.ResponseBody != "" {
		u.Set("response_body", d.ResponseBody)
	}
	if d.Error != "" {
		u.Set("error", d.Error)
	}
	err := u.Run(ctx)
	if isCondFailed(err) {
		return domain.ErrStale
	}
	return wrap(err, "record delivery %s", d.ID)
}

// Delivery returns one attempt.
func (s *Store) Delivery(ctx context.Context, accountID int64, id string) (domain.Delivery, error) {
	var it deliveryItem
	err := s.table(schema.WebhookDeliveries).Get("account_id", accountID).Range("delivery_id", dynamo.Equal, id).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Delivery{}, wrap(notFound(err, "Delivery"), "get delivery %s", id)
	}
	return it.domain(), nil
}

// Deliveries lists the account's attempts, newest first. The most selective
// filter picks the index (endpoint, review, status, else time); the others
// filter what it reads. Every index is sorted by created_key, so a date
// range is a key condition there: DynamoDB reads only the range. It is for
// operators and reads global indexes: an attempt recorded a moment ago may
// be missing or show its previous status.
func (s *Store) Deliveries(ctx context.Context, accountID int64, f domain.DeliveryFilter) ([]domain.Delivery, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	table := s.table(schema.WebhookDeliveries)
	var q *dynamo.Query
	var filters []string
	var args []any
	switch {
	case f.EndpointID != 0:
		q = table.Get("endpoint_key", accountKey(accountID, f.EndpointID)).Index(schema.DeliveriesByEndpoint)
		if f.ReviewID != 0 {
			filters, args = append(filters, "review_id = ?"), append(args, f.ReviewID)
		}
		if f.Status != "" {
			filters, args = append(filters, "'status' = ?"), append(args, string(f.Status))
		}
	case f.ReviewID != 0:
		q = table.Get("review_key", accountKey(accountID, f.ReviewID)).Index(schema.DeliveriesByReview)
		if f.Status != "" {
			filters, args = append(filters, "'status' = ?"), append(args, string(f.Status))
		}
	case f.Status != "":
		q = table.Get("status_key", deliveryStatusKey(accountID, f.Status)).Index(schema.DeliveriesByStatus)
	default:
		q = table.Get("account_id", accountID).Index(schema.DeliveriesByCreated)
	}
	createdRange(q, f.CreatedFrom, f.CreatedBefore)
	q.Order(dynamo.Descending)
	if f.EventType != "" {
		filters, args = append(filters, "event_type = ?"), append(args, string(f.EventType))
	}
	if len(filters) > 0 {
		q.Filter(strings.Join(filters, " AND "), args...)
	}
	var items []deliveryItem
	if err := q.Limit(limit).All(ctx, &items); err != nil {
		return nil, fmt.Errorf("list deliveries of account %d: %w", accountID, err)
	}
	out := make([]domain.Delivery, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}

// createdRange limits a deliveries index query to attempts created at or
// after from and before before (zero: open). created_key is
// "<created_at>#<delivery id>" with created_at in domain.TimeLayout, whose
// string order is time order: "T#id" >= FormatTime(from) exactly when T >=
// from, and "T#id" < FormatTime(before) exactly when T < before (when T
// equals before, the longer "T#id" sorts after it). BETWEEN includes its
// ends, but no key equals a bare time. Stored times are whole milliseconds,
// so the bounds are rounded up to one first (ceilMilli).
func createdRange(q *dynamo.Query, from, before time.Time) {
	switch lo, hi := fmtTime(ceilMilli(from)), fmtTime(ceilMilli(before)); {
	case !from.IsZero() && !before.IsZero():
		q.Range("created_key", dynamo.Between, lo, hi)
	case !from.IsZero():
		q.Range("created_key", dynamo.GreaterOrEqual, lo)
	case !before.IsZero():
		q.Range("created_key", dynamo.Less, hi)
	}
}

// CreateRedelivery writes a redelivery in one transaction: the original's
// attempt count (only if no other attempt was added meanwhile: domain.ErrStale),
// the new queued attempt, and its audit record (domain.ErrDuplicateAction if the
// action id was applied before).
func (s *Store) CreateRedelivery(ctx context.Context, r domain.Redelivery) error {
	if err := r.Validate(); err != nil {
		return err
	}
	o := r.Original
	err := s.auditTx(ctx, r.Audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Put(rec).
			Update(s.table(schema.WebhookDeliveries).Update("account_id", o.AccountID).Range("delivery_id", o.ID).
				Set("attempts", r.Attempt.Attempt).If("attempts = ?", r.Attempt.Attempt-1)).
			Put(s.table(schema.WebhookDeliveries).Put(newDeliveryItem(r.Attempt)).If("attribute_not_exists(delivery_id)"))
	})
	switch {
	case err == nil:
		return nil
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case isTxCondFailed(err), isTxConflict(err):
		return domain.ErrStale
	default:
		return fmt.Errorf("redeliver %s: %w", o.ID, err)
	}
}

// CreateTestDelivery records a test event's delivery, queued, with the
// audit record of its sending, in one transaction; domain.ErrDuplicateAction
// if the action id was applied before.
func (s *Store) CreateTestDelivery(ctx context.Context, d domain.Delivery, audit domain.AuditRecord) error {
	if d.Attempt != 1 || d.OriginalID != d.ID || d.Status != domain.DeliveryQueued || d.Event.EventType != domain.EventPing {
		return fmt.Errorf("test delivery %s: not a queued first attempt of a ping", d.ID)
	}
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Put(rec).
			Put(s.table(schema.WebhookDeliveries).Put(newDeliveryItem(d)).If("attribute_not_exists(delivery_id)"))
	})
	if cancelledAt(err, 0) {
		return domain.ErrDuplicateAction
	}
	return wrap(err, "record test delivery %s", d.ID)
}
