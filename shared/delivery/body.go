package delivery

import (
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// Body is an event as subscribers receive it (spec section 6). Its field
// order is the body's: the delivery signs exactly these bytes, and a
// redelivery posts the bytes stored with the first attempt.
type Body struct {
	EventType      domain.EventType `json:"event_type"`
	EntityReviewID int64            `json:"entity_review_id"`
	EntityID       int64            `json:"entity_id"`
	AccountID      int64            `json:"account_id"`
	// Outcome is the review's outcome once it has one (approved, rejected),
	// null before.
	Outcome    *string `json:"outcome"`
	OccurredAt string  `json:"occurred_at"`
}

// BodyOf is the body of an event.
func BodyOf(ev domain.Event) Body {
	return Body{EventType: ev.EventType, EntityReviewID: ev.EntityReviewID, EntityID: ev.EntityID,
		AccountID: ev.AccountID, Outcome: ev.Outcome, OccurredAt: ev.OccurredAt}
}

// Event is the event the body carries.
func (b Body) Event() domain.Event {
	return domain.Event{EventType: b.EventType, EntityReviewID: b.EntityReviewID, EntityID: b.EntityID,
		AccountID: b.AccountID, Outcome: b.Outcome, OccurredAt: b.OccurredAt}
}

// EncodeBody is the exact body posted for a review event.
func EncodeBody(ev domain.Event) ([]byte, error) {
	b, err := json.Marshal(BodyOf(ev))
	if err != nil {
		return nil, fmt.Errorf("encode %s event of review %d: %w", ev.EventType, ev.EntityReviewID, err)
	}
	return b, nil
}

// PingBody is the test event's body (event_type "ping"): the endpoint it
// tests, its account, and when it was sent. Like Body, its field order is
// the body's and the signature is over these exact bytes; a redelivery of
// a ping posts them again, occurred_at unchanged.
type PingBody struct {
	EventType  domain.EventType `json:"event_type"`
	EndpointID int64            `json:"endpoint_id"`
	AccountID  int64            `json:"account_id"`
	OccurredAt string           `json:"occurred_at"`
}

// EncodePing is the exact body posted for a ping to the endpoint.
func EncodePing(accountID, endpointID int64, occurredAt string) ([]byte, error) {
	b, err := json.Marshal(PingBody{EventType: domain.EventPing, EndpointID: endpointID, AccountID: accountID, OccurredAt: occurredAt})
	if err != nil {
		return nil, fmt.Errorf("encode ping of endpoint %d: %w", endpointID, err)
	}
	return b, nil
}
