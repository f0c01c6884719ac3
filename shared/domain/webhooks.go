package domain

import "time"

// EventType is a kind of review event posted to subscribers (spec section 6).
type EventType string

const (
	EventApproved       EventType = "entity_review.approved"
	EventRejected       EventType = "entity_review.rejected"
	EventEscalated      EventType = "entity_review.escalated"
	EventEscalatedToAML EventType = "entity_review.escalated_to_aml"
	EventAssigned       EventType = "entity_review.assigned"
	EventChecksQueued   EventType = "entity_review.checks_queued"
)

// EventPing is the test event: an operator sends one to one endpoint (the
// settings area's "Send test event") to see it arrive, signed like any
// other. Nobody subscribes to it, so it is not one of EventTypes.
const EventPing EventType = "ping"

// EventTypes lists every event kind an endpoint subscribes to.
func EventTypes() []EventType {
	return []EventType{EventApproved, EventRejected, EventEscalated, EventEscalatedToAML, EventAssigned, EventChecksQueued}
}

// ValidEventType reports whether s names an event kind one subscribes to.
func ValidEventType(s string) bool {
	for _, t := range EventTypes() {
		if string(t) == s {
			return true
		}
	}
	return false
}

// Event is one review state change, as subscribers are told of it (package
// delivery owns its body's bytes).
type Event struct {
	EventType      EventType
	EntityReviewID int64
	EntityID       int64
	AccountID      int64
	// Outcome is the review's outcome once it has one (approved, rejected),
	// nil before.
	Outcome    *string
	OccurredAt string
}

// Endpoint is a subscriber's URL and the events it receives.
type Endpoint struct {
	AccountID int64
	ID        int64
	URL       string
	Events    []EventType
	Active    bool
	// Secret signs every delivery. During a rotation PreviousSecret signs
	// too, until PreviousExpiresAt.
	Secret            string
	PreviousSecret    string
	PreviousExpiresAt *time.Time
	Description       string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	Version           int64
}

// Subscribes reports whether the endpoint receives events of type t now.
func (e Endpoint) Subscribes(t EventType) bool {
	if !e.Active {
		return false
	}
	for _, x := range e.Events {
		if x == t {
			return true
		}
	}
	return false
}

// Receives reports whether the endpoint gets an event of type t that
// occurred at occurredAt: it subscribes to it now, and it existed then. So a
// stream replayed or redriven, or an endpoint added later, never brings an
// endpoint events from before its time.
func (e Endpoint) Receives(t EventType, occurredAt time.Time) bool {
	return e.Subscribes(t) && !occurredAt.Before(e.CreatedAt)
}

// Accepts reports whether a delivery of an event of type t addressed to the
// endpoint may be posted to it now: a review event if it subscribes to it,
// a ping (addressed to this one endpoint, never fanned out) if it is active.
func (e Endpoint) Accepts(t EventType) bool {
	if t == EventPing {
		return e.Active
	}
	return e.Subscribes(t)
}

// SigningSecrets are the secrets that sign a delivery at now: the current
// one, then the previous one while its overlap lasts.
func (e Endpoint) SigningSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousExpiresAt != nil && now.Before(*e.PreviousExpiresAt) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// Audited actions on endpoints and deliveries (not review decisions).
const (
	ActionEndpointCreate Action = "webhook_endpoint.create"
	ActionEndpointUpdate Action = "webhook_endpoint.update"
	ActionEndpointRotate Action = "webhook_endpoint.rotate_secret"
	ActionEndpointDelete Action = "webhook_endpoint.delete"
	ActionRedeliver      Action = "webhook_delivery.redeliver"
	// ActionEndpointTest: a test event (ping) sent to an endpoint.
	ActionEndpointTest Action = "webhook_endpoint.test"
)
