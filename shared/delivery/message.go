// Package delivery posts review events to subscribers' endpoints: one SQS
// message per delivery, claimed once, signed over the exact bytes sent,
// posted with a timeout to an address checked when connecting, and recorded
// as delivered or failed. Failed deliveries are not retried automatically;
// an operator redelivers them (Redeliver), as a new audited attempt. An
// operator can also send one endpoint a test event (Tester), which goes the
// same way.
package delivery

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// Message is one delivery on the deliveries queue.
type Message struct {
	AccountID  int64  `json:"account_id"`
	DeliveryID string `json:"delivery_id"`
	// Attempt is 1 for a delivery made by review-events, more for a
	// redelivery (whose attempt record exists, queued).
	Attempt    int    `json:"attempt"`
	EndpointID int64  `json:"endpoint_id"`
	EventID    string `json:"event_id"`
	// Recorded: the attempt was recorded, queued, before this message was
	// sent (every redelivery, a test event), so the claim moves that record
	// to sending and posts the bytes stored with it. Otherwise the claim
	// records the first attempt of a review event itself.
	Recorded bool `json:"recorded,omitempty"`
	// Event goes on the queue in its body's form (Body).
	Event domain.Event `json:"-"`
}

// plainMessage is Message without its methods, so that wireMessage can
// embed its fields.
type plainMessage Message

// wireMessage is a Message as the queue carries it: its fields, then the
// event as a Body.
type wireMessage struct {
	plainMessage
	Event Body `json:"event"`
}

// MarshalJSON writes the message with its event as a Body.
func (m Message) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireMessage{plainMessage: plainMessage(m), Event: BodyOf(m.Event)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message(w.plainMessage)
	m.Event = w.Event.Event()
	return nil
}

// ID is the delivery id of an event for an endpoint: the same event and
// endpoint always give the same id, so a stream record seen twice claims
// the same delivery and posts once.
func ID(eventID string, endpointID int64) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", eventID, endpointID)))
	return "dlv_" + hex.EncodeToString(sum[:16])
}

// payload is the body of a first attempt the claim records: a ping's
// names its endpoint.
func (m Message) payload() ([]byte, error) {
	if m.Event.EventType == domain.EventPing {
		return EncodePing(m.AccountID, m.EndpointID, m.Event.OccurredAt)
	}
	return EncodeBody(m.Event)
}

// recorded reports whether the attempt was recorded before its message:
// a redelivery's attempt number says so too, for messages sent before
// Recorded existed.
func (m Message) recorded() bool { return m.Recorded || m.Attempt > 1 }

// NewMessage is the first delivery of an event to an endpoint.
func NewMessage(eventID string, ev domain.Event, endpointID int64) Message {
	return Message{
		AccountID: ev.AccountID, DeliveryID: ID(eventID, endpointID), Attempt: 1,
		EndpointID: endpointID, EventID: eventID, Event: ev,
	}
}
