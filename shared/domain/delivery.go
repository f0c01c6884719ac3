package domain

import (
	"fmt"
	"strconv"
	"time"
)

// DeliveryStatus is where one delivery attempt stands.
type DeliveryStatus string

const (
	// DeliveryQueued: a redelivery waiting for the delivery function.
	DeliveryQueued DeliveryStatus = "queued"
	// DeliverySending: claimed by the delivery function, POST under way.
	DeliverySending   DeliveryStatus = "sending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
)

// DeliveryStatuses lists every status.
func DeliveryStatuses() []DeliveryStatus {
	return []DeliveryStatus{DeliveryQueued, DeliverySending, DeliveryDelivered, DeliveryFailed}
}

// Delivery is one attempt to post one event to one endpoint. The first
// attempt's id is derived from the event and the endpoint, so the same
// change never makes two; a redelivery is a further attempt with its own id
// (<original id>.<attempt>) pointing at the original.
type Delivery struct {
	AccountID  int64
	ID         string
	OriginalID string // the first attempt's id (ID itself for the first)
	Attempt    int    // 1 for the first
	// Attempts counts every attempt of the delivery; kept on the first.
	Attempts   int
	EndpointID int64
	EventID    string
	Event      Event
	// Payload is the exact body posted: encoded by package delivery for
	// the first attempt, the same bytes again for every redelivery.
	Payload []byte
	URL     string
	Status  DeliveryStatus
	// Set once the POST is done.
	ResponseStatus int
	ResponseBody   string
	Error          string
	DurationMS     int64
	// Who asked for a redelivery, and why.
	RequestedBy *int64
	Reason      string
	CreatedAt   time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
}

// AttemptID names attempt n of a delivery: the first is the delivery's own
// id, a redelivery "<id>.<n>".
func AttemptID(originalID string, n int) string {
	if n <= 1 {
		return originalID
	}
	return originalID + "." + strconv.Itoa(n)
}

// ClaimResult says what claiming a delivery attempt found.
type ClaimResult int

const (
	// Claimed: this caller owns the attempt and must post it.
	Claimed ClaimResult = iota
	// AlreadyClaimed: another message claimed it (a duplicate); nothing to do.
	AlreadyClaimed
	// Interrupted: a claim older than the lease never finished (its
	// function died mid-post); it is now recorded failed, not posted again.
	Interrupted
)

// DeliveryFilter narrows a listing of deliveries; zero fields match all.
type DeliveryFilter struct {
	EndpointID int64
	ReviewID   int64
	EventType  EventType
	Status     DeliveryStatus
	// CreatedFrom and CreatedBefore bound when the attempts were created:
	// from included, before excluded; zero leaves that end open.
	CreatedFrom   time.Time
	CreatedBefore time.Time
	// Limit caps the attempts returned (newest first); 0 means 100.
	Limit int
}

// Validate refuses a status or an event type that does not exist: a
// listing of them would be empty, which hides the typo. So is a range
// whose end is not after its start.
func (f DeliveryFilter) Validate() error {
	if f.Status != "" && !validDeliveryStatus(f.Status) {
		return Invalid("status", fmt.Sprintf("must be one of %v", DeliveryStatuses()))
	}
	// Test events are deliveries too, listed like the others.
	if f.EventType != "" && f.EventType != EventPing && !ValidEventType(string(f.EventType)) {
		return Invalid("event", fmt.Sprintf("must be one of %v or %s", EventTypes(), EventPing))
	}
	// Times are compared as TimeLayout strings, whose order is time order
	// for four-digit years only.
	for _, b := range []struct {
		field string
		t     time.Time
	}{{"created_from", f.CreatedFrom}, {"created_before", f.CreatedBefore}} {
		if y := b.t.UTC().Year(); !b.t.IsZero() && (y < 1 || y > 9999) {
			return Invalid(b.field, "must be between the years 1 and 9999")
		}
	}
	if !f.CreatedFrom.IsZero() && !f.CreatedBefore.IsZero() && !f.CreatedFrom.Before(f.CreatedBefore) {
		return Invalid("created_before", "must be after created_from")
	}
	return nil
}

func validDeliveryStatus(s DeliveryStatus) bool {
	for _, x := range DeliveryStatuses() {
		if x == s {
			return true
		}
	}
	return false
}

// Redelivery is a new attempt of a failed delivery, asked for by an
// operator or the account's administrator.
type Redelivery struct {
	// Original is the first attempt (its Attempts is the latest attempt's number).
	Original Delivery
	// Attempt is the new attempt, queued.
	Attempt Delivery
	Audit   AuditRecord
}

// Validate checks that the attempt follows the original's latest one.
func (r Redelivery) Validate() error {
	switch {
	case r.Attempt.OriginalID != r.Original.ID:
		return fmt.Errorf("redelivery %s: not an attempt of %s", r.Attempt.ID, r.Original.ID)
	case r.Attempt.Attempt != r.Original.Attempts+1:
		return fmt.Errorf("redelivery %s: attempt %d does not follow %d", r.Attempt.ID, r.Attempt.Attempt, r.Original.Attempts)
	case r.Attempt.ID != AttemptID(r.Original.ID, r.Attempt.Attempt):
		return fmt.Errorf("redelivery %s: id is not attempt %d's", r.Attempt.ID, r.Attempt.Attempt)
	}
	return nil
}
