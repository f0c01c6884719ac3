package delivery_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
)

// The body's bytes are the contract with subscribers: fields in this
// order, a null outcome kept.
func TestEncodeBody(t *testing.T) {
	tests := []struct {
		name string
		ev   domain.Event
		want string
	}{
		{"approved", domain.Event{EventType: domain.EventApproved, EntityReviewID: 20, EntityID: 10, AccountID: 1, Outcome: new("approved"), OccurredAt: "2026-11-01T09:00:00.000Z"},
			`{"event_type":"entity_review.approved","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":"approved","occurred_at":"2026-11-01T09:00:00.000Z"}`},
		{"no outcome", domain.Event{EventType: domain.EventAssigned, EntityReviewID: 20, EntityID: 10, AccountID: 1, OccurredAt: "2026-11-01T09:00:00.000Z"},
			`{"event_type":"entity_review.assigned","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":null,"occurred_at":"2026-11-01T09:00:00.000Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := delivery.EncodeBody(tc.ev)
			if err != nil || string(b) != tc.want {
				t.Errorf("payload %s (%v)", b, err)
			}
		})
	}
}

// A queue message carries its event in the body's form, after its own
// fields, and reads back as it was.
func TestMessageJSON(t *testing.T) {
	m := delivery.NewMessage("evt_1", domain.Event{EventType: domain.EventApproved, EntityReviewID: 20, EntityID: 10, AccountID: 1,
		Outcome: new("approved"), OccurredAt: "2026-11-01T09:00:00.000Z"}, 3)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"account_id":1,"delivery_id":"` + m.DeliveryID + `","attempt":1,"endpoint_id":3,"event_id":"evt_1",` +
		`"event":{"event_type":"entity_review.approved","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":"approved","occurred_at":"2026-11-01T09:00:00.000Z"}}`
	if string(b) != want {
		t.Errorf("message\n got %s\nwant %s", b, want)
	}
	var back delivery.Message
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, m) {
		t.Errorf("read back %+v (%v), want %+v", back, err, m)
	}
}
